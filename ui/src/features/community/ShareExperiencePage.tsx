import { useTranslation } from '../../i18n';
import { ShareExperienceCard } from './ShareExperienceCard';

// /share-your-experience: an investor's testimonial, on a page of its own so the dashboard stays
// about their money. The dashboard links here.
export function ShareExperiencePage() {
  const { t } = useTranslation('dashboard');
  return (
    <section className="page container page--narrow stack" aria-labelledby="share-page-title">
      <h1 id="share-page-title">{t('share.title')}</h1>
      <p className="muted">{t('share.pageIntro')}</p>
      <ShareExperienceCard title={t('share.cardTitle')} />
    </section>
  );
}
