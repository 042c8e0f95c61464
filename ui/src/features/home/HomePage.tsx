import { Link } from 'react-router';
import { useAppSelector } from '../../app/hooks';
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
// sections, inserted where the comments below say.

const headline = {
  lead: 'Fixed-term crypto savings plans,',
  phrases: ['explained plainly.', 'with fixed returns.', 'checked by real people.'],
  label: 'Fixed-term crypto savings plans, explained plainly',
};

const features: { icon: IconName; title: string; text: string }[] = [
  {
    icon: 'calendar',
    title: 'A fixed term',
    text: 'Each plan runs for a set number of days. You see the term before you commit, and the end date once it starts.',
  },
  {
    icon: 'lock',
    title: 'A return known up front',
    text: "The return is set by the plan's terms when your investment starts, and it never changes afterwards.",
  },
  {
    icon: 'receipt',
    title: 'Fees shown before you confirm',
    text: 'Fees come only from a published schedule, and you see each one and what you will receive before you say yes.',
  },
  {
    icon: 'wallet',
    title: 'Your money back, with its return',
    text: 'When the term ends, the amount you put in and its return move to your available balance automatically.',
  },
];

const steps = [
  {
    title: 'Open and verify your account',
    text: 'Sign up, confirm your e-mail address and complete a short identity check. Both are needed before you can invest.',
  },
  {
    title: 'Fund your wallet and choose a plan',
    text: 'Deposit crypto, then pick a plan. You see its term, its fixed return and any fees before you confirm.',
  },
  {
    title: 'Get paid when the term ends',
    text: 'Your money and its return are added to your available balance. Withdraw it, or start a new plan.',
  },
];

const trust = [
  {
    title: 'Deposits approved by staff',
    text: 'A member of staff confirms every deposit before it reaches your balance, and approves every investment before it starts.',
  },
  {
    title: 'Identity checks',
    text: 'Everyone who invests has confirmed their e-mail and passed an identity check, reviewed by our staff.',
  },
  {
    title: 'Published fees',
    text: 'There is one fee schedule, published and the same for everyone. Staff can waive a fee, never invent one.',
  },
  {
    title: 'A history that is never rewritten',
    text: 'Every deposit, investment, fee and correction is recorded as a permanent entry. Corrections are new entries with a reason you can read.',
  },
];

const reasons: { icon: IconName; title: string; text: string }[] = [
  {
    icon: 'book',
    title: 'Made for beginners',
    text: 'Plain words instead of jargon, and each step explains what happens next and why.',
  },
  {
    icon: 'people',
    title: 'Real people behind every decision',
    text: 'Deposits, investments, withdrawals and identity checks are decided by a member of our staff, not by an algorithm.',
  },
  {
    icon: 'receipt',
    title: 'Every movement on record',
    text: 'Your transaction history shows each deposit, investment, return, fee and adjustment, newest first.',
  },
];

export function HomePage() {
  const signedIn = useAppSelector(selectIsLoggedIn);
  return (
    <>
      <section className="hero" aria-labelledby="hero-title">
        <div className="container hero__inner">
          <div className="hero__copy">
            <p className="eyebrow">Crypto savings for beginners</p>
            <TypingHeadline {...headline} />
            <p className="hero__lead">
              Choose a plan, see its term and its fixed return before you commit, and receive your money plus that
              return when the term ends.
            </p>
            <p className="hero__actions">
              <Link className="button" to="/investment-plans">
                See the plans
              </Link>
              <Link className="button button--secondary" to="/how-it-works">
                How it works
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

      <section className="container section render-when-near" aria-labelledby="features-title">
        <p className="eyebrow">What you get</p>
        <h2 id="features-title">Savings plans without the small print</h2>
        <ul className="feature-grid">
          {features.map((feature) => (
            <li key={feature.title} className="feature-card">
              <span className="feature-card__icon">
                <Icon name={feature.icon} />
              </span>
              <h3>{feature.title}</h3>
              <p>{feature.text}</p>
            </li>
          ))}
        </ul>
      </section>

      <section className="container section render-when-near" aria-labelledby="steps-title">
        <h2 id="steps-title">How it works in three steps</h2>
        <ol className="steps">
          {steps.map((step) => (
            <li key={step.title} className="steps__item">
              <h3>{step.title}</h3>
              <p>{step.text}</p>
            </li>
          ))}
        </ol>
      </section>

      <section className="section render-when-near" aria-labelledby="trust-title">
        <div className="container trust">
          <div className="trust__intro">
            <p className="eyebrow">Trust</p>
            <h2 id="trust-title">Why you can trust the numbers</h2>
            <p className="muted">
              We would rather show you how Clearvest works than ask for your trust. These are the rules the platform
              is built on.
            </p>
            <TrustArt />
          </div>
          <ul className="trust__list">
            {trust.map((item) => (
              <li key={item.title} className="trust__item">
                <h3>{item.title}</h3>
                <p>{item.text}</p>
              </li>
            ))}
          </ul>
        </div>
      </section>

      <section className="container section render-when-near" aria-labelledby="why-title">
        <p className="eyebrow">Why Clearvest</p>
        <h2 id="why-title">Why choose us</h2>
        <ul className="feature-grid feature-grid--three">
          {reasons.map((reason) => (
            <li key={reason.title} className="feature-card feature-card--plain">
              <span className="feature-card__icon feature-card__icon--accent">
                <Icon name={reason.icon} />
              </span>
              <h3>{reason.title}</h3>
              <p>{reason.text}</p>
            </li>
          ))}
        </ul>
      </section>

      <div className="container section render-when-near">
        <TestimonialsSection />
      </div>

      <div className="container render-when-near">
        <TeamSection />
      </div>

      <section className="container section render-when-near" aria-labelledby="referral-title">
        <div className="referral-prompt">
          <div>
            <h2 id="referral-title">Refer a friend and earn up to $5</h2>
            <p>
              Share your referral link. When a friend you invited makes their first confirmed deposit, a bonus is added
              to your balance.
            </p>
          </div>
          {signedIn ? (
            <Link className="button" to="/referrals">
              Get your referral link
            </Link>
          ) : (
            <Link className="button" to="/register">
              Create an account
            </Link>
          )}
        </div>
      </section>

      <div className="container render-when-near">
        <FaqSection />
      </div>

      <section className="container section render-when-near" aria-labelledby="risk-title">
        <div className="notice">
          <h2 id="risk-title">Know the risks</h2>
          <p>
            Crypto assets are volatile. Returns are fixed by the plan you choose, but you can lose money if the
            platform fails. Only put in money you can afford to lose.
          </p>
        </div>
      </section>
    </>
  );
}
