import { useState, type FormEvent } from 'react';
import { useSendAutomatedEmailMutation, useSendComposedEmailMutation, type EmailPreview } from '../../api/enhanced';
import { FormError, useFormError } from '../../components/form/FormError';
import { SelectField } from '../../components/form/SelectField';
import { SubmitButton } from '../../components/form/SubmitButton';
import { TextField } from '../../components/form/TextField';
import { formatDecimal } from '../../components/format';
import { newIdempotencyKey } from '../../components/idempotencyKey';
import { useRunMutation } from '../../components/useRunMutation';
import { useTranslation } from '../../i18n';
import { BroadcastList } from './BroadcastList';
import { BroadcastProgress } from './BroadcastProgress';
import { UserPicker, type PickedUser } from './UserPicker';

type Kind = 'verified' | 'role' | 'user';
type Role = 'subscriber' | 'author' | 'admin';
const ROLES: readonly Role[] = ['subscriber', 'author', 'admin'];
const SUBJECT_MAX = 150;
const BODY_MAX = 20000;

// The body of the server-rendered message, to show inside the page. The page's Content Security
// Policy allows no inline styles, so the message's own (inline) styles are taken out before the
// HTML is parsed (the server quotes every attribute value, so a style="…" ends at its quote),
// with the preheader the message hides; the page styles it instead (.compose-preview__mail).
// DOMParser runs no scripts and loads nothing.
function mailBody(html: string) {
  const plain = html.replace(/<div style="display:none[^"]*">[^<]*<\/div>/g, '').replace(/\sstyle="[^"]*"/g, '');
  return new DOMParser().parseFromString(plain, 'text/html').body.innerHTML;
}

interface Previewed {
  preview: EmailPreview;
  recipients: number;
}

function ComposeForm({ onSent }: { onSent: (id: string) => void }) {
  const { t } = useTranslation('mail');
  const run = useRunMutation();
  const [formError, setFormError] = useFormError();
  const [send, { isLoading }] = useSendComposedEmailMutation();
  const [kind, setKind] = useState<Kind>('verified');
  const [role, setRole] = useState<Role>('subscriber');
  const [user, setUser] = useState<PickedUser | null>(null);
  const [language, setLanguage] = useState<'en' | 'de'>('en');
  const [subject, setSubject] = useState('');
  const [body, setBody] = useState('');
  const [previewed, setPreviewed] = useState<Previewed | null>(null);
  // One key per message as written: sending it twice (a second click, a retry after a lost
  // answer) mails no one twice; any edit makes it a new message.
  const [key, setKey] = useState(newIdempotencyKey);
  const edited = <T,>(set: (v: T) => void) => (v: T) => {
    set(v);
    setPreviewed(null);
    setKey(newIdempotencyKey());
  };

  const request = (preview: boolean) => ({
    audience: kind === 'user' ? { kind, userId: user?.id ?? '' } : kind === 'role' ? { kind, role } : { kind },
    subject,
    body,
    language,
    preview,
  });

  const check = () => {
    if (kind === 'user' && !user) return t('errors.user');
    if (!subject.trim()) return t('errors.subject');
    if (!body.trim()) return t('errors.body');
    return null;
  };

  const onPreview = async (e: FormEvent) => {
    e.preventDefault();
    const problem = check();
    if (problem) return setFormError(problem);
    const outcome = await run(send({ composeEmailRequest: request(true) }), { fallback: t('compose.previewFailed'), formError: setFormError });
    if (outcome.ok && outcome.data.preview) {
      setPreviewed({ preview: outcome.data.preview, recipients: outcome.data.recipients });
      requestAnimationFrame(() => document.getElementById('preview-title')?.focus());
    }
  };

  const onSend = async () => {
    if (isLoading) return;
    const outcome = await run(send({ composeEmailRequest: request(false), 'Idempotency-Key': key }), {
      fallback: t('compose.sendFailed'),
      success: t('compose.queued'),
      formError: setFormError,
    });
    if (outcome.ok && outcome.data.broadcast) {
      setPreviewed(null);
      setSubject('');
      setBody('');
      setKey(newIdempotencyKey());
      onSent(outcome.data.broadcast.id);
    }
  };

  return (
    <form className="form card compose-form" noValidate onSubmit={(e) => void onPreview(e)} aria-labelledby="compose-title">
      <h2 id="compose-title">{t('compose.title')}</h2>
      <FormError message={formError} />
      <fieldset className="field compose-form__audience">
        <legend className="field__label">{t('compose.audience')}</legend>
        {(['verified', 'role', 'user'] as const).map((k) => (
          <label key={k} className="checkbox">
            <input type="radio" name="audience" value={k} checked={kind === k} onChange={() => edited(setKind)(k)} />
            <span>{t(`compose.kind.${k}`)}</span>
          </label>
        ))}
      </fieldset>
      {kind === 'role' ? (
        <SelectField label={t('compose.role')} value={role} onChange={(e) => edited(setRole)(e.target.value as Role)}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {t(`roles.${r}`)}
            </option>
          ))}
        </SelectField>
      ) : null}
      {kind === 'user' ? <UserPicker label={t('compose.user')} picked={user} onPick={edited(setUser)} /> : null}
      <SelectField label={t('compose.language')} hint={t('compose.languageHint')} value={language} onChange={(e) => edited(setLanguage)(e.target.value as 'en' | 'de')}>
        <option value="en">English</option>
        <option value="de">Deutsch</option>
      </SelectField>
      <TextField label={t('compose.subject')} value={subject} maxLength={SUBJECT_MAX} onChange={(e) => edited(setSubject)(e.target.value)} />
      <div className="field">
        <label className="field__label" htmlFor="compose-body">
          {t('compose.body')}
        </label>
        <p id="compose-body-hint" className="field__hint">
          {t('compose.bodyHint')}
        </p>
        <textarea
          id="compose-body"
          className="field__input field__textarea"
          rows={10}
          maxLength={BODY_MAX}
          aria-describedby="compose-body-hint"
          value={body}
          onChange={(e) => edited(setBody)(e.target.value)}
        />
      </div>
      <SubmitButton busy={isLoading && !previewed} busyLabel={t('compose.previewing')} className="button button--secondary">
        {t('compose.preview')}
      </SubmitButton>
      {previewed ? (
        <section className="compose-preview" aria-labelledby="preview-title">
          <h3 id="preview-title" tabIndex={-1}>
            {t('compose.previewTitle')}
          </h3>
          <p data-testid="preview-recipients">{t('compose.recipients', { count: previewed.recipients, n: formatDecimal(String(previewed.recipients)) })}</p>
          <p className="break-anywhere">
            {t('compose.previewSubject')} <strong>{previewed.preview.subject}</strong>
          </p>
          <div className="compose-preview__mail" data-testid="preview-mail" aria-label={t('compose.previewFrame')} role="group">
            {/* The server's rendering: everything escaped, the Markdown without raw HTML. */}
            <div dangerouslySetInnerHTML={{ __html: mailBody(previewed.preview.html) }} />
          </div>
          {previewed.recipients > 0 ? (
            <button type="button" className="button" aria-disabled={isLoading || undefined} onClick={() => void onSend()}>
              {isLoading ? t('compose.sending') : t('compose.send', { count: previewed.recipients, n: formatDecimal(String(previewed.recipients)) })}
            </button>
          ) : (
            <p className="panel panel--warning">{t('compose.nobody')}</p>
          )}
        </section>
      ) : null}
    </form>
  );
}

const TEMPLATES = ['verification', 'password_reset'] as const;

function AutomatedForm({ onSent }: { onSent: (id: string) => void }) {
  const { t } = useTranslation('mail');
  const run = useRunMutation();
  const [formError, setFormError] = useFormError();
  const [send, { isLoading }] = useSendAutomatedEmailMutation();
  const [user, setUser] = useState<PickedUser | null>(null);
  const [template, setTemplate] = useState<(typeof TEMPLATES)[number]>('verification');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!user) return setFormError(t('errors.user'));
    const outcome = await run(send({ automatedEmailRequest: { userId: user.id, template } }), {
      fallback: t('automated.failed'),
      success: t('automated.sent', { name: user.name }),
      formError: setFormError,
    });
    if (outcome.ok && outcome.data.broadcast) onSent(outcome.data.broadcast.id);
  };
  return (
    <form className="form card" noValidate onSubmit={(e) => void submit(e)} aria-labelledby="automated-title">
      <h2 id="automated-title">{t('automated.title')}</h2>
      <p className="muted">{t('automated.lead')}</p>
      <FormError message={formError} />
      <UserPicker label={t('automated.user')} picked={user} onPick={setUser} />
      <SelectField label={t('automated.template')} value={template} onChange={(e) => setTemplate(e.target.value as (typeof TEMPLATES)[number])}>
        {TEMPLATES.map((k) => (
          <option key={k} value={k}>
            {t(`templates.${k}`)}
          </option>
        ))}
      </SelectField>
      <SubmitButton busy={isLoading} busyLabel={t('automated.sending')} className="button">
        {t('automated.send')}
      </SubmitButton>
    </form>
  );
}

// Staff e-mail: compose a message for one user, a role or every verified user, see it as it
// will arrive, send it and follow its progress; send an automated e-mail again; past sends.
export function ComposeEmailPage() {
  const { t } = useTranslation('mail');
  const [active, setActive] = useState<string | null>(null);
  return (
    <section className="page container stack stack--lg" aria-labelledby="mail-title">
      <p className="eyebrow">{t('eyebrow')}</p>
      <h1 id="mail-title">{t('title')}</h1>
      <p className="muted">{t('lead')}</p>
      <div className="compose-layout">
        {active ? <BroadcastProgress id={active} onDismiss={() => setActive(null)} /> : <ComposeForm onSent={setActive} />}
        <AutomatedForm onSent={setActive} />
      </div>
      <BroadcastList />
    </section>
  );
}
