import { useCallback, useState } from 'react';

export interface BoxSize {
  width: number;
  height: number;
}

// The untransformed border-box size of an element in CSS pixels (a CSS transform changes neither
// offsetWidth nor what a ResizeObserver reports), kept current as it changes. Attach the returned
// callback as the element's ref. The size is null while the element has no box (not laid out yet,
// hidden) and stays null where there is no layout (jsdom reports 0 and has no ResizeObserver).
//
// The first size is read when the ref attaches, in the commit, so a first paint already uses it;
// the observer then follows zooms, a PDF page drawn at another size, an image that finishes
// loading.
export function useBoxSize(): [ref: (element: HTMLElement | null) => (() => void) | undefined, size: BoxSize | null] {
  const [size, setSize] = useState<BoxSize | null>(null);
  const ref = useCallback((element: HTMLElement | null) => {
    if (!element) return;
    const update = (width: number, height: number) =>
      setSize((previous) => {
        if (!(width > 0 && height > 0)) return null;
        return previous?.width === width && previous.height === height ? previous : { width, height };
      });
    update(element.offsetWidth, element.offsetHeight);
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver((entries) => {
      const box = entries.at(-1)?.borderBoxSize?.[0];
      // The viewer is horizontal text, so the inline size is the width.
      if (box) update(box.inlineSize, box.blockSize);
      else update(element.offsetWidth, element.offsetHeight);
    });
    observer.observe(element);
    return () => {
      observer.disconnect();
      setSize(null);
    };
  }, []);
  return [ref, size];
}
