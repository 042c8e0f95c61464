import { useMemo } from 'react';
import type {
  DepositStatus,
  InvestmentStatus,
  KycDecision,
  KycStatus,
  ProposalKind,
  ProposalStatus,
  Role,
  SupportTicketStatus,
  TestimonialStatus,
  User,
  WithdrawalStatus,
} from '../api/generated';
import { i18n, useTranslation } from '../i18n';

// The one place that names the values the server sends for roles and statuses: a page shows
// `labels.role(user.role)`, never `user.role`. Each kind lists its values once, checked against
// the API's types, and the `labels` namespace holds their words in every language. A value this
// version of the UI does not know yet (a newer server) reads as the kind's generic word
// ("Unknown", "Other role"), never as the raw value.
export const LABEL_VALUES = {
  role: ['subscriber', 'author', 'admin', 'suspended'] satisfies Role[],
  accountStatus: ['active', 'suspended', 'closed'] satisfies User['status'][],
  kyc: ['Not Submitted', 'Pending', 'Approved', 'Rejected'] satisfies KycStatus[],
  kycDecision: ['Approved', 'Rejected'] satisfies KycDecision['status'][],
  deposit: ['Pending', 'Confirmed', 'Rejected'] satisfies DepositStatus[],
  withdrawal: ['Pending', 'Approved', 'Rejected'] satisfies WithdrawalStatus[],
  investment: ['Pending', 'Active', 'Ended', 'Rejected'] satisfies InvestmentStatus[],
  // The statuses of the history and the dashboard's lists, which mix deposits, withdrawals and
  // investments in one badge.
  money: ['Pending', 'Confirmed', 'Approved', 'Rejected', 'Active', 'Ended', 'Completed'],
  ticket: ['open', 'answered', 'closed'] satisfies SupportTicketStatus[],
  testimonial: ['Pending', 'Approved', 'Rejected'] satisfies TestimonialStatus[],
  proposal: ['pending', 'approved', 'rejected'] satisfies ProposalStatus[],
  proposalKind: ['deposit_confirmation', 'withdrawal_approval', 'admin_grant', 'account_closure', 'balance_correction'] satisfies ProposalKind[],
  session: ['current', 'other'],
} as const;

export type LabelKind = keyof typeof LABEL_VALUES;

type Translate = (key: string) => string;

// The label of `value` of one kind, in the language `t` speaks.
export function labelOf(t: Translate, kind: LabelKind, value: string | null | undefined): string {
  const known = (LABEL_VALUES[kind] as readonly string[]).includes(value ?? '');
  return t(`${kind}.${known ? value : 'unknown'}`);
}

export type Labels = { [K in LabelKind]: (value: string | null | undefined) => string };

function labelsFor(t: Translate): Labels {
  const kinds = Object.keys(LABEL_VALUES) as LabelKind[];
  return Object.fromEntries(kinds.map((kind) => [kind, (value: string | null | undefined) => labelOf(t, kind, value)])) as Labels;
}

// In a component: `const labels = useLabels(); labels.kyc(user.kycStatus)`. Re-renders with the
// language.
export function useLabels(): Labels {
  const { t } = useTranslation('labels');
  return useMemo(() => labelsFor(t as unknown as Translate), [t]);
}

// Outside a component (tests, plain functions): the labels in the active language.
export const labels = (): Labels => labelsFor(i18n.getFixedT(null, 'labels') as unknown as Translate);
