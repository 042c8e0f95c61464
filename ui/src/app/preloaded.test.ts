import { describe, expect, it } from 'vitest';
import { api } from '../api/enhanced';
import { loadPreloaded, PRELOADED_ID } from './preloaded';
import { makeStore } from './store';
import { basicPlan } from '../test/fixtures';

const plans = { plans: [basicPlan] };

function page(data: string | null): Document {
  const doc = document.implementation.createHTMLDocument();
  if (data !== null) {
    const script = doc.createElement('script');
    script.type = 'application/json';
    script.id = PRELOADED_ID;
    script.textContent = data;
    doc.body.append(script);
  }
  return doc;
}

const listed = (store: ReturnType<typeof makeStore>) => api.endpoints.listPlans.select()(store.getState() as never);

describe('data the server sent with the page', () => {
  it('is in the store before the first render, as a finished query', () => {
    const store = makeStore();
    loadPreloaded(store, page(JSON.stringify([{ endpointName: 'listPlans', arg: null, value: plans }])));
    expect(listed(store).isSuccess).toBe(true);
    expect(listed(store).data).toEqual(plans);
  });

  it('is ignored when absent or unreadable, and the page fetches as usual', () => {
    for (const data of [null, '', '{not json', '{"endpointName":"listPlans"}', '[1, null]']) {
      const store = makeStore();
      loadPreloaded(store, page(data));
      expect(listed(store).isUninitialized).toBe(true);
    }
  });
});
