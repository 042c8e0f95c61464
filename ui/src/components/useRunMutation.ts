import { useCallback } from 'react';
import type { FieldValues, Path, UseFormSetError } from 'react-hook-form';
import { apiErrorInfo, errorMessage, type ApiErrorInfo } from '../api/errors';
import { useToast } from './toast/useToast';

// What a triggered RTK Query mutation returns.
interface Unwrappable<T> {
  unwrap(): Promise<T>;
}

export interface RunOptions<T, F extends FieldValues> {
  // Shown when the server's answer carries no message of its own (docs/product-rules.md: the
  // server's message is shown when it sends one; the client's text is the fallback).
  fallback: string;
  // A toast on success: fixed words, or words taken from the answer (usually its message).
  success?: string | ((data: T) => string | undefined);
  // Puts the server's message on the form field it names (its `field`), and focuses that field.
  // `otherwise` is the field a refusal without a field is about, for one-field forms.
  form?: { setError: UseFormSetError<F>; fields: readonly Path<F>[]; otherwise?: Path<F> };
  // The form's one error above its fields (FormError): gets a refusal no field is at fault for,
  // and is cleared when the request starts. Every action has one: an error is never a toast.
  formError: (message: string | null) => void;
  // Refusals the caller answers itself (another step, a dialog): return true and nothing shows.
  handled?: (error: ApiErrorInfo) => boolean;
}

export type RunOutcome<T> = { ok: true; data: T } | { ok: false; error: ApiErrorInfo; message: string };

// Runs a mutation the way every Clearvest action does (docs/design-system.md, "Errors and
// feedback"): a refusal goes to the form (on the field the server names, else in the form's
// FormError; never a toast), a success is confirmed in a toast, and the caller gets an outcome to branch on
// instead of a try/catch.
//
//   const run = useRunMutation();
//   const [formError, setFormError] = useFormError();
//   const outcome = await run(updateUser(args), { fallback: 'Your profile could not be saved.', success: 'Saved', form, formError: setFormError });
export function useRunMutation() {
  const toast = useToast();
  return useCallback(
    async <T, F extends FieldValues = FieldValues>(request: Unwrappable<T>, options: RunOptions<T, F>): Promise<RunOutcome<T>> => {
      let data: T;
      options.formError?.(null);
      try {
        data = await request.unwrap();
      } catch (raw) {
        const error = apiErrorInfo(raw);
        const message = errorMessage(raw, options.fallback);
        if (options.handled?.(error)) return { ok: false, error, message };
        const { form } = options;
        const named = form?.fields.find((field) => field === error.field);
        const field = named ?? (error.status === 'network' ? undefined : form?.otherwise);
        if (form && field) form.setError(field, { message }, { shouldFocus: true });
        else options.formError(message);
        return { ok: false, error, message };
      }
      const said = typeof options.success === 'function' ? options.success(data) : options.success;
      if (said) toast.success(said);
      return { ok: true, data };
    },
    [toast],
  );
}
