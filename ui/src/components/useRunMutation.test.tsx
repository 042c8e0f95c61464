import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { describe, expect, it, vi } from 'vitest';
import { useUpdateUserMutation } from '../api/enhanced';
import type { ApiErrorInfo } from '../api/errors';
import { renderWithProviders } from '../test/renderWithProviders';
import { json, makeUser, stubApi } from '../test/stubApi';
import { FormError, useFormError } from './form/FormError';
import { Toaster } from './toast/Toaster';
import { useRunMutation } from './useRunMutation';

const FALLBACK = 'Your profile could not be saved. Please try again.';

function ProfileHarness({ handled }: { handled?: (error: ApiErrorInfo) => boolean }) {
  const run = useRunMutation();
  const [formError, setFormError] = useFormError();
  const [updateUser] = useUpdateUserMutation();
  const { register, setError, formState } = useForm<{ name: string; phone: string }>({ defaultValues: { name: 'Ada', phone: '' } });
  const [outcome, setOutcome] = useState('');
  const save = async () => {
    const result = await run(updateUser({ updateUserRequest: { name: 'Ada' } }), {
      fallback: FALLBACK,
      success: (user) => `Saved ${user.name}`,
      form: { setError, fields: ['name', 'phone'] },
      handled,
      formError: setFormError,
    });
    setOutcome(result.ok ? `ok ${result.data.name}` : `failed ${result.error.status} ${result.message}`);
  };
  return (
    <>
      <FormError message={formError} />
      <label>
        Name <input {...register('name')} aria-invalid={formState.errors.name ? true : undefined} />
      </label>
      <label>
        Phone <input {...register('phone')} aria-invalid={formState.errors.phone ? true : undefined} />
      </label>
      <p data-testid="phone-error">{formState.errors.phone?.message}</p>
      <button type="button" onClick={() => void save()}>
        Save
      </button>
      <p data-testid="outcome">{outcome}</p>
      <Toaster />
    </>
  );
}

async function save(reply: Parameters<typeof stubApi>[0][string], handled?: (error: ApiErrorInfo) => boolean) {
  stubApi({ 'PATCH /api/users/updateUser': reply });
  const user = userEvent.setup();
  renderWithProviders(<ProfileHarness handled={handled} />);
  await user.click(screen.getByRole('button', { name: 'Save' }));
  await waitFor(() => expect(screen.getByTestId('outcome').textContent).not.toBe(''));
  return screen.getByTestId('outcome').textContent;
}

describe('useRunMutation', () => {
  it('says the success in a toast and returns the answer', async () => {
    expect(await save(json(makeUser({ name: 'Ada King' })))).toBe('ok Ada King');
    expect(screen.getByRole('status').textContent).toContain('Saved Ada King');
  });

  it("shows the server's message, not the fallback, and puts it on the field the server names", async () => {
    const outcome = await save(json({ message: 'Please enter a valid Phone Number', field: 'phone' }, 400));

    expect(outcome).toBe('failed 400 Please enter a valid Phone Number');
    // On the field, not in a toast.
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.getByLabelText('Phone').getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByTestId('phone-error').textContent).toBe('Please enter a valid Phone Number');
    expect(document.activeElement).toBe(screen.getByLabelText('Phone'));
    expect(screen.getByLabelText('Name').getAttribute('aria-invalid')).toBeNull();
  });

  it('falls back to its own words when the answer has no message', async () => {
    expect(await save(json({}, 500))).toBe(`failed 500 ${FALLBACK}`);
    expect(screen.getByTestId('form-error').textContent).toContain(FALLBACK);
    expect(screen.getByRole('region', { name: 'Notifications' }).children).toHaveLength(0);
  });

  it('says the server cannot be reached when the request never got an answer', async () => {
    stubApi({});
    vi.stubGlobal('fetch', vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))));
    const user = userEvent.setup();
    renderWithProviders(<ProfileHarness />);
    await user.click(screen.getByRole('button', { name: 'Save' }));

    expect((await screen.findByTestId('form-error')).textContent).toContain('Cannot reach Clearvest');
    expect(screen.getByRole('region', { name: 'Notifications' }).children).toHaveLength(0);
  });

  it('puts a refusal no field is at fault for into the form error, not a toast', async () => {
    stubApi({ 'PATCH /api/users/updateUser': json({ message: 'Your account is locked.' }, 403) });
    const user = userEvent.setup();
    renderWithProviders(<ProfileHarness />);
    await user.click(screen.getByRole('button', { name: 'Save' }));

    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Your account is locked.');
    expect(alert.getAttribute('data-testid')).toBe('form-error');
    expect(screen.getByRole('region', { name: 'Notifications' }).children).toHaveLength(0);
    expect(document.activeElement).toBe(alert);
  });

  it('leaves refusals the caller handles to the caller: no toast', async () => {
    const handled = vi.fn((error: ApiErrorInfo) => error.code === 'suspended');
    const outcome = await save(json({ message: 'Your account has been suspended.', code: 'suspended' }, 403), handled);

    expect(outcome).toBe('failed 403 Your account has been suspended.');
    expect(handled).toHaveBeenCalledWith(expect.objectContaining({ status: 403, code: 'suspended' }));
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
