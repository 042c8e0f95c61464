import { regionNames } from '../../components/format';
import { useLocale, useTranslation } from '../../i18n';

// How long a submission has waited, in seconds, counted to the server's clock (`asOf`) so a wrong
// clock on the reviewer's computer cannot skew it; never negative. Null when a time is unreadable.
export function waitedSeconds(submittedAt: string, asOf: string): number | null {
  const ms = Date.parse(asOf) - Date.parse(submittedAt);
  return Number.isFinite(ms) ? Math.max(0, Math.floor(ms / 1000)) : null;
}

// "United Kingdom" for "GB", in the reader's language.
export function useCountryName() {
  const { t } = useTranslation('staff');
  const locale = useLocale();
  return (code: string) => {
    if (!code) return t('kyc.noCountry');
    try {
      return regionNames(locale).of(code) ?? code;
    } catch {
      return code;
    }
  };
}
