import type { FetchBaseQueryError } from '@reduxjs/toolkit/query/react';

// Step-up (docs/security.md): an operation that needs the person, not just the session, answers
// 403 with code `step_up_required`. The base query then asks the person to confirm (the dialog
// the layout mounts registers how, and calls POST /api/users/step-up itself) and repeats the
// request once they have.
export const STEP_UP_REQUIRED = 'step_up_required';

type Ask = () => Promise<boolean>;
let ask: Ask | null = null;
// Requests refused together share one dialog.
let asking: Promise<boolean> | null = null;

// Registers how the person is asked; returns the way to unregister it.
export function setStepUpPrompt(next: Ask) {
  ask = next;
  return () => {
    if (ask === next) ask = null;
  };
}

export function needsStepUp(error: FetchBaseQueryError | undefined) {
  if (error?.status !== 403) return false;
  return (error.data as { code?: unknown } | undefined)?.code === STEP_UP_REQUIRED;
}

// Resolves true once the person confirmed, false when they declined (or nobody can ask them).
export function askForStepUp(): Promise<boolean> {
  if (!ask) return Promise.resolve(false);
  const current = ask;
  asking ??= current().finally(() => {
    asking = null;
  });
  return asking;
}
