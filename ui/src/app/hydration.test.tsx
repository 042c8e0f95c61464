import { useState } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { renderToString } from 'react-dom/server';
import { act, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { HydrateLater, hydrateInParts, nextTask, whenHydrated } from './hydration';

// What each part rendered, in order: shows which parts have hydrated so far.
let rendered: string[] = [];

function Counter({ name }: { name: string }) {
  const [count, setCount] = useState(0);
  rendered.push(name);
  return (
    <section data-testid={name}>
      <button type="button" onClick={() => setCount((c) => c + 1)}>
        {name} {count}
      </button>
    </section>
  );
}

function Page() {
  return (
    <>
      <h1>Top</h1>
      <Counter name="first" />
      <HydrateLater name="second">{() => <Counter name="second" />}</HydrateLater>
      <p>between</p>
      <HydrateLater name="third">{() => <Counter name="third" />}</HydrateLater>
    </>
  );
}

function serverRendered(): HTMLElement {
  const container = document.createElement('div');
  container.innerHTML = renderToString(<Page />);
  document.body.append(container);
  return container;
}

const click = (name: string) => act(() => screen.getByTestId(name).querySelector('button')!.click());
const label = (name: string) => screen.getByTestId(name).textContent;

describe('HydrateLater', () => {
  afterEach(() => {
    rendered = [];
    document.body.innerHTML = '';
  });

  it('keeps the server markup of later parts, inert, and hydrates them one per task in page order', async () => {
    const container = serverRendered();
    const nodes = ['first', 'second', 'third'].map((name) => screen.getByTestId(name));
    rendered = [];

    act(() => hydrateInParts(() => void hydrateRoot(container, <Page />)));

    // The first pass hydrated only what is not deferred; the rest is still the server's markup.
    expect(rendered).toEqual(['first']);
    expect(screen.getByText('between')).toBeTruthy();
    click('second');
    expect(label('second')).toBe('second 0');
    click('first');
    expect(label('first')).toBe('first 1');

    // The task hydrateInParts queued first (before this test's) hydrated the second part only.
    await act(nextTask);
    expect(rendered).toEqual(['first', 'first', 'second']);

    await act(whenHydrated);
    expect(rendered).toEqual(['first', 'first', 'second', 'third']);
    click('second');
    click('third');
    expect([label('second'), label('third')]).toEqual(['second 1', 'third 1']);
    // Hydrated in place: the very nodes the server sent, none added or replaced.
    expect(['first', 'second', 'third'].map((name) => screen.getByTestId(name))).toEqual(nodes);
    expect(container.querySelectorAll('section')).toHaveLength(3);
  });

  it('renders its part at once outside the first hydration', () => {
    render(<Page />);
    expect(rendered).toEqual(['first', 'second', 'third']);
    click('third');
    expect(label('third')).toBe('third 1');
  });
});
