import { useEffect, useId, useRef, useState, type ReactNode } from 'react';

export interface MenuAction {
  label: string;
  onSelect: () => void;
  tone?: 'danger';
}

// A button that shows a short list of actions (the disclosure pattern: plain buttons in a list,
// reachable with Tab). Escape or a click elsewhere closes it; focus returns to the button before
// an action runs, so a dialog the action opens can hand focus back to it.
export function DisclosureMenu({ label, children, actions }: { label: string; children: ReactNode; actions: MenuAction[] }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const rootRef = useRef<HTMLDivElement>(null);
  const toggleRef = useRef<HTMLButtonElement>(null);

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

  return (
    <div className="menu" ref={rootRef}>
      <button
        ref={toggleRef}
        type="button"
        className="button button--small button--secondary"
        aria-expanded={open}
        aria-controls={id}
        aria-label={label}
        onClick={() => setOpen((v) => !v)}
      >
        {children}
      </button>
      <ul id={id} className="menu__list" hidden={!open}>
        {actions.map((action) => (
          <li key={action.label}>
            <button
              type="button"
              className={`menu__item${action.tone === 'danger' ? ' menu__item--danger' : ''}`}
              onClick={() => {
                setOpen(false);
                toggleRef.current?.focus();
                action.onSelect();
              }}
            >
              {action.label}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
