import { useLocale, useTranslation } from '../i18n';
import { formatUsd, NO_AMOUNT } from './money';

// An amount as the user reads it, written the way their language writes numbers (always in US
// dollars). An unreadable amount shows the placeholder, and says in words that the amount is not
// available rather than reading out a dash.
export function Amount({ amount }: { amount: string | null | undefined }) {
  const { t } = useTranslation();
  const shown = formatUsd(amount, useLocale());
  if (shown !== NO_AMOUNT) return <>{shown}</>;
  return (
    <span title={t('amount.unavailableTitle')}>
      <span aria-hidden="true">{NO_AMOUNT}</span>
      <span className="visually-hidden">{t('amount.unavailable')}</span>
    </span>
  );
}
