import { useEffect, useId, useRef, type ReactNode } from 'react';

interface DialogProps {
  title: string;
  onClose: () => void;
  children: ReactNode;
  // Buttons for the footer; the first one gets focus unless initialFocus says otherwise.
  actions?: ReactNode;
  tone?: 'default' | 'danger' | 'warning';
  role?: 'dialog' | 'alertdialog';
}

// A modal on the native <dialog>: the browser traps focus, makes the rest of the page inert and
// closes on Escape. Mount it to open it; unmount it to close it. Focus returns to whatever had it
// before, so keyboard users continue where they were.
export function Dialog({ title, onClose, children, actions, tone = 'default', role = 'dialog' }: DialogProps) {
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
    <dialog ref={ref} className={`dialog dialog--${tone}`} aria-labelledby={titleId} role={role === 'alertdialog' ? 'alertdialog' : undefined}>
      <h2 id={titleId} className="dialog__title">
        {title}
      </h2>
      <div className="dialog__body">{children}</div>
      {actions ? <div className="dialog__actions">{actions}</div> : null}
    </dialog>
  );
}
