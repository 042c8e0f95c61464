// What every investor reads before money moves: on the plans page, and again on the confirmation
// step of a new investment, where it must be acknowledged.
export function RiskNotice() {
  return (
    <section className="notice plans__risk" aria-labelledby="plans-risk-title">
      <h2 id="plans-risk-title">Know the risks before you invest</h2>
      <ul>
        <li>
          Crypto savings can lose value. A plan’s return is what its terms say it pays, in US dollars, at the end of
          the term. It is not a promise about the price of any crypto asset, and you can lose money if the platform
          fails or cannot pay.
        </li>
        <li>
          Your money stays in the plan for its whole term and is paid back, with the return, when the term ends. If you
          end it early, you get the amount you put in back and give up the whole return.
        </li>
        <li>
          The annual rate is there to compare plans of different lengths: it is the rate for the term spread over a
          year (rate × 365 ÷ days), without compounding. You earn the rate for the term, once.
        </li>
        <li>Only put in money you can afford to lose.</li>
      </ul>
    </section>
  );
}
