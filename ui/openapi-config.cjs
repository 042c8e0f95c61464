// Endpoints are generated from the server's OpenAPI document so the UI and the API cannot drift
// apart silently; CI regenerates and fails on any diff. Tags live in src/api/enhanced.ts because
// the document does not carry cache semantics.
/** @type {import('@rtk-query/codegen-openapi').ConfigFile} */
const config = {
  schemaFile: '../api/openapi.yaml',
  apiFile: './src/api/baseApi.ts',
  apiImport: 'baseApi',
  outputFile: './src/api/generated.ts',
  exportName: 'generatedApi',
  hooks: true,
  // The UI does not send Idempotency-Key (it never retries a mutation by itself); leaving the
  // header out keeps the argument of endpoints without other parameters optional. The investor's
  // money requests are the exceptions (a deposit, an investment, an early redemption, a
  // withdrawal): each attempt holds one key, so a second click or a retry after a lost answer
  // never moves the money twice. Staff decisions need none: deciding twice is refused (409). The
  // first matching override applies.
  endpointOverrides: [
    { pattern: 'createDeposit', parameterFilter: () => true },
    { pattern: 'redeemEarly', parameterFilter: () => true },
    { pattern: 'startInvestment', parameterFilter: () => true },
    { pattern: 'createWithdrawal', parameterFilter: () => true },
    // An admin's settings change and plan change: one key per confirmed change.
    { pattern: ['updateSettings', 'createPlan', 'newPlanVersion', 'retirePlan'], parameterFilter: () => true },
    // A staff correction or fee waiver posted twice would move the money twice: one key per attempt.
    { pattern: 'postCorrection', parameterFilter: () => true },
    { pattern: 'waiveFee', parameterFilter: () => true },
    // A staff e-mail to many people: one key per composed message, so a second click or a retry
    // after a lost answer never mails anyone twice.
    { pattern: 'sendComposedEmail', parameterFilter: () => true },
    // A withdrawal quote is a POST only to keep the wallet address out of URLs; it changes
    // nothing, so it is a query the page can run when it opens and again on demand.
    { pattern: 'quoteWithdrawal', type: 'query', parameterFilter: (name) => name !== 'Idempotency-Key' },
    { pattern: () => true, parameterFilter: (name) => name !== 'Idempotency-Key' },
  ],
};

module.exports = config;
