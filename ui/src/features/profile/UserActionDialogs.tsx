import { useId, useState } from 'react';
import { useDeleteUserMutation, useSuspendUserMutation, useUpgradeUserMutation, type User } from '../../api/enhanced';
import { Dialog } from '../../components/Dialog';
import { SelectField } from '../../components/form/SelectField';
import { useSpecForm } from '../../components/form/useSpecForm';
import { useRunMutation } from '../../components/useRunMutation';
import { roleSchema } from '../auth/validation';

const assignableRoles = [
  { value: 'subscriber', label: 'Subscriber' },
  { value: 'author', label: 'Author (staff)' },
  { value: 'admin', label: 'Admin (staff)' },
] as const;

export function ChangeRoleDialog({ user, onClose }: { user: User; onClose: () => void }) {
  const run = useRunMutation();
  const formId = useId();
  const [upgradeUser, { isLoading }] = useUpgradeUserMutation();
  const form = useSpecForm(roleSchema, ['role'], { role: '' });
  const { register, handleSubmit, fieldError } = form;

  const onSubmit = handleSubmit(async ({ role }) => {
    if (isLoading) return;
    const outcome = await run(upgradeUser({ upgradeUserRequest: { id: user._id, role } }), {
      fallback: 'The role could not be changed. Please try again.',
      success: ({ message }) => message,
    });
    if (outcome.ok) onClose();
  });

  return (
    <Dialog
      title={`Change role of ${user.name}`}
      onClose={onClose}
      actions={
        <>
          <button type="submit" form={formId} className="button" aria-disabled={isLoading || undefined}>
            {isLoading ? 'Saving…' : 'Change role'}
          </button>
          <button type="button" className="button button--secondary" onClick={onClose}>
            Cancel
          </button>
        </>
      }
    >
      <form id={formId} className="form" noValidate onSubmit={onSubmit}>
        <p>
          Current role: <strong>{user.role}</strong>. Authors and admins can see every user and work the approval queues.
        </p>
        <SelectField label="New role" error={fieldError('role')} data-autofocus {...register('role')}>
          <option value="">Select a role</option>
          {assignableRoles.map((role) => (
            <option key={role.value} value={role.value} disabled={role.value === user.role}>
              {role.label}
            </option>
          ))}
        </SelectField>
      </form>
    </Dialog>
  );
}

export function SuspendDialog({ user, onClose }: { user: User; onClose: () => void }) {
  const run = useRunMutation();
  const reasonId = useId();
  const [reason, setReason] = useState('');
  const [suspendUser, { isLoading }] = useSuspendUserMutation();

  const suspend = async () => {
    if (isLoading) return;
    const outcome = await run(suspendUser({ id: user._id, suspendRequest: { reason: reason.trim() || undefined } }), {
      fallback: 'The user could not be suspended. Please try again.',
      success: ({ message }) => message,
    });
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

export function DeleteUserDialog({ user, onClose }: { user: User; onClose: () => void }) {
  const run = useRunMutation();
  const [deleteUser, { isLoading }] = useDeleteUserMutation();

  const remove = async () => {
    if (isLoading) return;
    const outcome = await run(deleteUser({ id: user._id }), {
      fallback: 'The account could not be closed. Please try again.',
      success: ({ message }) => message,
    });
    if (outcome.ok) onClose();
  };

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
            {isLoading ? 'Deleting…' : 'Delete User'}
          </button>
        </>
      }
    >
      <p>
        The account of <strong className="break-anywhere">{user.email}</strong> is closed for good: its personal data is
        erased and it can no longer sign in. Its money history is kept for the audit trail.
      </p>
      <p>This cannot be undone.</p>
    </Dialog>
  );
}
