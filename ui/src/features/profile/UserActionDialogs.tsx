import { useId, useState } from 'react';
import { useDeleteUserMutation, useSuspendUserMutation, useUpgradeUserMutation, type User } from '../../api/enhanced';
import { Dialog } from '../../components/Dialog';
import { SelectField } from '../../components/form/SelectField';
import { useSpecForm } from '../../components/form/useSpecForm';
import { useRunMutation } from '../../components/useRunMutation';
import { proposalOf, SENT_FOR_APPROVAL } from '../../components/approvalWords';
import { ProposalSent } from '../../components/ProposalsNotice';
import { roleSchema } from '../auth/validation';
import { useLabels } from '../../components/labels';

const assignableRoles = ['subscriber', 'author', 'admin'] as const;

// Granting the admin role needs a second admin (docs/security.md, "Separation of duties"): the
// dialog asks for the reason, and the server's 202 leaves it saying the grant waits.
export function ChangeRoleDialog({ user, onClose }: { user: User; onClose: () => void }) {
  const run = useRunMutation();
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
      setReasonError(REASON_FOR_SECOND);
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
        fallback: 'The role could not be changed. Please try again.',
        success: (data) => (proposalOf(data) ? SENT_FOR_APPROVAL : data.message),
      },
    );
    if (outcome.ok && proposalOf(outcome.data)) setProposed(true);
    else if (outcome.ok) onClose();
    else if (outcome.error.field === 'reason') setReasonError(outcome.message);
  });

  if (proposed) {
    return (
      <Dialog title={`Change role of ${user.name}`} onClose={onClose} actions={<CloseButton onClose={onClose} />}>
        <ProposalSent what={`${user.name} becomes an admin`} />
      </Dialog>
    );
  }
  return (
    <Dialog
      title={`Change role of ${user.name}`}
      onClose={onClose}
      actions={
        <>
          <button type="submit" form={formId} className="button" aria-disabled={isLoading || undefined}>
            {isLoading ? 'Saving…' : grantsAdmin ? 'Send for a second approval' : 'Change role'}
          </button>
          <button type="button" className="button button--secondary" onClick={onClose}>
            Cancel
          </button>
        </>
      }
    >
      <form id={formId} className="form" noValidate onSubmit={onSubmit}>
        <p>
          Current role: <strong>{labels.role(user.role)}</strong>. Authors and admins can see every user and work the approval queues.
        </p>
        <SelectField label="New role" error={fieldError('role')} data-autofocus {...register('role')}>
          <option value="">Select a role</option>
          {assignableRoles.map((role) => (
            <option key={role} value={role} disabled={role === user.role}>
              {labels.role(role)}
            </option>
          ))}
        </SelectField>
        {grantsAdmin ? (
          <>
            <p className="notice">Granting the admin role needs a second admin: it takes effect once another admin approves it.</p>
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

const REASON_FOR_SECOND = 'Please give a reason for the second admin';

function ReasonField({ id, value, error, onChange }: { id: string; value: string; error: string; onChange: (value: string) => void }) {
  return (
    <div className="field" data-invalid={error ? true : undefined}>
      <label className="field__label" htmlFor={id}>
        Reason <span className="field__optional">(required, for the second admin)</span>
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
  return (
    <button type="button" className="button button--secondary" onClick={onClose}>
      Close
    </button>
  );
}

export function SuspendDialog({ user, onClose }: { user: User; onClose: () => void }) {
  const run = useRunMutation();
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
        fallback: 'The user could not be suspended. Please try again.',
        success: ({ message }) => message,
      },
    );
    if (outcome.ok) onClose();
  };

  return (
    <Dialog
      title={`Suspend ${user.name}?`}
      tone="warning"
      onClose={onClose}
      actions={
        <>
          <button type="button" className="button button--danger" aria-disabled={isLoading || undefined} onClick={() => void suspend()}>
            {isLoading ? 'Suspending…' : 'Suspend user'}
          </button>
          <button type="button" className="button button--secondary" onClick={onClose}>
            Cancel
          </button>
        </>
      }
    >
      <p>They are signed out at once and cannot sign in until an admin reinstates them. Their money stays untouched.</p>
      <div className="field">
        <label className="field__label" htmlFor={reasonId}>
          Reason <span className="field__optional">(optional, kept in the audit log)</span>
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
  const run = useRunMutation();
  const reasonId = useId();
  const [deleteUser, { isLoading }] = useDeleteUserMutation();
  const [reason, setReason] = useState('');
  const [reasonError, setReasonError] = useState('');
  const [proposed, setProposed] = useState(false);

  const remove = async () => {
    if (isLoading) return;
    if (!reason.trim()) {
      setReasonError(REASON_FOR_SECOND);
      document.getElementById(reasonId)?.focus();
      return;
    }
    const outcome = await run(
      deleteUser({
        id: user._id,
        closeAccountRequest: { reason: reason.trim() },
      }),
      {
        fallback: 'The account could not be closed. Please try again.',
        success: (data) => (proposalOf(data) ? SENT_FOR_APPROVAL : data.message),
      },
    );
    if (outcome.ok && proposalOf(outcome.data)) setProposed(true);
    else if (outcome.ok) onClose();
    else if (outcome.error.field === 'reason') setReasonError(outcome.message);
  };

  if (proposed) {
    return (
      <Dialog title={`Delete ${user.name}?`} tone="danger" onClose={onClose} actions={<CloseButton onClose={onClose} />}>
        <ProposalSent what="the account closes" />
      </Dialog>
    );
  }
  return (
    <Dialog
      title={`Delete ${user.name}?`}
      tone="danger"
      role="alertdialog"
      onClose={onClose}
      actions={
        <>
          <button type="button" className="button button--secondary" onClick={onClose} data-autofocus>
            Cancel
          </button>
          <button type="button" className="button button--danger" aria-disabled={isLoading || undefined} onClick={() => void remove()}>
            {isLoading ? 'Sending…' : 'Delete User'}
          </button>
        </>
      }
    >
      <p>
        The account of <strong className="break-anywhere">{user.email}</strong> is closed for good: its personal data is erased and it can no longer
        sign in. Its money history is kept for the audit trail.
      </p>
      <p>This cannot be undone. A second admin must approve the closure before it happens.</p>
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
