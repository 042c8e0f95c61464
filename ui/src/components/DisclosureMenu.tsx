import { useId, type ReactNode } from 'react';
import { useDisclosure } from './useDisclosure';

export interface MenuAction {
  label: string;
  onSelect: () => void;
  tone?: 'danger';
}

// A button that shows a short list of actions (the disclosure pattern: plain buttons in a list,
// reachable with Tab). Escape or a click elsewhere closes it (useDisclosure); focus returns to the
// button before an action runs, so a dialog the action opens can hand focus back to it.
export function DisclosureMenu({ label, children, actions }: { label: string; children: ReactNode; actions: MenuAction[] }) {
  const { open, toggle, closeAndRefocus, rootRef, toggleRef } = useDisclosure();
  const id = useId();

  return (
    <div className="menu" ref={rootRef}>
      <button
        ref={toggleRef}
        type="button"
        className="button button--small button--secondary"
        aria-expanded={open}
        aria-controls={id}
        aria-label={label}
        onClick={toggle}
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
                closeAndRefocus();
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
