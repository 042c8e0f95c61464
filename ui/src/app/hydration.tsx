import { Suspense, type ReactElement } from 'react';

// A prerendered page hydrates in one synchronous pass: on a cheap phone the home page's pass, with
// the first effects of every section, held the main thread for a few hundred milliseconds, which
// Lighthouse counts as blocking time (docs/public-site.md, "Budgets"). Parts wrapped in
// HydrateLater are left as the server rendered them in that pass, visible but inert, and hydrated
// afterwards one per task, in page order, so no single task holds the thread for long.
//
// It relies on Preact keeping a suspended component's server markup while hydrating and resuming
// it when the thrown promise settles. Preact keeps exactly one DOM node for a suspended component,
// so the part must be one element that the server always renders (not a component that may
// render nothing or several nodes). The part is a function, so that building its elements (with
// their translated texts) is deferred too. Outside the first hydration (a page rendered in the
// browser, a later visit to the same page, the unit tests) HydrateLater renders its part at once.

interface Gate {
  open: boolean;
  promise: Promise<void>;
  release: () => void;
}

let deferring = false;
const gates = new Map<string, Gate>();
let settle = () => {};
let settled: Promise<void> = Promise.resolve();

/**
 * Runs hydrate (the first pass) with HydrateLater deferring its parts, then hydrates the parts one
 * per task, in page order, and resolves whenHydrated. A part that first renders while others are
 * still waiting (say, after a quick navigation) waits its turn with them.
 */
export function hydrateInParts(hydrate: () => void): void {
  deferring = true;
  settled = new Promise((resolve) => (settle = resolve));
  hydrate();
  const next = () => {
    const gate = [...gates.values()].find((g) => !g.open);
    if (!gate) {
      deferring = false;
      gates.clear();
      settle();
      return;
    }
    gate.open = true;
    gate.release();
    // Preact re-renders the released part in microtasks of this task; the next one gets a task of
    // its own, so that input and painting can come in between.
    void nextTask().then(next);
  };
  void nextTask().then(next);
}

/** Resolves in a new task, after the browser has had the chance to handle input and paint. */
export function nextTask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Resolves once every deferred part is hydrated (at once when nothing was deferred). */
export function whenHydrated(): Promise<void> {
  return settled;
}

function gateFor(name: string): Gate {
  let gate = gates.get(name);
  if (!gate) {
    let release = () => {};
    const promise = new Promise<void>((resolve) => (release = resolve));
    gate = { open: false, promise, release };
    gates.set(name, gate);
  }
  return gate;
}

type Part = () => ReactElement;

function Gate({ name, children }: { name: string; children: Part }) {
  if (deferring) {
    const gate = gateFor(name);
    if (!gate.open) throw gate.promise;
  }
  return children();
}

interface HydrateLaterProps {
  /** Unique on the page: a part that suspends before it has rendered keeps no state of its own. */
  name: string;
  /** Renders the part: one element (or a component that always renders one), as on the server. */
  children: Part;
}

/** Leaves a part as the server rendered it until the page's first hydration pass is over. */
export function HydrateLater({ name, children }: HydrateLaterProps) {
  return (
    <Suspense fallback={null}>
      <Gate name={name}>{children}</Gate>
    </Suspense>
  );
}
