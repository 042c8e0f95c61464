import { useState } from 'react';
import { useBeginPasskeyLoginMutation, useLoginWithPasskeyMutation } from '../../api/enhanced';
import { FormError, useFormError } from '../../components/form/FormError';
import { useRunMutation } from '../../components/useRunMutation';
import { useTranslation } from '../../i18n';
import { getPasskey, isPasskeyDismissed, passkeysSupported } from './webauthn';

// "Sign in with a passkey": no e-mail address first, the browser offers the passkeys it holds
// for this site, and the one chosen names its account. A passkey is a complete sign-in (no
// e-mailed code, no authenticator code; docs/identity.md). On success RequireGuest takes the
// person on, as after a password sign-in.
export function PasskeySignIn() {
  const { t } = useTranslation('passkeys');
  const run = useRunMutation();
  const [begin, { isLoading: beginning }] = useBeginPasskeyLoginMutation();
  const [finish, { isLoading: finishing }] = useLoginWithPasskeyMutation();
  const [waiting, setWaiting] = useState(false);
  const [formError, setFormError] = useFormError();
  const [supported] = useState(passkeysSupported);
  if (!supported) return null;
  const busy = beginning || finishing || waiting;

  const signIn = async () => {
    if (busy) return;
    const ceremony = await run(begin(), { fallback: t('signInFailed'), formError: setFormError });
    if (!ceremony.ok) return;
    let credential: Record<string, unknown>;
    setWaiting(true);
    try {
      credential = await getPasskey(ceremony.data.publicKey);
    } catch (error) {
      setFormError(isPasskeyDismissed(error) ? null : t('signInFailed'));
      return;
    } finally {
      setWaiting(false);
    }
    await run(finish({ passkeyAssertion: { challengeId: ceremony.data.challengeId, credential } }), {
      fallback: t('signInFailed'),
      success: t('signedIn'),
      formError: setFormError,
    });
  };

  return (
    <div className="auth-alt">
      <FormError message={formError} />
      <button type="button" className="button button--block button--secondary" aria-disabled={busy || undefined} onClick={() => void signIn()}>
        {busy ? t('signingIn') : t('signIn')}
      </button>
    </div>
  );
}
