import { api } from '../api/enhanced';
import type { AppStore } from './store';

// A page the server serves with data filled in (the plans, the member levels, How It Works:
// api/livepages.go) carries that data as JSON in <script type="application/json" id="…">: the
// answers of the API queries the page makes, as the API would give them. They go into the store
// before the app hydrates, so the first render shows the same content the visitor already sees
// instead of a loading state, and nothing is fetched again.

export const PRELOADED_ID = 'preloaded-queries';

interface Entry {
  endpointName: string;
  arg: unknown;
  value: unknown;
}

function readEntries(doc: Document): Entry[] {
  const text = doc.getElementById(PRELOADED_ID)?.textContent;
  if (!text) return [];
  try {
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (e): e is Entry => typeof e === 'object' && e !== null && typeof (e as Entry).endpointName === 'string' && 'value' in e,
    );
  } catch {
    // Unreadable data only costs the page a fetch.
    return [];
  }
}

export function loadPreloaded(store: AppStore, doc: Document = document): void {
  const entries = readEntries(doc).map((e) => ({ ...e, arg: e.arg ?? undefined }));
  if (entries.length === 0) return;
  store.dispatch(api.util.upsertQueryEntries(entries as Parameters<typeof api.util.upsertQueryEntries>[0]));
}
