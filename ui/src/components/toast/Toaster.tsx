import { useEffect, useState, type FocusEvent } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { useTranslation } from '../../i18n';
import { selectToasts, toastDismissed, type Toast, type ToastVariant } from './toastSlice';

const AUTO_CLOSE_MS = 5000;

const icons: Record<ToastVariant, string> = { success: '✓', info: 'i' };

function ToastItem({ toast }: { toast: Toast }) {
  const dispatch = useAppDispatch();
  const { t } = useTranslation('forms');
  // Reading or reaching the close button must not race the timer (WCAG 2.2.1), so hover and
  // keyboard focus hold it; leaving starts a fresh 5 s.
  const [hovered, setHovered] = useState(false);
  const [focused, setFocused] = useState(false);
  const paused = hovered || focused;

  useEffect(() => {
    if (paused) return;
    const timer = setTimeout(() => dispatch(toastDismissed(toast.id)), AUTO_CLOSE_MS);
    return () => clearTimeout(timer);
  }, [paused, dispatch, toast.id]);

  const icon = icons[toast.variant];
  const prefix = t(`toast.${toast.variant}`);
  return (
    <div
      className={`toast toast--${toast.variant}`}
      role="status"
      onMouseEnter={() => setHovered(true)}
      onMouseLeave={() => setHovered(false)}
      onFocus={() => setFocused(true)}
      onBlur={(event: FocusEvent<HTMLDivElement>) => {
        if (!event.currentTarget.contains(event.relatedTarget)) setFocused(false);
      }}
    >
      <span className="toast__icon" aria-hidden="true">
        {icon}
      </span>
      <p className="toast__message">
        <span className="visually-hidden">{prefix}: </span>
        {toast.message}
      </p>
      <button
        type="button"
        className="toast__close"
        aria-label={t('toast.dismiss')}
        onClick={() => dispatch(toastDismissed(toast.id))}
      >
        <span aria-hidden="true">×</span>
      </button>
    </div>
  );
}

// Toasts confirm that something worked. They sit at the bottom, above any bottom bar, so they
// never cover the navigation; errors belong on the form that caused them (docs/design-system.md,
// "Errors and feedback").
export function Toaster() {
  const toasts = useAppSelector(selectToasts);
  const { t } = useTranslation('forms');
  return (
    <section className="toaster" aria-label={t('toast.label')}>
      {toasts.map((toast) => (
        <ToastItem key={toast.id} toast={toast} />
      ))}
    </section>
  );
}
