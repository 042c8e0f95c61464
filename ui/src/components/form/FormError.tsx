import { useCallback, useEffect, useRef, useState } from 'react';

// A form-level error: what went wrong that no single field is at fault for (the server refused,
// the connection dropped). One panel above the form, announced as an alert and given focus, so
// the reader learns it where they are working, never in a passing toast.
export function FormError({ message, testId }: { message: string | null | undefined; testId?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (message) ref.current?.focus();
  }, [message]);
  if (!message) return null;
  return (
    <div ref={ref} className="panel panel--error form-error" role="alert" tabIndex={-1} data-testid={testId ?? 'form-error'}>
      <p>{message}</p>
    </div>
  );
}

// The form's one error and its setter, for useRunMutation's `formError`; `initial` is an error
// another page handed over (a string, else none).
export function useFormError(initial?: unknown) {
  const [message, setMessage] = useState<string | null>(typeof initial === 'string' && initial ? initial : null);
  const set = useCallback((next: string | null) => setMessage(next), []);
  return [message, set] as const;
}
