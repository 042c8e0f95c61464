// Pages are split into chunks whose names change with every release. A tab opened before a deploy
// asks for chunks that no longer exist, and a flaky connection can drop one; either way the
// import fails. Reloading fetches the current index.html and its chunk names, which fixes the
// first case, so the route error page reloads the page once when a page could not be loaded (the
// failed navigation has already moved the address to that page, so the reload lands there). If
// the load fails again after that reload, the error page says so and offers to try again: the key
// in sessionStorage (per tab, cleared by the next page that loads) means this can never turn into
// a reload loop.

const RELOADED_FOR = 'clearvest:reloaded-for';

// The browser's reload, reached through an object so tests can see it being asked for.
export const browserPage = {
  reload() {
    window.location.reload();
  },
};

// A page's code could not be fetched or evaluated; the error page words this differently from a
// page that failed while rendering.
export class PageLoadError extends Error {
  constructor(cause: unknown) {
    super('The page could not be loaded', { cause });
    this.name = 'PageLoadError';
  }
}

export async function loadPage<T>(load: () => Promise<T>): Promise<T> {
  let loaded: T;
  try {
    loaded = await load();
  } catch (error) {
    throw new PageLoadError(error);
  }
  // Pages are also loaded while prerendering at build time, where there is no browser storage.
  globalThis.sessionStorage?.removeItem(RELOADED_FOR);
  return loaded;
}

// Whether this tab has already reloaded for a failed load since a page last loaded.
export const reloadedAlready = () => sessionStorage.getItem(RELOADED_FOR) !== null;

export function reloadOnce() {
  if (reloadedAlready()) return;
  sessionStorage.setItem(RELOADED_FOR, window.location.pathname);
  browserPage.reload();
}
