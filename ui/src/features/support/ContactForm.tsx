import { useEffect, useMemo, useState } from 'react';
import { useCreateSupportTicketMutation } from '../../api/enhanced';
import { SubmitButton } from '../../components/form/SubmitButton';
import { FieldMessage, EmailField, TextField, describedBy } from '../../components/form/TextField';
import { useSpecForm } from '../../components/form/useSpecForm';
import { FormError, useFormError } from '../../components/form/FormError';
import { useRunMutation } from '../../components/useRunMutation';
import { useTranslation } from '../../i18n';
import { useCurrentUser } from '../auth/session';
import { MESSAGE_MAX, NAME_MAX, contactSchema, type ContactValues } from './validation';

const FIELDS = ['user_name', 'user_email', 'message'] as const;
const EMPTY: ContactValues = { user_name: '', user_email: '', message: '', website: '' };

// The Help Center's contact form. `website` is a honeypot: hidden from people (and from screen
// readers and the tab order), filled in by form-filling bots; the server drops such messages. A
// signed-in user finds their name and address filled in, and may change them.
export function ContactForm() {
  const { t } = useTranslation('support');
  const run = useRunMutation();
  const [formError, setFormError] = useFormError();
  const [createTicket, { isLoading }] = useCreateSupportTicketMutation();
  // The checks speak the reader's language; a message already shown keeps its words until the
  // form is checked again.
  const schema = useMemo(
    () =>
      contactSchema((problem) =>
        t(`errors.${problem}`, { max: problem === 'nameTooLong' ? NAME_MAX : MESSAGE_MAX }),
      ),
    [t],
  );
  const form = useSpecForm(schema, FIELDS, EMPTY);
  const { register, handleSubmit, fieldError, reset, errorId, getValues, setValue } = form;
  const [sent, setSent] = useState(false);
  const messageError = fieldError('message');
  const { data: me } = useCurrentUser();
  const blank: ContactValues = { ...EMPTY, user_name: me?.name ?? '', user_email: me?.email ?? '' };

  useEffect(() => {
    if (!me) return;
    if (!getValues('user_name')) setValue('user_name', me.name);
    if (!getValues('user_email')) setValue('user_email', me.email);
  }, [me, getValues, setValue]);

  const onSubmit = handleSubmit(
    async (values) => {
      const outcome = await run(
        createTicket({
          createSupportTicketRequest: {
            user_name: values.user_name.trim(),
            user_email: values.user_email.trim(),
            message: values.message.trim(),
            website: values.website,
          },
        }),
        {
          // The server's message when it sends one (a limit, a 429); else the form's own words.
          fallback: t('form.failed'),
          success: t('form.sent'),
          form: { setError: form.setError, fields: FIELDS },
          formError: setFormError,
        },
      );
      if (outcome.ok) {
        reset(blank);
        setSent(true);
      }
    },
  );

  return (
    <form className="form contact-form" noValidate onSubmit={(e) => void onSubmit(e)} aria-labelledby="contact-title">
      <h2 id="contact-title">{t('form.title')}</h2>
      <FormError message={formError} />
      {sent ? (
        <p className="panel panel--success" role="status">
          {t('form.thanks')}
        </p>
      ) : null}
      <TextField label={t('form.name')} autoComplete="name" maxLength={200} error={fieldError('user_name')} {...register('user_name')} />
      <EmailField
        label={t('form.email')}
        error={fieldError('user_email')}
        {...register('user_email')}
      />
      <div className="field" data-invalid={messageError.invalid || undefined}>
        <label className="field__label" htmlFor="contact-message">
          {t('form.message')}
        </label>
        <textarea
          id="contact-message"
          className="field__input field__textarea"
          rows={6}
          maxLength={MESSAGE_MAX}
          aria-invalid={messageError.invalid || undefined}
          aria-describedby={describedBy(messageError.describedBy)}
          {...register('message')}
        />
        <FieldMessage id={messageError.describedBy ?? errorId} message={messageError.message} />
      </div>
      {/* Not translated: no person sees it, and bots fill it in by its name. */}
      <div className="contact-form__trap" aria-hidden="true">
        <label htmlFor="contact-website">Website</label>
        <input id="contact-website" type="text" tabIndex={-1} autoComplete="off" {...register('website')} />
      </div>
      <SubmitButton busy={isLoading} busyLabel={t('form.sending')} className="button">
        {t('form.send')}
      </SubmitButton>
    </form>
  );
}
