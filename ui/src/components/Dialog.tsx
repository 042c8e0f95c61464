import { useEffect, useId, useRef, type MouseEvent, type ReactNode } from 'react';

function onBackdrop(event: MouseEvent<HTMLDialogElement>, dialog: HTMLDialogElement | null, close: () => void) {
  if (!dialog || event.target !== dialog) return;
  const box = dialog.getBoundingClientRect();
  const inside = event.clientX >= box.left && event.clientX <= box.right && event.clientY >= box.top && event.clientY <= box.bottom;
  if (!inside) close();
}

interface DialogProps {
  title: string;
  onClose: () => void;
  children: ReactNode;
  // Buttons for the footer; the first one gets focus unless initialFocus says otherwise.
  actions?: ReactNode;
  tone?: 'default' | 'danger' | 'warning';
  role?: 'dialog' | 'alertdialog';
  // A sheet rises from the bottom edge on a phone (the app shell's account sheet) and closes on a
  // tap beside it, as sheets do; a centred dialog asks for a decision and waits for one.
  variant?: 'centred' | 'sheet';
}

// A modal on the native <dialog>: the browser traps focus, makes the rest of the page inert and
// closes on Escape. Mount it to open it; unmount it to close it. Focus returns to whatever had it
// before, so keyboard users continue where they were.
export function Dialog({ title, onClose, children, actions, tone = 'default', role = 'dialog', variant = 'centred' }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const onCloseRef = useRef(onClose);
  useEffect(() => {
    onCloseRef.current = onClose;
  });

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    // jsdom has no showModal; the open attribute is enough there.
    if (typeof dialog.showModal === 'function') dialog.showModal();
    else dialog.setAttribute('open', '');
    const first = dialog.querySelector<HTMLElement>('[data-autofocus]') ?? dialog.querySelector<HTMLElement>('.dialog__actions button, .dialog__actions a');
    first?.focus();
    const onCancel = (event: Event) => {
      event.preventDefault();
      onCloseRef.current();
    };
    dialog.addEventListener('cancel', onCancel);
    return () => {
      dialog.removeEventListener('cancel', onCancel);
      if (typeof dialog.close === 'function' && dialog.open) dialog.close();
      previous?.focus();
    };
  }, []);

  return (
    // A click on the backdrop lands on the <dialog> itself, outside its box; keyboard users close
    // with Escape.
    // eslint-disable-next-line jsx-a11y/click-events-have-key-events
    <dialog
      ref={ref}
      className={`dialog dialog--${tone}${variant === 'sheet' ? ' dialog--sheet' : ''}`}
      aria-labelledby={titleId}
      role={role === 'alertdialog' ? 'alertdialog' : undefined}
      onClick={variant === 'sheet' ? (event) => onBackdrop(event, ref.current, onClose) : undefined}
    >
      <h2 id={titleId} className="dialog__title">
        {title}
      </h2>
      <div className="dialog__body">{children}</div>
      {actions ? <div className="dialog__actions">{actions}</div> : null}
    </dialog>
  );
}
