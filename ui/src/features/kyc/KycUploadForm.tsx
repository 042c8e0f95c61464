import { useState, type FormEvent } from 'react';
import { api, kycUploadInvalidates, type KycSide } from '../../api/enhanced';
import { positionSeen } from '../../api/position';
import { useAppDispatch } from '../../app/hooks';
import { FormError, useFormError } from '../../components/form/FormError';
import { useToast } from '../../components/toast/useToast';
import { DocumentSlot } from './DocumentSlot';
import { newIdempotencyKey, uploadKycDocuments } from './uploadKyc';
import { useTranslation } from '../../i18n';
import { checkKycFile, kycMessages } from './validation';

// The checks speak English (the specification's words); the reader sees them in their language.
function useKycMessage() {
  const { t } = useTranslation('kyc');
  return (message: string) => {
    const key = (Object.keys(kycMessages) as (keyof typeof kycMessages)[]).find((k) => kycMessages[k] === message);
    return key ? t(`messages.${key}`) : message;
  };
}

type Files = Partial<Record<KycSide, File>>;
type Errors = Partial<Record<KycSide, string>>;

// The upload form for the sides the server asks for: both at first, only the rejected ones after
// a rejection.
export function KycUploadForm({ sides }: { sides: readonly KycSide[] }) {
  const { t } = useTranslation('kyc');
  const say = useKycMessage();
  const dispatch = useAppDispatch();
  const toast = useToast();
  const [files, setFiles] = useState<Files>({});
  const [errors, setErrors] = useState<Errors>({});
  // The form's own message, from the client's checks: announced when the client finds it.
  const [formError, setFormError] = useState<{ text: string; announce: boolean } | null>(null);
  // The server's refusal, above the form.
  const [refused, setRefused] = useFormError();
  const [progress, setProgress] = useState<number | null>(null);
  const uploading = progress !== null;

  const pick = (side: KycSide, file: File | null) => {
    setFormError(null);
    setErrors((current) => ({ ...current, [side]: file ? (checkKycFile(file) ?? undefined) : undefined }));
    setFiles((current) => {
      const next = { ...current };
      if (file) next[side] = file;
      else delete next[side];
      return next;
    });
  };

  const validate = (): boolean => {
    const found: Errors = {};
    for (const side of sides) {
      const file = files[side];
      const problem = file ? checkKycFile(file) : kycMessages.missing;
      if (problem) found[side] = problem;
    }
    setErrors(found);
    const missing = sides.filter((side) => !files[side]);
    setFormError(sides.length > 1 && missing.length > 0 ? { text: kycMessages.both, announce: true } : null);
    return Object.keys(found).length === 0;
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (uploading) return;
    if (!validate()) return;
    setRefused(null);
    setProgress(0);
    // The upload bypasses the API client and so its session refresh: reading the user first
    // renews an expired access cookie, so a page left open for a while still uploads.
    const check = dispatch(api.endpoints.getUser.initiate({}, { forceRefetch: true, subscribe: false }));
    await check;
    const chosen: Files = {};
    for (const side of sides) chosen[side] = files[side];
    const outcome = await uploadKycDocuments(chosen, { idempotencyKey: newIdempotencyKey(), onProgress: setProgress });
    if (outcome.position) dispatch(positionSeen(outcome.position));
    setProgress(null);
    if (!outcome.ok) {
      setRefused(outcome.message);
      return;
    }
    toast.success(say(outcome.data.message || kycMessages.uploaded));
    dispatch(api.util.upsertQueryEntries([{ endpointName: 'getMyKyc', arg: {}, value: outcome.data.kyc }]));
    dispatch(api.util.invalidateTags([...kycUploadInvalidates]));
  };

  const percent = progress === null ? 0 : Math.round(progress * 100);
  return (
    <>
    <FormError message={refused ? say(refused) : null} />
    <form className="form kyc-form" aria-label={t('form.label')} noValidate onSubmit={(event) => void submit(event)}>
      <div className={`doc-slots${sides.length > 1 ? ' doc-slots--two' : ''}`}>
        {sides.map((side) => (
          <DocumentSlot key={side} side={side} file={files[side] ?? null} error={errors[side] ? say(errors[side]) : undefined} disabled={uploading} onPick={(file) => pick(side, file)} />
        ))}
      </div>
      {formError ? (
        <p className="field__error" role={formError.announce ? 'alert' : undefined}>
          {say(formError.text)}
        </p>
      ) : null}
      {uploading ? (
        <div className="upload-progress">
          <label className="field__label" htmlFor="kyc-upload-progress">
            {t('form.uploadingPercent', { percent })}
          </label>
          <progress id="kyc-upload-progress" max={100} value={percent}>
            {percent}%
          </progress>
        </div>
      ) : null}
      <div className="button-row">
        <button type="submit" className="button" aria-disabled={uploading || undefined}>
          {uploading ? t('form.uploading') : sides.length > 1 ? t('form.submitBoth') : t('form.submitOne')}
        </button>
      </div>
    </form>
    </>
  );
}
