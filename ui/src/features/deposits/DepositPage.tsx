import { useState, type ChangeEvent, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useCreateDepositMutation, useListDepositAddressesQuery, type Deposit, type DepositAddress } from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { newIdempotencyKey } from '../../components/idempotencyKey';
import { QrCode } from '../../components/QrCode';
import { QueryState } from '../../components/QueryState';
import { RedirectCountdown } from '../../components/RedirectCountdown';
import { CopyButton } from '../../components/CopyButton';
import { FormError, useFormError } from '../../components/form/FormError';
import { useTranslation } from '../../i18n';
import { useRunMutation } from '../../components/useRunMutation';
import { useCurrentUser } from '../auth/session';
import { DepositDetails } from './DepositDetails';
import { needsOnChainAmount, routeLabel } from './depositWords';

// After a deposit is recorded the page goes to the dashboard after this many seconds.
export const REDIRECT_SECONDS = 3;

const keyOf = (a: DepositAddress) => `${a.asset}/${a.network}`;

function DepositForm({ addresses, onCreated }: { addresses: DepositAddress[]; onCreated: (d: Deposit) => void }) {
  const run = useRunMutation();
  const { t } = useTranslation('forms');
  const [formError, setFormError] = useFormError();
  const [create, { isLoading }] = useCreateDepositMutation();
  const [route, setRoute] = useState(addresses[0] ? keyOf(addresses[0]) : '');
  const [amount, setAmount] = useState('');
  const [onChainAmount, setOnChainAmount] = useState('');
  const [txHash, setTxHash] = useState('');
  const chosen = addresses.find((a) => keyOf(a) === route);
  // One Idempotency-Key per deposit as typed: sending the same form again after a lost answer
  // records it once; any edit makes it a new request with a new key.
  const [key, setKey] = useState(newIdempotencyKey);
  const edit = (set: (value: string) => void) => (event: ChangeEvent<HTMLInputElement | HTMLSelectElement>) => {
    set(event.target.value);
    setKey(newIdempotencyKey());
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!chosen || isLoading) return;
    const outcome = await run(
      create({
        'Idempotency-Key': key,
        createDepositRequest: {
          amount: amount.trim(),
          asset: chosen.asset,
          network: chosen.network,
          ...(needsOnChainAmount(chosen.asset) ? { onChainAmount: onChainAmount.trim() } : {}),
          ...(txHash.trim() ? { txHash: txHash.trim() } : {}),
        },
      }),
      { fallback: 'Error processing payment.', success: 'Deposit recorded. Staff will confirm it once it arrives.', formError: setFormError },
    );
    if (outcome.ok) onCreated(outcome.data);
  };

  return (
    <form className="form" onSubmit={(e) => void submit(e)} noValidate>
      <FormError message={formError} />
      <div className="field">
        <label className="field__label" htmlFor="deposit-route">
          Asset and network
        </label>
        <select id="deposit-route" className="field__input field__select" value={route} onChange={edit(setRoute)}>
          {addresses.map((a) => (
            <option key={keyOf(a)} value={keyOf(a)}>
              {routeLabel(a.asset, a.network)}
            </option>
          ))}
        </select>
      </div>
      {chosen ? (
        <div className="panel" data-testid="deposit-address">
          <h2 className="panel__title">Send {routeLabel(chosen.asset, chosen.network)} to this address</h2>
          <QrCode value={chosen.address} label={`QR code of the ${chosen.asset} deposit address`} />
          <p className="break-anywhere">
            <code>{chosen.address}</code>
          </p>
          <CopyButton text={chosen.address} label={t('copy.address')} copiedMessage={t('copy.addressCopied')} />
          <p className="muted">Only send {chosen.asset} on this network; anything else may be lost.</p>
        </div>
      ) : null}
      <div className="field">
        <label className="field__label" htmlFor="deposit-amount">
          Amount in US dollars
        </label>
        <input id="deposit-amount" className="field__input" inputMode="decimal" value={amount} onChange={edit(setAmount)} required />
      </div>
      {chosen && needsOnChainAmount(chosen.asset) ? (
        <div className="field">
          <label className="field__label" htmlFor="deposit-onchain">
            Amount of {chosen.asset} you sent
          </label>
          <p className="field__hint">We have no live price for {chosen.asset}; staff credit what actually arrives.</p>
          <input id="deposit-onchain" className="field__input" inputMode="decimal" value={onChainAmount} onChange={edit(setOnChainAmount)} required />
        </div>
      ) : null}
      <div className="field">
        <label className="field__label" htmlFor="deposit-txhash">
          Transaction hash<span className="field__optional"> (optional)</span>
        </label>
        <input id="deposit-txhash" className="field__input" value={txHash} onChange={edit(setTxHash)} autoCapitalize="none" spellCheck={false} />
      </div>
      <button type="submit" className="button" aria-disabled={isLoading || !chosen || undefined}>
        {isLoading ? 'Sending…' : 'Confirm deposit'}
      </button>
    </form>
  );
}

export function DepositPage() {
  const addresses = useListDepositAddressesQuery();
  const { data: user } = useCurrentUser();
  const [created, setCreated] = useState<Deposit | null>(null);
  return (
    <section className="page container page--narrow" aria-labelledby="deposit-title">
      <h1 id="deposit-title">Fund Wallet</h1>
      {user && !user.isVerified && !created ? (
        // The server refuses deposits before the e-mail is verified; say so before any typing.
        <div className="panel panel--warning" data-testid="deposit-unverified">
          <p>Please verify your email address before making a deposit.</p>
          <Link to="/my-account">Go to your dashboard to resend the verification e-mail</Link>
        </div>
      ) : created ? (
        <>
          <DepositDetails deposit={created} />
          <p>
            Your deposit of <Amount amount={created.amount} /> is waiting for staff to confirm it arrived. We will e-mail you.
          </p>
          <RedirectCountdown seconds={REDIRECT_SECONDS} />
        </>
      ) : (
        <>
          <p className="muted">
            Send crypto to our address, then tell us how much you sent. Staff confirm it once it arrives and your balance is
            credited.
          </p>
          <QueryState
            query={addresses}
            loading="Loading the deposit addresses…"
            failed="The deposit addresses could not be loaded"
            empty={{ when: (data) => data.addresses.length === 0, message: 'Deposits are not available at the moment.' }}
          >
            {(data) => <DepositForm addresses={data.addresses} onCreated={setCreated} />}
          </QueryState>
        </>
      )}
    </section>
  );
}
