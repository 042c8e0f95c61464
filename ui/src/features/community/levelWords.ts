import { formatUsd } from '../../components/money';
import { currentLocale, numberFormat } from '../../components/format';

// "$1,000" for whole dollars, as criteria read (in German "1.000 $"); cents only when there are
// some. The zero cents are dropped wherever the locale puts them: "$1,000.00", "1.000,00 $".
export function dollars(amount: string, locale = currentLocale()) {
  return formatUsd(amount, locale).replace(/[.,]00(?!\d)/, '');
}

// "25%" (in German "25 %"): a level's progress, a whole number the server computed.
export function percentWords(percent: number, locale = currentLocale()) {
  return numberFormat({ style: 'unit', unit: 'percent', maximumFractionDigits: 0 }, locale).format(percent);
}
