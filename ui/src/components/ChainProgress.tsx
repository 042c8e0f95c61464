import { useTranslation } from '../i18n';

// How often a page asks again while a deposit it shows is being confirmed by the network: a
// block arrives every few seconds on Ethereum, every ten minutes or so on Bitcoin.
export const CHAIN_POLL_MS = 5000;

// What a deposit, or a dashboard item, says about its transfer's confirmations: present only
// while the chain watcher follows it (a pending chain deposit).
export interface ChainFollowed {
  confirmations?: number;
  confirmationsNeeded?: number;
}

export function followedOnChain(x: ChainFollowed | undefined): x is Required<ChainFollowed> {
  return x?.confirmations !== undefined && x.confirmationsNeeded !== undefined;
}

// "Seen on the network · 1 of 3 confirmations" for the investor, "Detected on chain · …" for
// staff. The bar repeats the figures for the eye; the words are what is read out.
export function ChainProgress({ confirmations, confirmationsNeeded, audience }: Required<ChainFollowed> & { audience: 'investor' | 'staff' }) {
  const { t } = useTranslation('chain');
  const where = audience === 'staff' ? t('progress.detected') : t('progress.seen');
  const text = t('progress.label', {
    where,
    confirmations: t('progress.confirmations', { count: confirmations, needed: confirmationsNeeded }),
  });
  return (
    <span className="chain-progress" data-testid="chain-progress">
      <span className="badge badge--warning">{text}</span>
      <progress className="chain-progress__bar" value={confirmations} max={confirmationsNeeded} aria-hidden="true" />
    </span>
  );
}
