import { useId, useRef, useState, type ChangeEvent } from 'react';
import { useUpdateUserMutation, useUploadPhotoMutation, type User } from '../../api/enhanced';
import { Avatar } from '../../components/Avatar';
import { SubmitButton } from '../../components/form/SubmitButton';
import { describedBy, FieldMessage, TextField } from '../../components/form/TextField';
import { useSpecForm } from '../../components/form/useSpecForm';
import { useRunMutation } from '../../components/useRunMutation';
import { FormError, useFormError } from '../../components/form/FormError';
import { CountrySelect } from '../auth/CountrySelect';
import { isAcceptedPhoto, messages, normalisePhone, profileFields, profileSchema, useFormMessages } from '../auth/validation';
import { useTranslation } from '../../i18n';

export const PHOTO_MAX_BYTES = 5 * 1024 * 1024;

function readAsDataUrl(file: File) {
  // A data: URL rather than blob:, which the server's Content-Security-Policy does not allow.
  return new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('could not read the file'));
    reader.readAsDataURL(file);
  });
}

function PhotoEditor({ user }: { user: User }) {
  const { t } = useTranslation('member');
  const say = useFormMessages();
  const run = useRunMutation();
  const inputId = useId();
  const errorId = `${inputId}-error`;
  const inputRef = useRef<HTMLInputElement>(null);
  const [chosen, setChosen] = useState<{ file: File; preview: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [uploadPhoto, { isLoading: isUploading }] = useUploadPhotoMutation();
  const [updateUser, { isLoading: isRemoving }] = useUpdateUserMutation();

  const reject = (message: string) => {
    setError(message);
    setChosen(null);
    inputRef.current?.focus();
  };
  // What the server says about the photo goes on the photo's field too.
  const photoError = (message: string | null) => {
    setError(message);
    if (message) inputRef.current?.focus();
  };

  const onChoose = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    setError(null);
    if (!file) return setChosen(null);
    if (!isAcceptedPhoto(file)) return reject(say.say(messages.photoType) ?? messages.photoType);
    if (file.size > PHOTO_MAX_BYTES) return reject(t('profile.photoTooLarge'));
    try {
      setChosen({ file, preview: await readAsDataUrl(file) });
    } catch {
      reject(t('profile.photoUnreadable'));
    }
  };

  const clearInput = () => {
    setChosen(null);
    if (inputRef.current) inputRef.current.value = '';
  };

  const upload = async () => {
    if (!chosen || isUploading) return;
    const outcome = await run(uploadPhoto({ body: { photo: chosen.file } }), {
      fallback: t('profile.uploadFailed'),
      success: t('profile.photoUpdated'),
      formError: photoError,
    });
    if (outcome.ok) clearInput();
  };

  const remove = async () => {
    if (isRemoving) return;
    await run(updateUser({ updateUserRequest: { photo: '' } }), {
      fallback: t('profile.removeFailed'),
      success: t('profile.photoRemoved'),
      formError: photoError,
    });
  };

  return (
    <fieldset className="photo-editor">
      <legend className="field__label">{t('profile.photo')}</legend>
      <div className="photo-editor__row">
        {chosen ? (
          <img className="avatar avatar--lg" src={chosen.preview} alt={t('profile.previewOf', { name: chosen.file.name })} />
        ) : (
          <Avatar name={user.name} photo={user.photo} size="lg" />
        )}
        <div className="photo-editor__controls">
          <label className="field__label field__label--plain" htmlFor={inputId}>
            {t('profile.choosePhoto')}
          </label>
          <input
            ref={inputRef}
            id={inputId}
            type="file"
            className="file-input"
            accept="image/jpeg,image/png,.jpg,.jpeg,.png"
            aria-invalid={error ? true : undefined}
            aria-describedby={describedBy(error ? errorId : undefined)}
            onChange={(event) => void onChoose(event)}
          />
          <FieldMessage id={errorId} message={error ?? undefined} />
          <div className="button-row">
            {chosen ? (
              <>
                <button type="button" className="button button--small" aria-disabled={isUploading || undefined} onClick={() => void upload()}>
                  {isUploading ? t('profile.uploading') : t('profile.upload')}
                </button>
                <button type="button" className="button button--small button--secondary" onClick={clearInput}>
                  {t('profile.cancel')}
                </button>
              </>
            ) : user.photo ? (
              <button type="button" className="button button--small button--secondary" aria-disabled={isRemoving || undefined} onClick={() => void remove()}>
                {isRemoving ? t('profile.removing') : t('profile.remove')}
              </button>
            ) : null}
          </div>
        </div>
      </div>
    </fieldset>
  );
}

function ProfileForm({ user }: { user: User }) {
  const { t } = useTranslation('member');
  const say = useFormMessages();
  const run = useRunMutation();
  const [formError, setFormError] = useFormError();
  const bioId = useId();
  const [updateUser, { isLoading }] = useUpdateUserMutation();
  const form = useSpecForm(profileSchema, profileFields, {
    name: user.name,
    phone: user.phone,
    country: user.country,
    bio: user.bio,
  });
  const { register, handleSubmit, setError } = form;
  const fieldError = (name: (typeof profileFields)[number]) => say.field(form.fieldError(name));
  const bioError = fieldError('bio');

  const onSubmit = handleSubmit(async (values) => {
    await run(
      updateUser({
        updateUserRequest: {
          name: values.name.trim(),
          phone: normalisePhone(values.phone),
          country: values.country,
          bio: values.bio.trim(),
        },
      }),
      { fallback: t('profile.saveFailed'), success: t('profile.saved'), form: { setError, fields: profileFields }, formError: setFormError },
    );
  });

  return (
    <>
    <FormError message={formError} />
    <form className="form" noValidate onSubmit={onSubmit} aria-label={t('profile.details')}>
      <TextField label={t('profile.name')} autoComplete="name" error={fieldError('name')} {...register('name')} />
      <TextField
        label={t('profile.email')}
        type="email"
        value={user.email}
        readOnly
        hint={t('profile.emailHint')}
      />
      <TextField label={t('profile.phone')} type="tel" autoComplete="tel" error={fieldError('phone')} {...register('phone')} />
      <CountrySelect registration={register('country')} error={fieldError('country')} />
      <div className="field" data-invalid={bioError.invalid || undefined}>
        <label className="field__label" htmlFor={bioId}>
          {t('profile.bio')} <span className="field__optional">{t('profile.optional')}</span>
        </label>
        <textarea
          id={bioId}
          className="field__input field__textarea"
          rows={4}
          maxLength={1000}
          aria-invalid={bioError.invalid || undefined}
          aria-describedby={bioError.describedBy}
          {...register('bio')}
        />
        <FieldMessage id={bioError.describedBy} message={bioError.message} />
      </div>
      <SubmitButton busy={isLoading} busyLabel={t('profile.saving')} className="button">
        {t('profile.save')}
      </SubmitButton>
    </form>
    </>
  );
}

export function ProfileTab({ user }: { user: User }) {
  const { t } = useTranslation('member');
  return (
    <div className="stack stack--lg">
      <h2 className="visually-hidden">{t('profile.title')}</h2>
      <PhotoEditor user={user} />
      <ProfileForm key={user._id} user={user} />
    </div>
  );
}
