import type { Withdrawal } from '../../api/enhanced';
import { useTranslation } from '../../i18n';

type PayoutOnChain = NonNullable<Withdrawal['payoutOnChain']>;

// The payout transaction as the chain watcher last saw it (docs/chain.md, "Payouts seen on
// chain"): seen with its confirmations, final, failed (it moved nothing), or gone from the chain.
export function PayoutOnChainBadge({ seen }: { seen: PayoutOnChain }) {
  const { t } = useTranslation('chain');
  let className = 'badge badge--warning';
  let text: string;
  switch (seen.status) {
    case 'confirming':
      text = t('payout.confirming', { count: seen.confirmations });
      break;
    case 'final':
      className = 'badge badge--success';
      text = t('payout.final');
      break;
    case 'failed':
      className = 'badge badge--danger';
      text = t('payout.failed');
      break;
    case 'missing':
      text = t('payout.missing');
      break;
  }
  return (
    <span className={className} data-testid="payout-on-chain">
      {text}
    </span>
  );
}
