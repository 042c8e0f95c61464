import type { BadgeName } from '../../api/community';
import { formatUsd } from '../../components/money';

export const levelTitle: Record<BadgeName, string> = {
  member: 'Member',
  leader: 'Leader',
  expert: 'Expert',
  master: 'Master',
};

// "$1,000" for whole dollars, as criteria read; cents only when there are some.
export function dollars(amount: string) {
  return formatUsd(amount).replace(/\.00$/, '');
}

export function referralWords(n: number) {
  return n === 1 ? '1 qualified referral' : `${n} qualified referrals`;
}
