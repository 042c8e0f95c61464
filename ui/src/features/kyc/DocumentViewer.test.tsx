import { act, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { kycDocument } from '../../test/kyc';
import { stubApi } from '../../test/stubApi';
import { DocumentViewer, documentPlacement } from './DocumentViewer';

// jsdom lays nothing out and has no ResizeObserver: this one lets a test say what size the
// browser measured for an element, and the viewer answers with the sizes it sets.
class FakeResizeObserver {
  static all: FakeResizeObserver[] = [];
  readonly targets = new Set<Element>();
  constructor(private readonly callback: ResizeObserverCallback) {
    FakeResizeObserver.all.push(this);
  }
  observe(target: Element) {
    this.targets.add(target);
  }
  unobserve(target: Element) {
    this.targets.delete(target);
  }
  disconnect() {
    this.targets.clear();
  }
  static resize(target: Element, width: number, height: number) {
    const size = [{ inlineSize: width, blockSize: height }];
    const entry = { target, borderBoxSize: size, contentBoxSize: size, devicePixelContentBoxSize: size, contentRect: { width, height } } as unknown as ResizeObserverEntry;
    act(() => {
      for (const observer of FakeResizeObserver.all) {
        if (observer.targets.has(target)) observer.callback([entry], observer as unknown as ResizeObserver);
      }
    });
  }
}

// jsdom has no object URLs; each blob gets a name of its own.
let objectUrls = 0;
const createObjectURL = vi.fn(() => `blob:doc-${++objectUrls}`);
const revokeObjectURL = vi.fn();

beforeEach(() => {
  FakeResizeObserver.all = [];
  vi.stubGlobal('ResizeObserver', FakeResizeObserver);
  URL.createObjectURL = createObjectURL;
  URL.revokeObjectURL = revokeObjectURL;
});

afterEach(() => {
  vi.unstubAllGlobals();
});

async function viewer() {
  stubApi({ 'POST /api/users/kyc/user-1/documents/1/front': () => new Response('jpeg bytes', { headers: { 'Content-Type': 'image/jpeg' } }) });
  render(<DocumentViewer doc={kycDocument({ side: 'front' })} />);
  const section = screen.getByTestId('document-front');
  const image = await within(section).findByRole('img', { name: 'Front of the document' });
  const content = image.parentElement as HTMLElement;
  const frame = screen.getByTestId('document-front-frame');
  const press = (name: string) => userEvent.setup().click(within(section).getByRole('button', { name }));
  return { section, content, frame, press };
}

const box = (element: HTMLElement) => [element.style.width, element.style.height];

describe('document viewer loading', () => {
  it('fetches the document with a POST carrying the CSRF header and a key, and shows it from memory', async () => {
    const api = stubApi({ 'POST /api/users/kyc/user-1/documents/1/front': () => new Response('jpeg bytes', { headers: { 'Content-Type': 'image/jpeg' } }) });
    const { unmount } = render(<DocumentViewer doc={kycDocument({ side: 'front' })} />);
    const image = await screen.findByRole('img', { name: 'Front of the document' });
    expect(image.getAttribute('src')).toMatch(/^blob:doc-/);
    const download = screen.getByRole('link', { name: 'Download front of the document' });
    expect(download.getAttribute('href')).toBe(image.getAttribute('src'));
    expect(download.getAttribute('download')).toBe('front.jpg');
    expect(api.sent.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /api/users/kyc/user-1/documents/1/front']);
    const request = api.fetchMock.mock.calls[0]?.[0] as Request | undefined;
    expect(request?.headers.get('X-Requested-With')).toBe('XMLHttpRequest');
    expect(request?.headers.get('Idempotency-Key')).toBeTruthy();
    unmount();
    expect(revokeObjectURL).toHaveBeenCalledWith(image.getAttribute('src'));
  });

  it('says so when the document cannot be fetched', async () => {
    stubApi({ 'POST /api/users/kyc/user-1/documents/1/front': Response.json({ message: 'Gone' }, { status: 410 }) });
    render(<DocumentViewer doc={kycDocument({ side: 'front' })} />);
    expect(await screen.findByText('The document could not be loaded. Please reload the page.')).toBeTruthy();
    expect(screen.queryByRole('img', { name: 'Front of the document' })).toBeNull();
  });
});

describe('document viewer rotation', () => {
  it('gives a quarter-turned document a frame of the swapped size, at every zoom', async () => {
    const { content, frame, press } = await viewer();
    // A landscape card laid out at the stage's width (560 px here), 0.625 as tall.
    FakeResizeObserver.resize(content, 560, 350);
    expect(box(frame)).toEqual(['560px', '350px']);
    expect(content.classList.contains('doc-viewer__turn--placed')).toBe(true);
    expect(content.style.transform).toBe('translate(-50%, -50%) rotate(0deg)');

    await press('Rotate 90°');
    expect(box(frame)).toEqual(['350px', '560px']);
    expect(content.style.transform).toBe('translate(-50%, -50%) rotate(90deg)');

    // Zooming widens the document (in CSS, from --doc-zoom); the frame follows what is measured,
    // rounded up to whole pixels.
    await press('Zoom in');
    expect(content.style.getPropertyValue('--doc-zoom')).toBe('1.25');
    FakeResizeObserver.resize(content, 700, 437.5);
    expect(box(frame)).toEqual(['438px', '700px']);

    await press('Rotate 90°');
    expect(box(frame)).toEqual(['700px', '438px']);
    expect(content.style.transform).toBe('translate(-50%, -50%) rotate(180deg)');
    await press('Rotate 90°');
    expect(box(frame)).toEqual(['438px', '700px']);
    expect(content.style.transform).toBe('translate(-50%, -50%) rotate(270deg)');

    await press('Zoom out');
    await press('Zoom out');
    await press('Zoom out');
    expect(content.style.getPropertyValue('--doc-zoom')).toBe('0.5');
    FakeResizeObserver.resize(content, 280, 175);
    expect(box(frame)).toEqual(['175px', '280px']);

    await press('Reset');
    FakeResizeObserver.resize(content, 560, 350);
    expect(box(frame)).toEqual(['560px', '350px']);
    expect(content.style.transform).toBe('translate(-50%, -50%) rotate(0deg)');
  });

  it('keeps the controls and the scrollable stage reachable from the keyboard', async () => {
    const { section, content, frame } = await viewer();
    FakeResizeObserver.resize(content, 300, 480);
    const u = userEvent.setup();
    const stage = within(section).getByRole('region', { name: 'Front of the document, scrollable view' });
    expect(stage.tabIndex).toBe(0);
    within(section).getByRole('button', { name: 'Rotate 90°' }).focus();
    await u.keyboard('{Enter}');
    expect(box(frame)).toEqual(['480px', '300px']);
    await u.keyboard(' ');
    expect(box(frame)).toEqual(['300px', '480px']);
    await u.tab();
    expect(document.activeElement).toBe(stage);
  });

  it('leaves an unmeasured document in the flow, only rotated', () => {
    expect(documentPlacement(1, 1, null)).toEqual({ frame: undefined, content: { '--doc-zoom': '1', transform: 'rotate(90deg)' }, placed: false });
  });

  it('swaps the frame for odd turns only, whatever the size', () => {
    for (const [width, height] of [
      [327, 204], // a card at 100 % on a 375 px phone
      [1225, 1733], // a portrait page at 200 % on a desktop
    ] as const) {
      for (const turns of [0, 1, 2, 3]) {
        const { frame } = documentPlacement(turns, 1, { width, height });
        const [w, h] = turns % 2 === 1 ? [height, width] : [width, height];
        expect(frame).toEqual({ width: `${w}px`, height: `${h}px` });
      }
    }
  });
});
