import { useState, type ChangeEvent, type FormEvent } from 'react';
import { Link } from 'react-router';
import {
  useCreateDepositMutation,
  useGetMarketCandlesQuery,
  useListDepositAddressesQuery,
  type Deposit,
  type DepositAddress,
} from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { CopyButton } from '../../components/CopyButton';
import { FormError, useFormError } from '../../components/form/FormError';
import { newIdempotencyKey } from '../../components/idempotencyKey';
import { formatUsd } from '../../components/money';
import { QrCode } from '../../components/QrCode';
import { QueryState } from '../../components/QueryState';
import { RedirectCountdown } from '../../components/RedirectCountdown';
import { useRunMutation } from '../../components/useRunMutation';
import { Trans, useLocale, useTranslation } from '../../i18n';
import { useCurrentUser } from '../auth/session';
import { DepositDetails } from './DepositDetails';
import { convertAmount, formatAgo, rateFrom, rateMarket, type AmountSide, type MarketRate } from './depositRate';
import { needsOnChainAmount, networkName, useRouteLabel } from './depositWords';

// After a deposit is recorded the page goes to the dashboard after this many seconds.
export const REDIRECT_SECONDS = 3;

const keyOf = (a: DepositAddress) => `${a.asset}/${a.network}`;

type Field = 'amount' | 'onChainAmount' | 'txHash';
const inputIds: Record<Field, string> = { amount: 'deposit-amount', onChainAmount: 'deposit-onchain', txHash: 'deposit-txhash' };

// The market rate of the chosen coin, when the market-data cache has one.
function useRate(asset: string): MarketRate | null {
  const market = rateMarket(asset);
  const candles = useGetMarketCandlesQuery({ symbol: market?.symbol ?? 'BTCUSDT' }, { skip: !market });
  return market ? rateFrom(candles.data) : null;
}

// What the investor should know before sending: the minimum, the confirmations the network needs
// and how long that usually takes (the server's figures, per network).
function DepositFacts({ minimum, chosen }: { minimum: string; chosen: DepositAddress }) {
  const { t } = useTranslation('deposits');
  const locale = useLocale();
  return (
    <dl className="facts" data-testid="deposit-facts" aria-label={t('facts.title')}>
      <div className="facts__row">
        <dt>{t('facts.minimum')}</dt>
        <dd data-testid="deposit-minimum">{formatUsd(minimum, locale)}</dd>
      </div>
      <div className="facts__row">
        <dt>{t('facts.confirmations')}</dt>
        <dd>{t('facts.confirmationsValue', { count: chosen.confirmations, network: networkName(chosen.network) })}</dd>
      </div>
      <div className="facts__row">
        <dt>{t('facts.time')}</dt>
        <dd>{t('facts.timeValue', { count: chosen.usualMinutes })}</dd>
      </div>
    </dl>
  );
}

// An address of the investor's own on a watched network: nothing to declare, the watcher
// credits what arrives (docs/chain.md). The minimum is left out: whatever arrives is credited.
function OwnAddress({ chosen }: { chosen: DepositAddress }) {
  const { t } = useTranslation('chain');
  const { t: tf } = useTranslation('forms');
  const { t: td } = useTranslation('deposits');
  const routeLabel = useRouteLabel();
  return (
    <div className="panel deposit-address deposit-address--own" data-testid="own-deposit-address">
      <h2 className="panel__title">{t('own.title', { route: routeLabel(chosen.asset, chosen.network) })}</h2>
      <p>{t('own.lead')}</p>
      <div className="deposit-address__qr">
        <QrCode value={chosen.address} label={td('form.qrLabel', { asset: chosen.asset })} />
      </div>
      <p className="break-anywhere">
        <code data-testid="address-text">{chosen.address}</code>
      </p>
      <CopyButton text={chosen.address} label={tf('copy.address')} copiedMessage={tf('copy.addressCopied')} />
      <p className="muted">{t('own.onlyThis', { asset: chosen.asset, network: networkName(chosen.network) })}</p>
      <p>{t('own.credited', { count: chosen.confirmations, minutes: chosen.usualMinutes })}</p>
      {chosen.asset !== 'USDT' ? <p className="muted">{t('own.rate', { asset: chosen.asset })}</p> : null}
      <Link className="button button--secondary" to="/my-account">
        {t('own.dashboard')}
      </Link>
    </div>
  );
}

function DepositForm({ addresses, minimum, onCreated }: { addresses: DepositAddress[]; minimum: string; onCreated: (d: Deposit) => void }) {
  const run = useRunMutation();
  const { t } = useTranslation('deposits');
  const routeLabel = useRouteLabel();
  const { t: tf } = useTranslation('forms');
  const locale = useLocale();
  const [formError, setFormError] = useFormError();
  const [create, { isLoading }] = useCreateDepositMutation();
  const [route, setRoute] = useState(addresses[0] ? keyOf(addresses[0]) : '');
  const [amount, setAmount] = useState('');
  const [onChainAmount, setOnChainAmount] = useState('');
  const [side, setSide] = useState<AmountSide>('usd');
  const [txHash, setTxHash] = useState('');
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  // The moment the page opened, for the rate's age ("2 minutes ago").
  const [openedAt] = useState(() => Date.now());
  const chosen = addresses.find((a) => keyOf(a) === route);
  const asset = chosen?.asset ?? '';
  const rate = useRate(asset);
  const market = rateMarket(asset);
  const oneAmount = Boolean(chosen && needsOnChainAmount(asset) && rate && market);
  // One Idempotency-Key per deposit as typed: sending the same form again after a lost answer
  // records it once; any edit makes it a new request with a new key.
  const [key, setKey] = useState(newIdempotencyKey);
  const edit = (field: Field | null, set: (value: string) => void) => (event: ChangeEvent<HTMLInputElement | HTMLSelectElement>) => {
    set(event.target.value);
    setKey(newIdempotencyKey());
    if (field) setErrors((e) => ({ ...e, [field]: undefined }));
  };
  const typed = side === 'usd' ? amount : onChainAmount;
  const converted = oneAmount && rate && market ? convertAmount(side, typed, rate.price, market.decimals) : null;

  const fail = (field: Field, message: string) => {
    setErrors({ [field]: message });
    document.getElementById(inputIds[field])?.focus();
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!chosen || isLoading) return;
    const usd = oneAmount ? (converted?.usd ?? '') : amount.trim();
    const coin = oneAmount ? (converted?.coin ?? '') : onChainAmount.trim();
    if (!usd) {
      fail(oneAmount && side === 'coin' ? 'onChainAmount' : 'amount', t('form.amountRequired'));
      return;
    }
    const outcome = await run(
      create({
        'Idempotency-Key': key,
        createDepositRequest: {
          amount: usd,
          asset: chosen.asset,
          network: chosen.network,
          ...(needsOnChainAmount(chosen.asset) ? { onChainAmount: coin } : {}),
          ...(txHash.trim() ? { txHash: txHash.trim() } : {}),
        },
      }),
      {
        fallback: t('form.failed'),
        success: t('form.done'),
        formError: setFormError,
        handled: (e) => {
          const field = e.field === 'amount' && oneAmount && side === 'coin' ? 'onChainAmount' : e.field;
          if (field !== 'amount' && field !== 'onChainAmount' && field !== 'txHash') return false;
          fail(field, e.message ?? t('form.failed'));
          return true;
        },
      },
    );
    if (outcome.ok) onCreated(outcome.data);
  };

  const fieldProps = (field: Field) => ({
    'aria-invalid': errors[field] ? true : undefined,
    'aria-describedby': errors[field] ? `deposit-${field}-error` : undefined,
  });
  const fieldError = (field: Field) =>
    errors[field] ? (
      <p id={`deposit-${field}-error`} className="field__error">
        {errors[field]}
      </p>
    ) : null;

  const routeField = (
    <div className="field">
      <label className="field__label" htmlFor="deposit-route">
        {t('form.route')}
      </label>
      <select id="deposit-route" className="field__input field__select" value={route} onChange={edit(null, setRoute)}>
        {addresses.map((a) => (
          <option key={keyOf(a)} value={keyOf(a)}>
            {routeLabel(a.asset, a.network)}
          </option>
        ))}
      </select>
    </div>
  );
  if (chosen?.own) {
    return (
      <div className="form">
        {routeField}
        <OwnAddress chosen={chosen} />
      </div>
    );
  }
  return (
    <form className="form" onSubmit={(e) => void submit(e)} noValidate>
      <FormError message={formError} />
      {routeField}
      {chosen ? (
        <div className="panel deposit-address" data-testid="deposit-address">
          <h2 className="panel__title">{t('form.sendTo', { route: routeLabel(chosen.asset, chosen.network) })}</h2>
          <div className="deposit-address__qr">
            <QrCode value={chosen.address} label={t('form.qrLabel', { asset: chosen.asset })} />
          </div>
          <p className="break-anywhere">
            <code>{chosen.address}</code>
          </p>
          <CopyButton text={chosen.address} label={tf('copy.address')} copiedMessage={tf('copy.addressCopied')} />
          <p className="muted">{t('form.onlyThis', { asset: chosen.asset })}</p>
          <DepositFacts minimum={minimum} chosen={chosen} />
        </div>
      ) : null}
      {oneAmount && rate ? (
        <>
          <fieldset className="field segmented" data-testid="deposit-amount-side">
            <legend className="field__label">{t('form.typeIn')}</legend>
            {(['usd', 'coin'] as const).map((s) => (
              <label key={s} className="segmented__option">
                <input
                  type="radio"
                  name="deposit-side"
                  value={s}
                  checked={side === s}
                  onChange={() => {
                    // Carry the figure over, so switching never loses what was typed.
                    if (converted) {
                      setAmount(converted.usd);
                      setOnChainAmount(converted.coin);
                    }
                    setSide(s);
                    setErrors({});
                  }}
                />
                <span>{s === 'usd' ? t('form.usdShort') : asset}</span>
              </label>
            ))}
          </fieldset>
          {side === 'usd' ? (
            <div className="field" data-invalid={errors.amount ? true : undefined}>
              <label className="field__label" htmlFor="deposit-amount">
                {t('form.usd')}
              </label>
              <input id="deposit-amount" className="field__input" inputMode="decimal" value={amount} onChange={edit('amount', setAmount)} {...fieldProps('amount')} />
              {fieldError('amount')}
            </div>
          ) : (
            <div className="field" data-invalid={errors.onChainAmount ? true : undefined}>
              <label className="field__label" htmlFor="deposit-onchain">
                {t('form.coin', { asset })}
              </label>
              <input id="deposit-onchain" className="field__input" inputMode="decimal" value={onChainAmount} onChange={edit('onChainAmount', setOnChainAmount)} {...fieldProps('onChainAmount')} />
              {fieldError('onChainAmount')}
            </div>
          )}
          <div className="deposit-conversion" data-testid="deposit-conversion" aria-live="polite">
            {converted ? (
              <p className="deposit-conversion__result">
                <Trans
                  t={t}
                  i18nKey={side === 'usd' ? 'form.computedCoin' : 'form.computedUsd'}
                  values={{ usd: formatUsd(converted.usd, locale), coin: converted.coin, asset }}
                  components={{ strong: <strong /> }}
                />
              </p>
            ) : null}
            <p className="muted" data-testid="deposit-rate">
              {t('form.rate', { asset, price: formatUsd(rate.price, locale), ago: formatAgo(rate.asOf, openedAt, locale) })}
            </p>
            <p className="muted">{t('form.rateNote')}</p>
          </div>
        </>
      ) : (
        <>
          <div className="field" data-invalid={errors.amount ? true : undefined}>
            <label className="field__label" htmlFor="deposit-amount">
              {t('form.usd')}
            </label>
            <input id="deposit-amount" className="field__input" inputMode="decimal" value={amount} onChange={edit('amount', setAmount)} required {...fieldProps('amount')} />
            {fieldError('amount')}
          </div>
          {chosen && needsOnChainAmount(chosen.asset) ? (
            <div className="field" data-invalid={errors.onChainAmount ? true : undefined}>
              <label className="field__label" htmlFor="deposit-onchain">
                {t('form.coin', { asset: chosen.asset })}
              </label>
              <p className="field__hint">{t('form.noRate', { asset: chosen.asset })}</p>
              <input
                id="deposit-onchain"
                className="field__input"
                inputMode="decimal"
                value={onChainAmount}
                onChange={edit('onChainAmount', setOnChainAmount)}
                required
                {...fieldProps('onChainAmount')}
              />
              {fieldError('onChainAmount')}
            </div>
          ) : null}
        </>
      )}
      <div className="field" data-invalid={errors.txHash ? true : undefined}>
        <label className="field__label" htmlFor="deposit-txhash">
          {t('form.txHash')}
          <span className="field__optional">{t('form.optional')}</span>
        </label>
        <input id="deposit-txhash" className="field__input" value={txHash} onChange={edit('txHash', setTxHash)} autoCapitalize="none" spellCheck={false} {...fieldProps('txHash')} />
        {fieldError('txHash')}
      </div>
      <button type="submit" className="button" aria-disabled={isLoading || !chosen || undefined}>
        {isLoading ? t('form.sending') : t('form.submit')}
      </button>
    </form>
  );
}

export function DepositPage() {
  const addresses = useListDepositAddressesQuery();
  const { data: user } = useCurrentUser();
  const { t } = useTranslation('deposits');
  const { t: tc } = useTranslation('chain');
  const [created, setCreated] = useState<Deposit | null>(null);
  const anyOwn = addresses.data?.addresses.some((a) => a.own) ?? false;
  return (
    <section className="page container page--narrow" aria-labelledby="deposit-title">
      <h1 id="deposit-title">{t('page.title')}</h1>
      {user && !user.isVerified && !created ? (
        // The server refuses deposits before the e-mail is verified; say so before any typing.
        <div className="panel panel--warning" data-testid="deposit-unverified">
          <p>{t('page.unverified')}</p>
          <Link to="/my-account">{t('page.unverifiedLink')}</Link>
        </div>
      ) : created ? (
        <>
          <DepositDetails deposit={created} />
          <p>
            <Trans t={t} i18nKey="page.waiting" components={{ amount: <Amount amount={created.amount} /> }} />
          </p>
          <RedirectCountdown seconds={REDIRECT_SECONDS} />
        </>
      ) : (
        <>
          <p className="muted">{anyOwn ? tc('own.pageLead') : t('page.lead')}</p>
          <QueryState
            query={addresses}
            loading={t('page.loading')}
            failed={t('page.failed')}
            empty={{ when: (data) => data.addresses.length === 0, message: t('page.empty') }}
          >
            {(data) => <DepositForm addresses={data.addresses} minimum={data.minimum} onCreated={setCreated} />}
          </QueryState>
        </>
      )}
    </section>
  );
}
