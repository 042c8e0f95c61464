import { useId, useRef, type KeyboardEvent, type ReactNode } from 'react';

export interface TabDef {
  id: string;
  label: string;
}

// WAI-ARIA tabs: one tab stop for the whole list (roving tabindex), arrow keys, Home and End move
// between tabs and select them. The selected tab is owned by the caller (here: the URL).
export function Tabs({ label, tabs, selected, onSelect, children }: {
  label: string;
  tabs: readonly TabDef[];
  selected: string;
  onSelect: (id: string) => void;
  children: ReactNode;
}) {
  const baseId = useId();
  const listRef = useRef<HTMLDivElement>(null);
  const tabId = (id: string) => `${baseId}-tab-${id}`;
  const panelId = `${baseId}-panel`;

  const move = (event: KeyboardEvent<HTMLButtonElement>, index: number) => {
    const last = tabs.length - 1;
    const next = { ArrowRight: index === last ? 0 : index + 1, ArrowLeft: index === 0 ? last : index - 1, Home: 0, End: last }[
      event.key
    ];
    if (next === undefined) return;
    event.preventDefault();
    const target = tabs[next];
    if (!target) return;
    onSelect(target.id);
    listRef.current?.ownerDocument.getElementById(tabId(target.id))?.focus();
  };

  return (
    <div className="tabs">
      <div ref={listRef} role="tablist" aria-label={label} className="tabs__list">
        {tabs.map((tab, index) => {
          const isSelected = tab.id === selected;
          return (
            <button
              key={tab.id}
              id={tabId(tab.id)}
              type="button"
              role="tab"
              className="tabs__tab"
              aria-selected={isSelected}
              aria-controls={panelId}
              tabIndex={isSelected ? 0 : -1}
              onClick={() => onSelect(tab.id)}
              onKeyDown={(event) => move(event, index)}
            >
              {tab.label}
            </button>
          );
        })}
      </div>
      <div id={panelId} role="tabpanel" aria-labelledby={tabId(selected)} tabIndex={0} className="tabs__panel">
        {children}
      </div>
    </div>
  );
}
