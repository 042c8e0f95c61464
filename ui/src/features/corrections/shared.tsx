import type { ReactNode } from 'react';
import { NavLink, useParams } from 'react-router';
import { useGetUserMoneyQuery, type UserMoney } from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { QueryState } from '../../components/QueryState';
import { useTranslation } from '../../i18n';

// The staff pages of one user's money (docs/staff.md, "Corrections" and "Fees"): the balance
// correction, the returns with their captured terms, and the fees. Each reads the account as it
// stands now (GET /api/users/money/{id}) and shares this frame: who, their figures, and links
// between the three pages.

// Whole cents of a positive amount with at most two decimals, or null.
export function cents(text: string): bigint | null {
  const m = /^(\d+)(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!m) return null;
  return BigInt(m[1]!) * 100n + BigInt((m[2] ?? '').padEnd(2, '0'));
}

// "12.5" → "12.50"; the amount as the server reads it.
export function plain(c: bigint): string {
  const negative = c < 0n;
  const abs = negative ? -c : c;
  return `${negative ? '-' : ''}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
}

export function useUserID() {
  return useParams().id ?? '';
}

function Figures({ money }: { money: UserMoney }) {
  const { t } = useTranslation('corrections');
  const b = money.balances;
  const rows: [string, string][] = [
    [t('figures.available'), b.available],
    [t('figures.held'), b.held],
    [t('figures.invested'), b.invested],
    [t('figures.returns'), b.returns],
    [t('figures.fees'), b.fees],
    [t('figures.adjustments'), b.adjustments],
  ];
  return (
    <dl className="facts" data-testid="user-money-figures">
      {rows.map(([term, value]) => (
        <div key={term} className="facts__row">
          <dt>{term}</dt>
          <dd>
            <Amount amount={value} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

export function UserMoneyFrame({ titleId, title, children }: { titleId: string; title: string; children: (money: UserMoney) => ReactNode }) {
  const { t } = useTranslation('corrections');
  const id = useUserID();
  const query = useGetUserMoneyQuery({ id }, { skip: !id });
  const base = encodeURIComponent(id);
  return (
    <section className="page container page--narrow stack" aria-labelledby={titleId}>
      <QueryState query={query} loading={t('loading')} failed={t('loadFailed')} heading={<h1 id={titleId}>{title}</h1>}>
        {(money) => (
          <>
            <header className="stack">
              <p className="eyebrow">{t('eyebrow', { name: money.user.name || t('unnamed') })}</p>
              <h1 id={titleId}>{title}</h1>
              <nav aria-label={t('nav.label')} className="button-row staff-money-nav">
                <NavLink className="button button--secondary" to={`/edit-user-balance/${base}`} end>
                  {t('nav.correction')}
                </NavLink>
                <NavLink className="button button--secondary" to={`/edit-balance/${base}`} end>
                  {t('nav.returns')}
                </NavLink>
                <NavLink className="button button--secondary" to={`/update-fee/${base}`} end>
                  {t('nav.fees')}
                </NavLink>
              </nav>
            </header>
            <section className="panel">
              <Figures money={money} />
            </section>
            {children(money)}
          </>
        )}
      </QueryState>
    </section>
  );
}
