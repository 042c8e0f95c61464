// The client's checks on an identity document, with the specification's messages. They only
// save a round trip: the server decides by the file's content, and its message is shown when it
// refuses.

export const MAX_KYC_FILE_BYTES = 10_485_760;

export const KYC_ACCEPT = 'image/jpeg,image/png,image/gif,image/webp,image/bmp,image/heic,application/pdf';

export const kycMessages = {
  both: 'Please upload both front and back documents.',
  tooLarge: 'File size must be less than 10MB.',
  format: 'Invalid file format. Only JPEG, JPG, PNG, and PDF are allowed.',
  missing: 'Please select a file.',
  uploaded: 'KYC documents uploaded successfully!',
  network: 'Upload failed. Please try again.',
} as const;

const acceptedTypes = new Set(KYC_ACCEPT.split(',').concat('image/jpg', 'image/heif'));
// Phones often leave the type of a HEIC photo empty; the name is the only hint then.
const acceptedExtensions = /\.(jpe?g|png|gif|webp|bmp|heic|heif|pdf)$/i;

export function checkKycFile(file: File): string | null {
  const typeOk = file.type ? acceptedTypes.has(file.type.toLowerCase()) : acceptedExtensions.test(file.name);
  if (!typeOk) return kycMessages.format;
  if (file.size > MAX_KYC_FILE_BYTES) return kycMessages.tooLarge;
  return null;
}

export type PreviewKind = 'image' | 'pdf' | 'file';

// How a file can be shown: images the browser draws itself, PDFs through pdf.js, anything else
// (HEIC in most browsers) as a file icon with its name and size.
export function previewKind(type: string, name = ''): PreviewKind {
  const t = type.toLowerCase();
  if (t === 'application/pdf' || (!t && /\.pdf$/i.test(name))) return 'pdf';
  if (['image/jpeg', 'image/jpg', 'image/png', 'image/gif', 'image/webp', 'image/bmp'].includes(t)) return 'image';
  return 'file';
}
