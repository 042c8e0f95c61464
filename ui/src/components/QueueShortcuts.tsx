import { useRef, type ReactNode } from 'react';
import { useTranslation } from '../i18n';
import { useQueueKeyboard } from './useQueueKeyboard';

// The keys, as the keyboard labels them.
const KEYS = {
  next: ['j', '↓'],
  previous: ['k', '↑'],
  open: ['Enter'],
  approve: ['a'],
  reject: ['r'],
} as const;

// The "Keyboard shortcuts" help of a staff queue: what each key does. decides: the queue's items
// carry approve and reject buttons (a and r).
export function QueueShortcuts({ decides }: { decides: boolean }) {
  const { t } = useTranslation('staff');
  const rows = (['next', 'previous', 'open', ...(decides ? (['approve', 'reject'] as const) : [])] as const).map((id) => ({
    id,
    keys: KEYS[id],
    what: t(`shortcuts.${id}`),
  }));
  return (
    <details className="queue-shortcuts" data-testid="queue-shortcuts">
      <summary>{t('shortcuts.title')}</summary>
      <dl className="queue-shortcuts__list">
        {rows.map((row) => (
          <div key={row.id}>
            <dt>
              {row.keys.map((key, i) => (
                <span key={key}>
                  {i > 0 ? ' / ' : null}
                  <kbd>{key}</kbd>
                </span>
              ))}
            </dt>
            <dd>{row.what}</dd>
          </div>
        ))}
      </dl>
      <p className="muted">{decides ? t('shortcuts.confirm') : t('shortcuts.decideInside')}</p>
      <p className="muted">{t('shortcuts.typing')}</p>
    </details>
  );
}

// A staff queue that the keyboard moves through (useQueueKeyboard), with its shortcuts help above.
export function KeyboardQueue({ decides = false, children }: { decides?: boolean; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  useQueueKeyboard(ref);
  return (
    <div ref={ref} className="stack">
      <QueueShortcuts decides={decides} />
      {children}
    </div>
  );
}
