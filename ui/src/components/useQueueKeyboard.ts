import { useEffect, type RefObject } from 'react';

// The items of a queue: each <li> of its lists (`ol.queue`), in page order.
export const QUEUE_ITEM_SELECTOR = '.queue>li';

// A queue item's decision buttons say which key presses them.
export type QueueAction = 'approve' | 'reject';
export const queueAction = (action: QueueAction) => ({
  'data-queue-action': action,
});

// Keys never act while someone types, nor while a dialog is open (it has the keyboard), nor with
// a modifier held (the browser's and the reader's own shortcuts).
function typing(target: EventTarget | null) {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  return tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT';
}

function dialogOpen() {
  return document.querySelector('[role="dialog"], [role="alertdialog"], dialog[open]') !== null;
}

// Moves through a staff queue from the keyboard: j or ↓ to the next item, k or ↑ to the one
// before (the item takes the focus, which shows), Enter opens the item (its first link), a and r
// press the item's approve and reject buttons, which open the queue's usual confirm dialog: no
// decision is ever taken by one key. Works on the queue inside container.
export function useQueueKeyboard(container: RefObject<HTMLElement | null>) {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const root = container.current;
      if (!root || event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
      if (typing(event.target) || dialogOpen()) return;
      const items = Array.from(root.querySelectorAll<HTMLElement>(QUEUE_ITEM_SELECTOR));
      if (items.length === 0) return;
      const active = document.activeElement;
      const index = items.findIndex((item) => item === active || item.contains(active));
      const onItem = index >= 0 && items[index] === active;
      const focus = (i: number) => {
        const item = items[Math.max(0, Math.min(items.length - 1, i))];
        if (!item) return;
        if (!item.hasAttribute('tabindex')) item.tabIndex = -1;
        item.focus();
        item.scrollIntoView?.({ block: 'nearest' });
      };
      const arrows = index < 0 ? active === document.body || active === null || root.contains(active) : true;
      switch (event.key) {
        case 'j':
        case 'ArrowDown':
          if (event.key === 'ArrowDown' && !arrows) return;
          event.preventDefault();
          focus(index < 0 ? 0 : index + 1);
          return;
        case 'k':
        case 'ArrowUp':
          if (event.key === 'ArrowUp' && !arrows) return;
          event.preventDefault();
          focus(index < 0 ? 0 : index - 1);
          return;
        case 'Enter': {
          // Enter on a link or button inside the item does what it always does.
          if (!onItem) return;
          const link = items[index]?.querySelector<HTMLElement>('a[href]');
          if (!link) return;
          event.preventDefault();
          link.click();
          return;
        }
        case 'a':
        case 'r': {
          if (index < 0) return;
          const button = items[index]?.querySelector<HTMLButtonElement>(`[data-queue-action="${event.key === 'a' ? 'approve' : 'reject'}"]`);
          if (!button || button.disabled) return;
          event.preventDefault();
          button.click();
          return;
        }
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [container]);
}
