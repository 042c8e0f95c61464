import { Link } from 'react-router';

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

export function HomePage() {
  return (
    <>
      <section className="hero" aria-labelledby="hero-title">
        <div className="container">
          <h1 id="hero-title">Fixed-term crypto savings plans, explained plainly</h1>
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
      </section>

      <section className="container section" aria-labelledby="steps-title">
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

      <section className="container section" aria-labelledby="risk-title">
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
