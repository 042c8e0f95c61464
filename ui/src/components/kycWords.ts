import type { KycRejectionReason, KycSide } from '../api/enhanced';
import { useLocale, useTranslation } from '../i18n';

// The words for identity checks that the upload page, the dashboard and the staff pages share,
// so a reviewer's choice reads the same to the reviewer and to the user.

export const KYC_SIDES: readonly KycSide[] = ['front', 'back'];

export const sideLabel: Record<KycSide, string> = { front: 'Front', back: 'Back' };

// What the reviewer picks from (short), in the order the select offers them.
export const reasonOptions: readonly { value: KycRejectionReason; label: string }[] = [
  { value: 'blurry', label: 'Blurry or unreadable' },
  { value: 'cut_off', label: 'Edges or corners cut off' },
  { value: 'glare', label: 'Glare or reflections' },
  { value: 'expired', label: 'Document has expired' },
  { value: 'mismatch', label: 'Name does not match the account' },
  { value: 'not_accepted', label: 'Not an accepted identity document' },
  { value: 'missing', label: 'Wrong side or page' },
  { value: 'other', label: 'Other (explained in the comment)' },
];

export const reasonLabel = (reason: KycRejectionReason) => reasonOptions.find((o) => o.value === reason)?.label ?? reason;

// What the user reads: what was wrong, and what to do about it.
const reasonAdvice: Record<KycRejectionReason, string> = {
  blurry: 'The photo is blurry or hard to read. Take it again in good light and hold the camera steady.',
  cut_off: 'Part of the document is cut off. Make sure all four edges and corners are in the picture.',
  glare: 'Glare or reflections hide part of the document. Avoid direct light and flash.',
  expired: 'The document has expired. Please send a document that is still valid.',
  mismatch: 'The name on the document does not match the name on your account.',
  not_accepted: 'This is not a document we accept. Please send a passport, national ID card or driving licence.',
  missing: 'This is not the right side of the document. Please send the side we asked for.',
  other: "See the reviewer's comment below.",
};

export const reasonInPlainWords = (reason: KycRejectionReason) => reasonAdvice[reason] ?? reason;

export function formatBytes(bytes: number) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

const typeNames: Record<string, string> = {
  'image/jpeg': 'JPEG image',
  'image/png': 'PNG image',
  'image/gif': 'GIF image',
  'image/webp': 'WebP image',
  'image/bmp': 'BMP image',
  'image/heic': 'HEIC image',
  'image/heif': 'HEIC image',
  'application/pdf': 'PDF',
};

export const typeName = (contentType: string) => typeNames[contentType.toLowerCase()] ?? 'File';

// The same words in the reader's language (kyc namespace): sides, reasons, advice, file types
// and sizes.
export function useKycWords() {
  const { t } = useTranslation('kyc');
  const locale = useLocale();
  const number = (value: number, digits: number) => new Intl.NumberFormat(locale, { maximumFractionDigits: digits, minimumFractionDigits: digits }).format(value);
  return {
    side: (side: KycSide) => t(`side.${side}`),
    reason: (reason: KycRejectionReason) => (reason in reasonAdvice ? t(`reason.${reason}`) : reason),
    advice: (reason: KycRejectionReason) => (reason in reasonAdvice ? t(`advice.${reason}`) : reason),
    reasonOptions: reasonOptions.map((o) => ({ value: o.value, label: t(`reason.${o.value}`) })),
    typeName: (contentType: string) => (contentType.toLowerCase() in typeNames ? t(`type.${contentType.toLowerCase()}` as 'type.other') : t('type.other')),
    formatBytes: (bytes: number) => {
      if (bytes < 1024) return `${bytes} B`;
      if (bytes < 1024 * 1024) return `${number(bytes / 1024, 0)} KB`;
      return `${number(bytes / (1024 * 1024), 1)} MB`;
    },
  };
}
