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
  // header out keeps the argument of endpoints without other parameters optional. Starting an
  // investment and requesting a withdrawal are the exceptions: their confirmation step holds one
  // key, so a second click or a retry after a lost answer never moves the money twice. The first
  // matching override applies.
  endpointOverrides: [
    { pattern: 'startInvestment', parameterFilter: () => true },
    { pattern: 'createWithdrawal', parameterFilter: () => true },
    { pattern: () => true, parameterFilter: (name) => name !== 'Idempotency-Key' },
  ],
};

module.exports = config;
