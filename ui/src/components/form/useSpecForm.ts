import { zodResolver } from '@hookform/resolvers/zod';
import { useId } from 'react';
import { useForm, type DefaultValues, type FieldValues, type Path, type Resolver } from 'react-hook-form';
import type * as z from 'zod/mini';

export interface FieldErrorState {
  invalid: boolean;
  // The id of the element holding the message; every field at fault points at it.
  describedBy?: string;
  // Set only on the first field at fault, which is where the message is shown.
  message?: string;
}

// react-hook-form wired the way every Clearvest form works: validate on submit with the form's
// schema (one spec message at a time), move focus to the first field at fault, and describe every
// field at fault by that one message so a screen reader reads it on focus.
export function useSpecForm<T extends FieldValues>(
  schema: z.ZodMiniType<T, T>,
  fieldOrder: readonly Path<T>[],
  defaultValues: DefaultValues<T>,
) {
  const form = useForm<T>({
    resolver: zodResolver(schema) as unknown as Resolver<T>,
    defaultValues,
    mode: 'onSubmit',
    reValidateMode: 'onSubmit',
    shouldFocusError: true,
  });
  const errorId = `${useId()}-error`;
  const { errors } = form.formState;
  const firstField = fieldOrder.find((name) => errors[name]);

  const fieldError = (name: Path<T>): FieldErrorState => {
    const error = errors[name];
    if (!error) return { invalid: false };
    return {
      invalid: true,
      describedBy: errorId,
      message: name === firstField ? String(error.message ?? '') : undefined,
    };
  };

  return { ...form, errorId, firstField, fieldError };
}
