import { useTranslation } from '../i18n';

// What every investor reads before money moves: on the plans page, and again on the confirmation
// step of a new investment, where it must be acknowledged.
export function RiskNotice() {
  const { t } = useTranslation('plans');
  return (
    <section className="notice plans__risk" aria-labelledby="plans-risk-title">
      <h2 id="plans-risk-title">{t('risk.title')}</h2>
      <ul>
        <li>{t('risk.loseValue')}</li>
        <li>{t('risk.lockedIn')}</li>
        <li>{t('risk.annualRate')}</li>
        <li>{t('risk.affordToLose')}</li>
      </ul>
    </section>
  );
}
