import type { InvestmentStatus } from '../../api/enhanced';
import { useTranslation } from '../../i18n';

export function investmentBadge(status: InvestmentStatus) {
  if (status === 'Active') return 'badge badge--success';
  if (status === 'Rejected') return 'badge badge--danger';
  if (status === 'Pending') return 'badge badge--warning';
  return 'badge';
}

// The status as the investor reads it; "Ended" after an early redemption says so.
export function useStatusText() {
  const { t } = useTranslation('invest');
  return (status: InvestmentStatus, closedEarly: boolean) => (status === 'Ended' && closedEarly ? t('status.EndedEarly') : t(`status.${status}`));
}
