import { useTranslation } from '../../i18n';

// "Firefox on Linux": enough for a person to recognise their own devices, in their language.
// Browser and system names are the same in every language.
export function useDeviceName() {
  const { t } = useTranslation('member');
  return (ua: string) => {
    if (!ua) return t('device.unknown');
    const browser =
      (/Edg\//.test(ua) && 'Edge') ||
      (/OPR\//.test(ua) && 'Opera') ||
      (/Firefox\//.test(ua) && 'Firefox') ||
      (/Chrom(e|ium)\//.test(ua) && 'Chrome') ||
      (/Safari\//.test(ua) && 'Safari') ||
      (/curl|Go-http-client|node|okhttp|python/i.test(ua) && t('device.apiClient')) ||
      t('device.browser');
    const os =
      (/Android/.test(ua) && 'Android') ||
      (/iPhone|iPad|iPod/.test(ua) && 'iOS') ||
      (/Windows/.test(ua) && 'Windows') ||
      (/Mac OS X|Macintosh/.test(ua) && 'macOS') ||
      (/CrOS/.test(ua) && 'ChromeOS') ||
      (/Linux/.test(ua) && 'Linux') ||
      '';
    return os ? t('device.on', { browser, os }) : browser;
  };
}
