import { useId, useState } from 'react';
import { useDeleteUserMutation, useSuspendUserMutation, useUpgradeUserMutation, type User } from '../../api/enhanced';
import { Dialog } from '../../components/Dialog';
import { SelectField } from '../../components/form/SelectField';
import { useSpecForm } from '../../components/form/useSpecForm';
import { FormError, useFormError } from '../../components/form/FormError';
import { useRunMutation } from '../../components/useRunMutation';
import { proposalOf } from '../../components/approvalWords';
import { Trans, useTranslation } from '../../i18n';
import { ProposalSent } from '../../components/ProposalsNotice';
import { roleSchema } from '../auth/validation';
import { useLabels } from '../../components/labels';

const assignableRoles = ['subscriber', 'author', 'admin'] as const;

// Granting the admin role needs a second admin (docs/security.md, "Separation of duties"): the
// dialog asks for the reason, and the server's 202 leaves it saying the grant waits.
export function ChangeRoleDialog({ user, onClose }: { user: User; onClose: () => void }) {
  const { t } = useTranslation('staff');
  const run = useRunMutation();
  const [formError, setFormError] = useFormError();
  const labels = useLabels();
  const formId = useId();
  const reasonId = useId();
  const [upgradeUser, { isLoading }] = useUpgradeUserMutation();
  const form = useSpecForm(roleSchema, ['role'], { role: '' });
  const { register, handleSubmit, fieldError, watch } = form;
  const [reason, setReason] = useState('');
  const [reasonError, setReasonError] = useState('');
  const [proposed, setProposed] = useState(false);
  const grantsAdmin = watch('role') === 'admin';

  const onSubmit = handleSubmit(async ({ role }) => {
    if (isLoading) return;
    if (role === 'admin' && !reason.trim()) {
      setReasonError(t('userActions.reasonForSecond'));
      document.getElementById(reasonId)?.focus();
      return;
    }
    const outcome = await run(
      upgradeUser({
        upgradeUserRequest: {
          id: user._id,
          role,
          ...(role === 'admin' ? { reason: reason.trim() } : {}),
        },
      }),
      {
        fallback: t('userActions.roleFailed'),
        success: (data) => (proposalOf(data) ? t('proposal.sent') : data.message),
        formError: setFormError,
        handled: ({ field, message }) => {
          if (field !== 'reason') return false;
          setReasonError(message ?? t('userActions.roleFailed'));
          document.getElementById(reasonId)?.focus();
          return true;
        },
      },
    );
    if (outcome.ok && proposalOf(outcome.data)) setProposed(true);
    else if (outcome.ok) onClose();
  });

  if (proposed) {
    return (
      <Dialog title={t('userActions.roleTitle', { name: user.name })} onClose={onClose} actions={<CloseButton onClose={onClose} />}>
        <ProposalSent message={t('proposal.becomesAdmin', { name: user.name })} />
      </Dialog>
    );
  }
  return (
    <Dialog
      title={t('userActions.roleTitle', { name: user.name })}
      onClose={onClose}
      actions={
        <>
          <button type="submit" form={formId} className="button" aria-disabled={isLoading || undefined}>
            {isLoading ? t('userActions.saving') : grantsAdmin ? t('userActions.sendSecond') : t('userActions.changeRole')}
          </button>
          <button type="button" className="button button--secondary" onClick={onClose}>
            {t('userActions.cancel')}
          </button>
        </>
      }
    >
      <FormError message={formError} />
      <form id={formId} className="form" noValidate onSubmit={onSubmit}>
        <p>
          <Trans t={t} i18nKey="userActions.currentRole" values={{ role: labels.role(user.role) }} components={{ role: <strong /> }} />
        </p>
        <SelectField label={t('userActions.newRole')} error={fieldError('role')} data-autofocus {...register('role')}>
          <option value="">{t('userActions.selectRole')}</option>
          {assignableRoles.map((role) => (
            <option key={role} value={role} disabled={role === user.role}>
              {labels.role(role)}
            </option>
          ))}
        </SelectField>
        {grantsAdmin ? (
          <>
            <p className="notice">{t('userActions.adminNeedsSecond')}</p>
            <ReasonField
              id={reasonId}
              value={reason}
              error={reasonError}
              onChange={(v) => {
                setReason(v);
                setReasonError('');
              }}
            />
          </>
        ) : null}
      </form>
    </Dialog>
  );
}

function ReasonField({ id, value, error, onChange }: { id: string; value: string; error: string; onChange: (value: string) => void }) {
  const { t } = useTranslation('staff');
  return (
    <div className="field" data-invalid={error ? true : undefined}>
      <label className="field__label" htmlFor={id}>
        {t('userActions.reason')} <span className="field__optional">{t('userActions.reasonRequired')}</span>
      </label>
      <textarea
        id={id}
        className="field__input field__textarea"
        rows={3}
        maxLength={500}
        value={value}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(event) => onChange(event.target.value)}
      />
      {error ? (
        <p id={`${id}-error`} className="field__error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

function CloseButton({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation('staff');
  return (
    <button type="button" className="button button--secondary" onClick={onClose}>
      {t('userActions.close')}
    </button>
  );
}

export function SuspendDialog({ user, onClose }: { user: User; onClose: () => void }) {
  const { t } = useTranslation('staff');
  const run = useRunMutation();
  const [formError, setFormError] = useFormError();
  const reasonId = useId();
  const [reason, setReason] = useState('');
  const [suspendUser, { isLoading }] = useSuspendUserMutation();

  const suspend = async () => {
    if (isLoading) return;
    const outcome = await run(
      suspendUser({
        id: user._id,
        suspendRequest: { reason: reason.trim() || undefined },
      }),
      {
        fallback: t('userActions.suspendFailed'),
        success: ({ message }) => message,
        formError: setFormError,
      },
    );
    if (outcome.ok) onClose();
  };

  return (
    <Dialog
      title={t('userActions.suspendTitle', { name: user.name })}
      tone="warning"
      onClose={onClose}
      actions={
        <>
          <button type="button" className="button button--danger" aria-disabled={isLoading || undefined} onClick={() => void suspend()}>
            {isLoading ? t('userActions.suspending') : t('userActions.suspend')}
          </button>
          <button type="button" className="button button--secondary" onClick={onClose}>
            {t('userActions.cancel')}
          </button>
        </>
      }
    >
      <FormError message={formError} />
      <p>{t('userActions.suspendText')}</p>
      <div className="field">
        <label className="field__label" htmlFor={reasonId}>
          {t('userActions.reason')} <span className="field__optional">{t('userActions.reasonOptional')}</span>
        </label>
        <textarea
          id={reasonId}
          className="field__input field__textarea"
          rows={3}
          maxLength={500}
          value={reason}
          data-autofocus
          onChange={(event) => setReason(event.target.value)}
        />
      </div>
    </Dialog>
  );
}

// Closing any account needs a second admin: the dialog asks for the reason, and the server's
// 202 leaves it saying the closure waits.
export function DeleteUserDialog({ user, onClose }: { user: User; onClose: () => void }) {
  const { t } = useTranslation('staff');
  const run = useRunMutation();
  const [formError, setFormError] = useFormError();
  const reasonId = useId();
  const [deleteUser, { isLoading }] = useDeleteUserMutation();
  const [reason, setReason] = useState('');
  const [reasonError, setReasonError] = useState('');
  const [proposed, setProposed] = useState(false);

  const remove = async () => {
    if (isLoading) return;
    if (!reason.trim()) {
      setReasonError(t('userActions.reasonForSecond'));
      document.getElementById(reasonId)?.focus();
      return;
    }
    const outcome = await run(
      deleteUser({
        id: user._id,
        closeAccountRequest: { reason: reason.trim() },
      }),
      {
        fallback: t('userActions.deleteFailed'),
        success: (data) => (proposalOf(data) ? t('proposal.sent') : data.message),
        formError: setFormError,
        handled: ({ field, message }) => {
          if (field !== 'reason') return false;
          setReasonError(message ?? t('userActions.deleteFailed'));
          document.getElementById(reasonId)?.focus();
          return true;
        },
      },
    );
    if (outcome.ok && proposalOf(outcome.data)) setProposed(true);
    else if (outcome.ok) onClose();
  };

  if (proposed) {
    return (
      <Dialog title={t('userActions.deleteTitle', { name: user.name })} tone="danger" onClose={onClose} actions={<CloseButton onClose={onClose} />}>
        <ProposalSent message={t('proposal.closes')} />
      </Dialog>
    );
  }
  return (
    <Dialog
      title={t('userActions.deleteTitle', { name: user.name })}
      tone="danger"
      role="alertdialog"
      onClose={onClose}
      actions={
        <>
          <button type="button" className="button button--secondary" onClick={onClose} data-autofocus>
            {t('userActions.cancel')}
          </button>
          <button type="button" className="button button--danger" aria-disabled={isLoading || undefined} onClick={() => void remove()}>
            {isLoading ? t('userActions.sending') : t('userActions.delete')}
          </button>
        </>
      }
    >
      <FormError message={formError} />
      <p>
        <Trans t={t} i18nKey="userActions.deleteText" values={{ email: user.email }} components={{ email: <strong className="break-anywhere" /> }} />
      </p>
      <p>{t('userActions.deleteFinal')}</p>
      <ReasonField
        id={reasonId}
        value={reason}
        error={reasonError}
        onChange={(v) => {
          setReason(v);
          setReasonError('');
        }}
      />
    </Dialog>
  );
}
