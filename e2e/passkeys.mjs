// Passkeys in the browser tests: Chromium's virtual authenticator (the DevTools protocol's
// WebAuthn domain) stands in for a fingerprint reader, so navigator.credentials works headless
// and answers every ceremony as a person who unlocked their device would.
//
// A passkey's relying party cannot be an IP address, so a test that uses passkeys runs on
// http://localhost:PORT rather than the 127.0.0.1 the server is started at: import
// `localBaseURL` and set E2E_BASE_URL to it before loading browser.mjs and flows.mjs (cookies
// belong to one host, so the whole test stays on it).

export function localBaseURL(base = process.env.E2E_BASE_URL || 'http://localhost:8080') {
  const u = new URL(base);
  if (u.hostname === '127.0.0.1' || u.hostname === '[::1]') u.hostname = 'localhost';
  return u.origin;
}

// Adds a platform authenticator that keeps discoverable credentials and verifies its user
// (what a laptop's fingerprint reader does) to the page of a CDP session:
// `await addVirtualAuthenticator(await context.newCDPSession(page))`. Returns its id.
export async function addVirtualAuthenticator(session) {
  await session.send('WebAuthn.enable');
  const { authenticatorId } = await session.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return authenticatorId;
}

// The passkeys the virtual authenticator holds, with their signature counters.
export async function storedCredentials(session, authenticatorId) {
  const { credentials } = await session.send('WebAuthn.getCredentials', { authenticatorId });
  return credentials;
}

// Answers the step-up dialog ("Confirm it's you") with the page's passkey; the request it held
// back then goes through.
export async function stepUpWithPasskey(page) {
  const dialog = page.getByRole('dialog', { name: "Confirm it's you" });
  await dialog.waitFor();
  await dialog.getByRole('button', { name: 'Use a passkey', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
}
