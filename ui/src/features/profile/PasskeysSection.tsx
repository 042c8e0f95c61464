import { useId, useState, type FormEvent } from 'react';
import {
  useBeginPasskeyRegistrationMutation,
  useFinishPasskeyRegistrationMutation,
  useListPasskeysQuery,
  useRemovePasskeyMutation,
  type Passkey,
} from '../../api/enhanced';
import { Dialog } from '../../components/Dialog';
import { FormError, useFormError } from '../../components/form/FormError';
import { SubmitButton } from '../../components/form/SubmitButton';
import { TextField } from '../../components/form/TextField';
import { formatDateTime } from '../../components/format';
import { QueryState } from '../../components/QueryState';
import { useRunMutation } from '../../components/useRunMutation';
import { useTranslation } from '../../i18n';
import { useStepUpFirst } from '../auth/useStepUpFirst';
import { createPasskey, isPasskeyDismissed, passkeysSupported } from '../auth/webauthn';

const MAX_NAME = 60;

// Adds a passkey: the person names it, the browser creates it (fingerprint, face or PIN), and the
// server checks the answer against its single-use challenge (docs/identity.md, "Passkeys").
function AddPasskeyForm() {
  const { t } = useTranslation('passkeys');
  const run = useRunMutation();
  const [begin, { isLoading: beginning }] = useBeginPasskeyRegistrationMutation();
  const [finish, { isLoading: finishing }] = useFinishPasskeyRegistrationMutation();
  const [name, setName] = useState('');
  const [nameError, setNameError] = useState<string | null>(null);
  const [waiting, setWaiting] = useState(false);
  const [formError, setFormError] = useFormError();
  const busy = beginning || finishing || waiting;
  const errorId = `${useId()}-error`;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    const trimmed = name.trim();
    if (!trimmed) return setNameError(t('nameRequired'));
    if ([...trimmed].length > MAX_NAME) return setNameError(t('nameTooLong'));
    if (!passkeysSupported()) return setFormError(t('unsupported'));
    const ceremony = await run(begin(), { fallback: t('addFailed'), formError: setFormError });
    if (!ceremony.ok) return;
    let credential: Record<string, unknown>;
    setWaiting(true);
    try {
      credential = await createPasskey(ceremony.data.publicKey);
    } catch (error) {
      setFormError(isPasskeyDismissed(error) ? t('cancelled') : t('addFailed'));
      return;
    } finally {
      setWaiting(false);
    }
    const outcome = await run(
      finish({ passkeyRegistrationRequest: { challengeId: ceremony.data.challengeId, name: trimmed, credential } }),
      { fallback: t('addFailed'), success: t('added'), formError: setFormError },
    );
    if (outcome.ok) setName('');
  };

  return (
    <>
      <FormError message={formError} />
      <form className="form" noValidate onSubmit={(e) => void submit(e)} aria-label={t('add')}>
        <TextField
          label={t('nameLabel')}
          hint={t('nameHint')}
          autoComplete="off"
          maxLength={200}
          value={name}
          onChange={(e) => {
            setName(e.target.value);
            setNameError(null);
          }}
          error={nameError ? { invalid: true, describedBy: errorId, message: nameError } : undefined}
        />
        <SubmitButton busy={busy} busyLabel={t('adding')} className="button">
          {t('add')}
        </SubmitButton>
      </form>
    </>
  );
}

function PasskeyItem({ passkey, onRemove }: { passkey: Passkey; onRemove: () => void }) {
  const { t } = useTranslation('passkeys');
  const created = formatDateTime(passkey.createdAt);
  return (
    <li className="list-item" data-testid="passkey">
      <div className="list-item__main">
        <p className="list-item__title">{passkey.name}</p>
        <p className="list-item__meta">
          {passkey.lastUsedAt
            ? t('meta', { created, lastUsed: formatDateTime(passkey.lastUsedAt) })
            : t('metaUnused', { created })}
        </p>
      </div>
      <button
        type="button"
        className="button button--small button--secondary"
        aria-label={t('removeLabel', { name: passkey.name })}
        onClick={onRemove}
      >
        {t('remove')}
      </button>
    </li>
  );
}

function RemoveDialog({ passkey, onClose }: { passkey: Passkey; onClose: () => void }) {
  const { t } = useTranslation('passkeys');
  const run = useRunMutation();
  const stepUpFirst = useStepUpFirst();
  const [remove, { isLoading }] = useRemovePasskeyMutation();
  const [formError, setFormError] = useFormError();

  const confirm = async () => {
    if (isLoading) return;
    // Removing a way to sign in needs the person, not just the session.
    if (!(await stepUpFirst())) return;
    const outcome = await run(remove({ credentialId: passkey.id }), {
      fallback: t('removeFailed'),
      success: t('removed'),
      formError: setFormError,
    });
    if (outcome.ok) onClose();
  };

  return (
    <Dialog
      title={t('confirmTitle')}
      onClose={onClose}
      actions={
        <>
          <button type="button" className="button button--danger" aria-disabled={isLoading || undefined} onClick={() => void confirm()}>
            {isLoading ? t('removing') : t('remove')}
          </button>
          <button type="button" className="button button--secondary" onClick={onClose}>
            {t('cancel')}
          </button>
        </>
      }
    >
      <FormError message={formError} />
      <p>{t('confirmText', { name: passkey.name })}</p>
    </Dialog>
  );
}

export function PasskeysSection() {
  const { t } = useTranslation('passkeys');
  const list = useListPasskeysQuery();
  const [removing, setRemoving] = useState<Passkey | null>(null);

  return (
    <section className="card" aria-labelledby="passkeys-title">
      <h3 id="passkeys-title">{t('title')}</h3>
      <p>{t('intro')}</p>
      <QueryState
        query={list}
        loading={t('loading')}
        failed={t('failed')}
        empty={{ when: (data) => data.passkeys.length === 0, message: t('empty') }}
      >
        {(data) => (
          <ul className="list">
            {data.passkeys.map((p) => (
              <PasskeyItem key={p.id} passkey={p} onRemove={() => setRemoving(p)} />
            ))}
          </ul>
        )}
      </QueryState>
      <AddPasskeyForm />
      {removing ? <RemoveDialog passkey={removing} onClose={() => setRemoving(null)} /> : null}
    </section>
  );
}
