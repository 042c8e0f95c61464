import { Link } from 'react-router';
import { Dialog } from '../../components/Dialog';
import { useTranslation } from '../../i18n';

// A suspended user who tries to sign in is told why and how to reach support.
export function SuspendedDialog({ message, onClose }: { message: string; onClose: () => void }) {
  const { t } = useTranslation('auth');
  return (
    <Dialog
      title={t('suspended.title')}
      tone="warning"
      role="alertdialog"
      onClose={onClose}
      actions={
        <>
          <Link className="button" to="/support" data-autofocus>
            {t('suspended.contact')}
          </Link>
          <button type="button" className="button button--secondary" onClick={onClose}>
            {t('suspended.close')}
          </button>
        </>
      }
    >
      <p>{message}</p>
      <p>{t('suspended.body')}</p>
    </Dialog>
  );
}
