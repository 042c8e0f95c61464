import type { MouseEvent, ReactNode } from 'react';

// While a request runs the button says so and ignores presses, but stays focusable: a disabled
// button would drop keyboard focus to the page body.
export function SubmitButton({ busy, busyLabel, children, className = 'button button--block' }: {
  busy: boolean;
  busyLabel: string;
  children: ReactNode;
  className?: string;
}) {
  return (
    <button
      type="submit"
      className={className}
      aria-disabled={busy || undefined}
      onClick={(event: MouseEvent<HTMLButtonElement>) => {
        if (busy) event.preventDefault();
      }}
    >
      {busy ? busyLabel : children}
    </button>
  );
}
