import { useEffect, useState } from 'react';
import { useTranslation } from '../i18n';
import { useToast } from './toast/useToast';

// Copies a text (an address, a code) to the clipboard and confirms it twice: the button says
// "Copied" for a moment and a toast confirms it. When the browser refuses, the reason is shown
// next to the button, where the reader is looking.
export function CopyButton({ text, label, copiedMessage, className = 'button button--secondary' }: {
  text: string;
  // The button's words; "Copy" by default.
  label?: string;
  // The toast's words on success; none when omitted.
  copiedMessage?: string;
  className?: string;
}) {
  const { t } = useTranslation('forms');
  const toast = useToast();
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state !== 'copied') return;
    const timer = setTimeout(() => setState('idle'), 2000);
    return () => clearTimeout(timer);
  }, [state]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
      if (copiedMessage) toast.success(copiedMessage);
    } catch {
      setState('failed');
    }
  };
  return (
    <span className="copy-button">
      <button type="button" className={className} onClick={() => void copy()} data-copied={state === 'copied' || undefined}>
        {state === 'copied' ? `✓ ${t('copy.copied')}` : (label ?? t('copy.copy'))}
      </button>
      {state === 'failed' ? (
        <span className="field__error" role="alert">
          {t('copy.failed')}
        </span>
      ) : null}
    </span>
  );
}
