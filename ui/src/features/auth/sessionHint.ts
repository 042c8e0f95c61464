// Whether this browser has signed in, remembered so a first-time visitor is not asked about a
// session they cannot have. The refresh cookie is HttpOnly (the page cannot see it), and trying a
// refresh without one costs a 401 that browsers print to the console as an error on every visit
// to the public site. The hint holds no secret: the cookies still decide; it only spares the
// question. It is set while a session is known to exist and cleared when one is known to be gone.

const KEY = 'clearvest:signed-in-before';

// Browser storage can be absent (prerendering at build time) or refused (privacy settings).
function storage(): Storage | undefined {
  try {
    return globalThis.localStorage ?? undefined;
  } catch {
    return undefined;
  }
}

export function mayHaveSession() {
  try {
    return storage()?.getItem(KEY) === '1';
  } catch {
    return false;
  }
}

export function rememberSession(signedIn: boolean) {
  const store = storage();
  if (!store) return;
  try {
    if (signedIn) store.setItem(KEY, '1');
    else store.removeItem(KEY);
  } catch {
    // Storage full or refused: the next visit asks the server once more, as before.
  }
}
