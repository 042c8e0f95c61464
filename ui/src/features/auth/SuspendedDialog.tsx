import { Link } from 'react-router';
import { Dialog } from '../../components/Dialog';

// A suspended user who tries to sign in is told why and how to reach support.
export function SuspendedDialog({ message, onClose }: { message: string; onClose: () => void }) {
  return (
    <Dialog
      title="Account Suspended"
      tone="warning"
      role="alertdialog"
      onClose={onClose}
      actions={
        <>
          <Link className="button" to="/support" data-autofocus>
            Contact Support
          </Link>
          <button type="button" className="button button--secondary" onClick={onClose}>
            Close
          </button>
        </>
      }
    >
      <p>{message}</p>
      <p>
        While your account is suspended you cannot sign in. Our support team can tell you why and what you can do
        next.
      </p>
    </Dialog>
  );
}
