import { useTranslation } from '../i18n';

// Asks again for something that could not be read. While the new request runs it says so and
// ignores presses, but stays focusable: a disabled button would drop keyboard focus to the page.
export function RetryButton({ busy, onRetry, className = 'button button--secondary' }: { busy: boolean; onRetry: () => void; className?: string }) {
  const { t } = useTranslation();
  return (
    <button type="button" className={className} aria-disabled={busy || undefined} onClick={busy ? undefined : onRetry}>
      {busy ? t('retry.busy') : t('retry.idle')}
    </button>
  );
}
