import { useCallback, useEffect, useRef, useState } from 'react';

// The behaviour every disclosure (a button that shows and hides a panel) shares: Escape closes
// the panel and puts focus back on its button, so a keyboard user is never left inside something
// hidden; a pointer press outside closes it too. The root wraps the button and the panel; events
// inside it do not count as outside.
export function useDisclosure<Root extends HTMLElement = HTMLDivElement, Toggle extends HTMLElement = HTMLButtonElement>() {
  const [open, setOpen] = useState(false);
  const rootRef = useRef<Root>(null);
  const toggleRef = useRef<Toggle>(null);

  useEffect(() => {
    if (!open) return;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      toggleRef.current?.focus();
    };
    const onPointerDown = (event: PointerEvent) => {
      if (!rootRef.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('keydown', onKeyDown);
    document.addEventListener('pointerdown', onPointerDown);
    return () => {
      document.removeEventListener('keydown', onKeyDown);
      document.removeEventListener('pointerdown', onPointerDown);
    };
  }, [open]);

  const toggle = useCallback(() => setOpen((v) => !v), []);
  const close = useCallback(() => setOpen(false), []);
  // Closes and hands focus back to the button: before an action runs, so a dialog the action
  // opens can return focus there.
  const closeAndRefocus = useCallback(() => {
    setOpen(false);
    toggleRef.current?.focus();
  }, []);

  return { open, toggle, close, closeAndRefocus, rootRef, toggleRef };
}
