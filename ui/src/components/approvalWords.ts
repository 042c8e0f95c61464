import type { ApprovalThresholds, Proposal, ProposalCreated, ProposalKind } from '../api/enhanced';
import { useLocale, useTranslation } from '../i18n';
import { formatDecimal } from './format';
import { formatUsd, isDecimal } from './money';

// The four-eyes rule as staff read it (docs/security.md, "Separation of duties"): which decisions
// need a second staff member, in words (useApprovalRules), and the same comparisons the server makes, so a page can
// say so before anything is sent. The server decides; these only warn ahead.

export const APPROVALS_PATH = '/approvals';

// A decision's answer: 200 with a message, or 202 with the proposal a second person decides.
export function proposalOf(answer: { message: string } | ProposalCreated): string | undefined {
  return 'proposalId' in answer && answer.proposalId ? answer.proposalId : undefined;
}

// The proposal waiting on one subject, if any.
export function pendingFor(proposals: readonly Proposal[] | undefined, kind: ProposalKind, subjectId: string) {
  return proposals?.find((p) => p.kind === kind && p.subjectId === subjectId && p.status === 'pending');
}

// An exact decimal: n / 10^f. Amounts are compared without floats, like everywhere else.
interface Dec {
  n: bigint;
  f: number;
}

function dec(text: string | undefined): Dec | null {
  const s = (text ?? '').trim();
  if (!isDecimal(s)) return null;
  const negative = s.startsWith('-');
  const [whole = '0', frac = ''] = s.replace(/^[+-]/, '').split('.');
  const n = BigInt(whole + frac);
  return { n: negative ? -n : n, f: frac.length };
}

function cmp(a: Dec, b: Dec) {
  const left = a.n * 10n ** BigInt(b.f);
  const right = b.n * 10n ** BigInt(a.f);
  return left === right ? 0 : left > right ? 1 : -1;
}

const positive = (d: Dec | null): d is Dec => d !== null && d.n > 0n;

// Why confirming `received` on a deposit declared as `declared` needs a second staff member:
// 'above' the threshold, 'differs' from the declared amount by more than the tolerance, or null.
export function depositNeedsSecond(declared: string, received: string, t: ApprovalThresholds | undefined): 'above' | 'differs' | null {
  const r = dec(received);
  const d = dec(declared);
  if (!t || !r || !d) return null;
  const threshold = dec(t.depositThreshold);
  if (positive(threshold) && cmp(r, threshold) > 0) return 'above';
  const tolerance = dec(t.depositTolerancePercent);
  if (!tolerance) return null;
  // |received − declared| · 100 > declared · tolerance %
  const diff = {
    n: r.n * 10n ** BigInt(d.f) - d.n * 10n ** BigInt(r.f),
    f: r.f + d.f,
  };
  const absDiff = { n: diff.n < 0n ? -diff.n : diff.n, f: diff.f };
  return cmp({ n: absDiff.n * 100n, f: absDiff.f }, { n: d.n * tolerance.n, f: d.f + tolerance.f }) > 0 ? 'differs' : null;
}

// Whether paying out a withdrawal of `amount` needs a second staff member.
export function withdrawalNeedsSecond(amount: string, t: ApprovalThresholds | undefined): boolean {
  const a = dec(amount);
  const threshold = dec(t?.withdrawalThreshold);
  return a !== null && positive(threshold) && cmp(a, threshold) > 0;
}

// The rule in the reader's words (staff namespace, proposals.*): "Confirmations above
// $10,000.00, or more than 1 % from the declared amount, need a second staff member."; and
// "Payouts above $10,000.00 need a second staff member.", or nothing when no threshold is set.
export function useApprovalRules() {
  const { t } = useTranslation('staff');
  const locale = useLocale();
  return {
    deposit: (thresholds: ApprovalThresholds) =>
      positive(dec(thresholds.depositThreshold))
        ? t('proposals.depositRule', { amount: formatUsd(thresholds.depositThreshold, locale), tolerance: formatDecimal(thresholds.depositTolerancePercent, locale) })
        : t('proposals.depositRuleTolerance', { tolerance: formatDecimal(thresholds.depositTolerancePercent, locale) }),
    withdrawal: (thresholds: ApprovalThresholds) =>
      positive(dec(thresholds.withdrawalThreshold)) ? t('proposals.withdrawalRule', { amount: formatUsd(thresholds.withdrawalThreshold, locale) }) : '',
  };
}
