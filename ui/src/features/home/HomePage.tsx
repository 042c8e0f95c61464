import { Link } from 'react-router';
import { useAppSelector } from '../../app/hooks';
import { HydrateLater } from '../../app/hydration';
import { useTranslation } from '../../i18n';
import { selectIsLoggedIn } from '../auth/authSlice';
import { ActivityTicker } from '../community/ActivityTicker';
import { InvestorCounts } from '../community/InvestorCounts';
import { TestimonialsSection } from '../community/TestimonialsSection';
import { FaqSection } from '../content/FaqSection';
import { TeamSection } from '../content/TeamSection';
import { HeroArt, Icon, TrustArt, type IconName } from './Illustrations';
import { TypingHeadline } from './TypingHeadline';

// Everything here is true of the product as built (docs/product-rules.md); no figures or people
// are invented. Counts, the activity ticker and testimonials come from real data in their own
// sections. The page's own words are in the home namespace (docs/i18n.md); the FAQ and the team
// are the operator's content and come as written.

// Each list names its texts by key (home namespace); the order here is the order on the page.
const phrases = ['plain', 'fixed', 'people'] as const;

const features = [
  { key: 'term', icon: 'calendar' },
  { key: 'return', icon: 'lock' },
  { key: 'fees', icon: 'receipt' },
  { key: 'payback', icon: 'wallet' },
] as const satisfies readonly { key: string; icon: IconName }[];

const steps = ['account', 'fund', 'paid'] as const;

const trust = ['deposits', 'identity', 'fees', 'history'] as const;

const reasons = [
  { key: 'beginners', icon: 'book' },
  { key: 'people', icon: 'people' },
  { key: 'record', icon: 'receipt' },
] as const satisfies readonly { key: string; icon: IconName }[];

export function HomePage() {
  const { t } = useTranslation('home');
  const signedIn = useAppSelector(selectIsLoggedIn);
  return (
    <>
      <section className="hero" aria-labelledby="hero-title">
        <div className="container hero__inner">
          <div className="hero__copy">
            <p className="eyebrow">{t('eyebrow')}</p>
            <TypingHeadline
              lead={t('headline.lead')}
              phrases={phrases.map((key) => t(`headline.phrases.${key}`))}
              label={t('headline.label')}
            />
            <p className="hero__lead">{t('lead')}</p>
            <p className="hero__actions">
              <Link className="button" to="/investment-plans">
                {t('seePlans')}
              </Link>
              <Link className="button button--secondary" to="/how-it-works">
                {t('howItWorks')}
              </Link>
            </p>
          </div>
          <div className="hero__art">
            <HeroArt />
          </div>
        </div>
      </section>

      <ActivityTicker className="container" />

      <InvestorCounts className="container" />

      <HydrateLater name="features">
        {() => (
          <section className="container section render-when-near" aria-labelledby="features-title">
            <p className="eyebrow">{t('features.eyebrow')}</p>
            <h2 id="features-title">{t('features.title')}</h2>
            <ul className="card-grid">
              {features.map((feature) => (
                <li key={feature.key} className="feature-card">
                  <span className="feature-card__icon">
                    <Icon name={feature.icon} />
                  </span>
                  <h3>{t(`features.${feature.key}.title`)}</h3>
                  <p>{t(`features.${feature.key}.text`)}</p>
                </li>
              ))}
            </ul>
          </section>
        )}
      </HydrateLater>

      <HydrateLater name="steps">
        {() => (
          <section className="container section render-when-near" aria-labelledby="steps-title">
            <h2 id="steps-title">{t('steps.title')}</h2>
            <ol className="steps">
              {steps.map((step) => (
                <li key={step} className="steps__item">
                  <h3>{t(`steps.${step}.title`)}</h3>
                  <p>{t(`steps.${step}.text`)}</p>
                </li>
              ))}
            </ol>
          </section>
        )}
      </HydrateLater>

      <HydrateLater name="trust">
        {() => (
          <section className="section render-when-near" aria-labelledby="trust-title">
            <div className="container trust">
              <div className="trust__intro">
                <p className="eyebrow">{t('trust.eyebrow')}</p>
                <h2 id="trust-title">{t('trust.title')}</h2>
                <p className="muted">{t('trust.intro')}</p>
                <TrustArt />
              </div>
              <ul className="trust__list">
                {trust.map((item) => (
                  <li key={item} className="trust__item">
                    <h3>{t(`trust.${item}.title`)}</h3>
                    <p>{t(`trust.${item}.text`)}</p>
                  </li>
                ))}
              </ul>
            </div>
          </section>
        )}
      </HydrateLater>

      <HydrateLater name="why">
        {() => (
          <section className="container section render-when-near" aria-labelledby="why-title">
            <p className="eyebrow">{t('why.eyebrow')}</p>
            <h2 id="why-title">{t('why.title')}</h2>
            <ul className="card-grid card-grid--three">
              {reasons.map((reason) => (
                <li key={reason.key} className="feature-card feature-card--plain">
                  <span className="feature-card__icon feature-card__icon--accent">
                    <Icon name={reason.icon} />
                  </span>
                  <h3>{t(`why.${reason.key}.title`)}</h3>
                  <p>{t(`why.${reason.key}.text`)}</p>
                </li>
              ))}
            </ul>
          </section>
        )}
      </HydrateLater>

      <HydrateLater name="testimonials">
        {() => (
          <div className="container section render-when-near">
            <TestimonialsSection />
          </div>
        )}
      </HydrateLater>

      <HydrateLater name="team">
        {() => (
          <div className="container render-when-near">
            <TeamSection />
          </div>
        )}
      </HydrateLater>

      <HydrateLater name="referral">
        {() => (
          <section className="container section render-when-near" aria-labelledby="referral-title">
            <div className="referral-prompt">
              <div>
                <h2 id="referral-title">{t('referral.title')}</h2>
                <p>{t('referral.text')}</p>
              </div>
              {signedIn ? (
                <Link className="button" to="/referrals">
                  {t('referral.getLink')}
                </Link>
              ) : (
                <Link className="button" to="/register">
                  {t('referral.register')}
                </Link>
              )}
            </div>
          </section>
        )}
      </HydrateLater>

      <HydrateLater name="faq">
        {() => (
          <div className="container render-when-near">
            <FaqSection />
          </div>
        )}
      </HydrateLater>

      <HydrateLater name="risk">
        {() => (
          <section className="container section render-when-near" aria-labelledby="risk-title">
            <div className="notice">
              <h2 id="risk-title">{t('risk.title')}</h2>
              <p>{t('risk.text')}</p>
            </div>
          </section>
        )}
      </HydrateLater>
    </>
  );
}
