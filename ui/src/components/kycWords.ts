import type { KycRejectionReason, KycSide } from '../api/enhanced';
import { useLocale, useTranslation } from '../i18n';
import { numberFormat } from './format';

// The words for identity checks that the upload page, the dashboard and the staff pages share,
// so a reviewer's choice reads the same to the reviewer and to the user. They live in the kyc
// namespace; this lists the values they are kept for.

export const KYC_SIDES: readonly KycSide[] = ['front', 'back'];

// What the reviewer picks from, in the order the select offers them.
const REASONS: readonly KycRejectionReason[] = ['blurry', 'cut_off', 'glare', 'expired', 'mismatch', 'not_accepted', 'missing', 'other'];

const isReason = (reason: string): reason is KycRejectionReason => (REASONS as readonly string[]).includes(reason);

// The file types a document can have, each with its words in kyc's `type`.
const TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/bmp', 'image/heic', 'image/heif', 'application/pdf'] as const;

const isType = (contentType: string): contentType is (typeof TYPES)[number] => (TYPES as readonly string[]).includes(contentType);

// Sides, reasons, advice, file types and sizes in the reader's language. A reason this version
// does not know (a newer server) is shown as it came.
export function useKycWords() {
  const { t } = useTranslation('kyc');
  const locale = useLocale();
  const number = (value: number, digits: number) => numberFormat({ maximumFractionDigits: digits, minimumFractionDigits: digits }, locale).format(value);
  return {
    side: (side: KycSide) => t(`side.${side}`),
    reason: (reason: KycRejectionReason) => (isReason(reason) ? t(`reason.${reason}`) : reason),
    advice: (reason: KycRejectionReason) => (isReason(reason) ? t(`advice.${reason}`) : reason),
    reasonOptions: REASONS.map((value) => ({ value, label: t(`reason.${value}`) })),
    typeName: (contentType: string) => {
      const type = contentType.toLowerCase();
      return isType(type) ? t(`type.${type}`) : t('type.other');
    },
    formatBytes: (bytes: number) => {
      if (bytes < 1024) return t('size.bytes', { size: number(bytes, 0) });
      if (bytes < 1024 * 1024) return t('size.kilobytes', { size: number(bytes / 1024, 0) });
      return t('size.megabytes', { size: number(bytes / (1024 * 1024), 1) });
    },
  };
}
