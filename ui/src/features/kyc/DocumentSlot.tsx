import { useId, useState, type ChangeEvent, type DragEvent } from 'react';
import type { KycSide } from '../../api/enhanced';
import { useTranslation } from '../../i18n';
import { FilePreview } from './FilePreview';
import { KYC_ACCEPT } from './validation';

interface DocumentSlotProps {
  side: KycSide;
  file: File | null;
  error?: string;
  disabled?: boolean;
  onPick: (file: File | null) => void;
}


// One document: drop a file on it, choose one, or (on a phone) take a photo; shows a preview of
// what was picked.
export function DocumentSlot({ side, file, error, disabled, onPick }: DocumentSlotProps) {
  const { t } = useTranslation('kyc');
  const [dragging, setDragging] = useState(false);
  const hintId = useId();
  const errorId = useId();
  const words = { legend: t(`slot.${side}Legend`), hint: t(`slot.${side}Hint`), short: t(`slot.${side}Short`) };
  const described = [hintId, error ? errorId : null].filter(Boolean).join(' ');

  const picked = (event: ChangeEvent<HTMLInputElement>) => {
    const chosen = event.target.files?.[0] ?? null;
    // Cleared so choosing the same file again after removing it still fires a change.
    event.target.value = '';
    if (chosen) onPick(chosen);
  };
  const dropped = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault();
    setDragging(false);
    if (disabled) return;
    const chosen = event.dataTransfer.files[0];
    if (chosen) onPick(chosen);
  };
  const dragOver = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault();
    if (!disabled) setDragging(true);
  };

  return (
    <fieldset className="doc-slot" data-testid={`slot-${side}`} disabled={disabled}>
      <legend className="doc-slot__legend">{words.legend}</legend>
      <p className="field__hint" id={hintId}>
        {words.hint} {t('slot.formats')}
      </p>
      <div
        className={`doc-slot__drop${dragging ? ' doc-slot__drop--active' : ''}${error ? ' doc-slot__drop--invalid' : ''}`}
        onDragOver={dragOver}
        onDragEnter={dragOver}
        onDragLeave={() => setDragging(false)}
        onDrop={dropped}
      >
        {file ? (
          <FilePreview file={file} label={t('slot.preview', { side: words.short })} />
        ) : (
          <p className="muted doc-slot__empty">{t('slot.drop')}</p>
        )}
        <div className="button-row doc-slot__buttons">
          <label className="button button--secondary button--small doc-slot__pick">
            {file ? t('slot.chooseAnother') : t('slot.choose')} <span className="visually-hidden">{t('slot.forSide', { side: words.short })}</span>
            <input
              type="file"
              className="visually-hidden"
              accept={KYC_ACCEPT}
              aria-describedby={described}
              aria-invalid={error ? true : undefined}
              onChange={picked}
            />
          </label>
          <label className="button button--secondary button--small doc-slot__pick doc-slot__camera">
            {t('slot.photo')} <span className="visually-hidden">{t('slot.ofSide', { side: words.short })}</span>
            <input type="file" className="visually-hidden" accept="image/*" capture="environment" onChange={picked} />
          </label>
          {file ? (
            <button type="button" className="button button--secondary button--small" onClick={() => onPick(null)}>
              {t('slot.remove')} <span className="visually-hidden">{words.short}</span>
            </button>
          ) : null}
        </div>
      </div>
      {error ? (
        <p className="field__error" id={errorId}>
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
