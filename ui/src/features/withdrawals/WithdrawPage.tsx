import { useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useCreateWithdrawalMutation, useLazyQuoteWithdrawalQuery, useQuoteWithdrawalQuery, type Withdrawal, type WithdrawalQuote } from '../../api/enhanced';
import { apiErrorInfo, errorMessage, type ApiErrorInfo } from '../../api/errors';
import { Amount } from '../../components/Amount';
import { FormError, useFormError } from '../../components/form/FormError';
import { TextField } from '../../components/form/TextField';
import { newIdempotencyKey } from '../../components/idempotencyKey';
import { formatUsd } from '../../components/money';
import { QueryState } from '../../components/QueryState';
import { RedirectCountdown } from '../../components/RedirectCountdown';
import { useRunMutation } from '../../components/useRunMutation';
import { Trans, useLocale, useTranslation } from '../../i18n';
import { useCurrentUser } from '../auth/session';
import { useStepUpFirst } from '../auth/useStepUpFirst';
import { payoutRoutes, usePayoutLabel } from './withdrawalWords';

// After a withdrawal is requested the page goes to the dashboard after this many seconds.
export const REDIRECT_SECONDS = 3;

type Field = 'amount' | 'walletAddress';
type Errors = Partial<Record<Field, string>>;

interface Request {
  amount: string;
  network: string;
  walletAddress: string;
}

const errorIds: Record<Field, string> = { amount: 'withdraw-amount-error', walletAddress: 'withdraw-address-error' };

function fieldOf(raw: unknown): Field | undefined {
  const field = apiErrorInfo(raw).field;
  return field === 'amount' || field === 'walletAddress' ? field : undefined;
}

// The published fee schedule and the minimum, from the server (the quote without an amount), shown
// before Continue so nobody learns the price only at the end. The minimum is a rule, worded as
// one, never a line that could read like a charge.
function FeeSchedule({ network }: { network: string }) {
  const { t } = useTranslation('withdrawals');
  const { t: tc } = useTranslation('corrections');
  const locale = useLocale();
  const schedule = useQuoteWithdrawalQuery({ withdrawalQuoteRequest: { network } });
  return (
    <QueryState query={schedule} loading={t('fees.loading')} failed={t('fees.failed')}>
      {(q) => (
        <section className="panel fee-schedule" aria-labelledby="withdraw-fees-title" data-testid="withdraw-fee-schedule">
          <h2 id="withdraw-fees-title" className="panel__title">
            {t('fees.title')}
          </h2>
          <dl className="facts">
            <div className="facts__row">
              <dt>{t('fees.fee')}</dt>
              <dd data-testid="withdraw-fee-rule">{q.schedule}</dd>
            </div>
          </dl>
          {q.feeExempt ? (
            <p data-testid="withdraw-fee-exempt">
              <strong>{tc('investor.exempt')}</strong>
            </p>
          ) : null}
          <p data-testid="withdraw-minimum-rule">{t('fees.minimum', { minimum: formatUsd(q.minimum, locale) })}</p>
          <p className="muted">{t('fees.note')}</p>
        </section>
      )}
    </QueryState>
  );
}

// The form: amount, network and address. The server checks the address when its field loses
// focus, so a mistyped address is caught before the amount is typed; Continue asks the server
// for the fee, which the confirmation step shows.
function RequestForm({ initial, available, onQuoted }: { initial: Request; available: string; onQuoted: (r: Request, q: WithdrawalQuote) => void }) {
  const [formError, setFormError] = useFormError();
  const { t } = useTranslation('withdrawals');
  const payoutLabel = usePayoutLabel();
  const locale = useLocale();
  const refs = { amount: useRef<HTMLInputElement>(null), walletAddress: useRef<HTMLInputElement>(null) };
  const [quote] = useLazyQuoteWithdrawalQuery();
  // Its own flag, not the query's: the address check on blur may still be running when Continue
  // is pressed, and that must not swallow the press.
  const [submitting, setSubmitting] = useState(false);
  const [request, setRequest] = useState(initial);
  const [errors, setErrors] = useState<Errors>({});
  const set = (field: keyof Request, value: string) => {
    setRequest((r) => ({ ...r, [field]: value }));
    setErrors((e) => (field === 'amount' ? { ...e, amount: undefined } : { ...e, walletAddress: undefined }));
  };

  const checkAddress = async () => {
    const walletAddress = request.walletAddress.trim();
    if (!walletAddress) return;
    try {
      await quote({ withdrawalQuoteRequest: { network: request.network, walletAddress } }).unwrap();
    } catch (raw) {
      if (fieldOf(raw) === 'walletAddress') setErrors((e) => ({ ...e, walletAddress: errorMessage(raw, t('form.addressInvalid')) }));
    }
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (submitting) return;
    const trimmed = { ...request, amount: request.amount.trim(), walletAddress: request.walletAddress.trim() };
    const missing: Errors = {};
    if (!trimmed.amount) missing.amount = t('form.amountRequired');
    if (!trimmed.walletAddress) missing.walletAddress = t('form.addressRequired');
    if (missing.amount || missing.walletAddress) {
      setErrors(missing);
      (missing.amount ? refs.amount : refs.walletAddress).current?.focus();
      return;
    }
    setSubmitting(true);
    setFormError(null);
    try {
      const q = await quote({ withdrawalQuoteRequest: { amount: trimmed.amount, network: trimmed.network, walletAddress: trimmed.walletAddress } }).unwrap();
      onQuoted(trimmed, q);
    } catch (raw) {
      setSubmitting(false);
      const message = errorMessage(raw, t('form.failed'));
      const field = fieldOf(raw);
      if (field) {
        setErrors({ [field]: message });
        refs[field].current?.focus();
      } else setFormError(message);
    }
  };

  const error = (field: Field) => (errors[field] ? { invalid: true, message: errors[field], describedBy: errorIds[field] } : undefined);
  return (
    <form className="form" onSubmit={(e) => void submit(e)} noValidate>
      <FormError message={formError} />
      <TextField
        ref={refs.amount}
        label={t('form.amountLabel')}
        hint={t('form.amountHint', { available: formatUsd(available, locale) })}
        inputMode="decimal"
        value={request.amount}
        onChange={(e) => set('amount', e.target.value)}
        error={error('amount')}
      />
      <div className="field">
        <label className="field__label" htmlFor="withdraw-network">
          {t('form.network')}
        </label>
        <select id="withdraw-network" className="field__input field__select" value={request.network} onChange={(e) => set('network', e.target.value)}>
          {payoutRoutes.map((r) => (
            <option key={r.network} value={r.network}>
              {payoutLabel(r.network)}
            </option>
          ))}
        </select>
      </div>
      <TextField
        ref={refs.walletAddress}
        label={t('form.addressLabel')}
        hint={t('form.addressHint', { network: payoutLabel(request.network) })}
        value={request.walletAddress}
        onChange={(e) => set('walletAddress', e.target.value)}
        onBlur={() => void checkAddress()}
        autoCapitalize="none"
        autoComplete="off"
        spellCheck={false}
        error={error('walletAddress')}
      />
      <FeeSchedule network={request.network} />
      <button type="submit" className="button" aria-disabled={submitting || undefined}>
        {submitting ? t('form.checking') : t('form.continue')}
      </button>
    </form>
  );
}

// Refusals the page shows in place of the form rather than in a toast: the investor cannot fix
// them by changing the request.
const BLOCKING_CODES = ['withdrawal_cooldown', 'identity_check_required'];

export interface Blocked {
  code: string;
  message: string;
}

// The confirmation step: the server's quote in words, then the request, which carries the fee
// shown (the server refuses it with the new figures if the schedule now charges another). One
// Idempotency-Key per confirmation step, so a double click or a retried request holds the money
// once. A step-up the server asks for is handled by the base query (the dialog, then the request
// again).
function Confirm({
  request,
  quote,
  notice,
  onBack,
  onCreated,
  onQuoteChanged,
  onBlocked,
}: {
  request: Request;
  quote: WithdrawalQuote;
  notice: string | null;
  onBack: () => void;
  onCreated: (w: Withdrawal) => void;
  onQuoteChanged: (q: WithdrawalQuote, message: string) => void;
  onBlocked: (b: Blocked) => void;
}) {
  const run = useRunMutation();
  const { t } = useTranslation('withdrawals');
  const { t: tc } = useTranslation('corrections');
  const payoutLabel = usePayoutLabel();
  const locale = useLocale();
  const [formError, setFormError] = useFormError();
  const [create, { isLoading }] = useCreateWithdrawalMutation();
  const [key] = useState(newIdempotencyKey);
  const handled = (e: ApiErrorInfo) => (e.code === 'fee_changed' && e.withdrawalQuote !== undefined) || BLOCKING_CODES.includes(e.code ?? '');
  const stepUpFirst = useStepUpFirst();
  const confirm = async () => {
    if (isLoading) return;
    if (!(await stepUpFirst())) return;
    const outcome = await run(create({ 'Idempotency-Key': key, createWithdrawalRequest: { ...request, fee: quote.fee ?? '' } }), {
      fallback: t('form.failed'),
      success: t('confirm.success'),
      handled,
      formError: setFormError,
    });
    if (outcome.ok) onCreated(outcome.data);
    else if (outcome.error.code === 'fee_changed' && outcome.error.withdrawalQuote) onQuoteChanged(outcome.error.withdrawalQuote, outcome.message);
    else if (handled(outcome.error)) onBlocked({ code: outcome.error.code ?? '', message: outcome.message });
  };
  return (
    <div className="panel" data-testid="withdraw-confirm">
      <h2 className="panel__title">{t('confirm.title')}</h2>
      <FormError message={formError} />
      {notice ? (
        <p className="panel panel--warning" role="alert" data-testid="withdraw-quote-changed">
          {notice}
        </p>
      ) : null}
      <p data-testid="withdraw-summary">
        <Trans t={t} i18nKey="confirm.summary" values={{ receives: formatUsd(quote.receives, locale), fee: formatUsd(quote.fee, locale) }} components={{ strong: <strong /> }} />
      </p>
      <dl className="facts">
        <div className="facts__row">
          <dt>{t('confirm.taken')}</dt>
          <dd>
            <Amount amount={quote.amount} />
          </dd>
        </div>
        <div className="facts__row">
          <dt>{t('confirm.fee')}</dt>
          <dd data-testid="withdraw-fee">
            <Amount amount={quote.fee} />
            {quote.feeExempt ? <span className="muted"> · {tc('investor.exempt')}</span> : null}
          </dd>
        </div>
        <div className="facts__row">
          <dt>{t('confirm.receives')}</dt>
          <dd data-testid="withdraw-receives">
            <strong>
              <Amount amount={quote.receives} />
            </strong>
          </dd>
        </div>
        <div className="facts__row">
          <dt>{t('confirm.paidIn')}</dt>
          <dd>{payoutLabel(request.network)}</dd>
        </div>
        <div className="facts__row">
          <dt>{t('confirm.toAddress')}</dt>
          <dd>
            <code className="break-anywhere">{quote.walletAddress ?? request.walletAddress}</code>
          </dd>
        </div>
        <div className="facts__row">
          <dt>{t('confirm.schedule')}</dt>
          <dd>{quote.schedule}</dd>
        </div>
      </dl>
      <p className="muted" data-testid="withdraw-minimum">
        <strong>{t('confirm.minimum', { minimum: formatUsd(quote.minimum, locale) })}</strong> · {t('confirm.minimumNote')}
      </p>
      <p className="muted">{t('confirm.staff')}</p>
      <div className="button-row">
        <button type="button" className="button" aria-disabled={isLoading || undefined} onClick={() => void confirm()}>
          {isLoading ? t('confirm.sending') : t('confirm.submit')}
        </button>
        <button type="button" className="button button--secondary" onClick={onBack} disabled={isLoading}>
          {t('confirm.back')}
        </button>
      </div>
    </div>
  );
}

export function WithdrawPage() {
  const { data: user } = useCurrentUser();
  const [request, setRequest] = useState<Request>({ amount: '', network: payoutRoutes[0].network, walletAddress: '' });
  const [quoted, setQuoted] = useState<WithdrawalQuote | null>(null);
  const [notice, setNotice] = useState<{ text: string; round: number } | null>(null);
  const [created, setCreated] = useState<Withdrawal | null>(null);
  const [blocked, setBlocked] = useState<Blocked | null>(null);
  const { t } = useTranslation('withdrawals');
  return (
    <section className="page container page--narrow" aria-labelledby="withdraw-title">
      <h1 id="withdraw-title">{t('page.title')}</h1>
      {user ? (
        <p data-testid="withdraw-available">
          <Trans t={t} i18nKey="page.available" values={{ balance: formatUsd(user.balance) }} components={{ strong: <strong /> }} />
        </p>
      ) : null}
      {user && !user.isVerified && !created ? (
        <div className="panel panel--warning" data-testid="withdraw-unverified">
          <p>{t('page.unverified')}</p>
          <Link to="/my-account">{t('page.unverifiedLink')}</Link>
        </div>
      ) : created ? (
        <div className="panel">
          <p>
            <Trans
              t={t}
              i18nKey="page.created"
              components={{ amount: <Amount amount={created.amount} />, receives: <Amount amount={created.receives} />, fee: <Amount amount={created.fee} /> }}
            />
          </p>
          <p>
            <Link to={`/withdrawal/${created._id}`}>{t('page.seeWithdrawal')}</Link>
          </p>
          <RedirectCountdown seconds={REDIRECT_SECONDS} />
        </div>
      ) : blocked ? (
        <div className="panel panel--warning" role="alert" data-testid="withdraw-blocked">
          <p>{blocked.message}</p>
          {blocked.code === 'identity_check_required' ? <Link to="/upload-kyc">{t('page.identityCheck')}</Link> : null}
          {blocked.code === 'withdrawal_cooldown' ? (
            <p>
              <Trans t={t} i18nKey="page.cooldown" components={{ support: <Link to="/support" /> }} />
            </p>
          ) : null}
        </div>
      ) : quoted ? (
        <Confirm
          // A new quote is a new confirmation step, with a key of its own.
          key={notice?.round ?? 0}
          request={request}
          quote={quoted}
          notice={notice?.text ?? null}
          onBack={() => {
            setQuoted(null);
            setNotice(null);
          }}
          onCreated={setCreated}
          onQuoteChanged={(q, text) => {
            setQuoted(q);
            setNotice((n) => ({ text, round: (n?.round ?? 0) + 1 }));
          }}
          onBlocked={setBlocked}
        />
      ) : (
        <RequestForm
          initial={request}
          available={user?.balance ?? '0'}
          onQuoted={(r, q) => {
            setRequest(r);
            setQuoted(q);
          }}
        />
      )}
    </section>
  );
}
