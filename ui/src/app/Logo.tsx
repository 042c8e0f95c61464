// The Clearvest mark: a "C" holding a rising line (money that grows in the open). The same
// drawing is public/favicon.svg, public/logo.svg and the start-up loader in index.html; change
// them together. The wordmark is text set in the brand font, so it stays sharp and translatable
// and the link reads "Clearvest" to screen readers.
export function LogoMark({ className = 'logo__mark' }: { className?: string }) {
  return (
    <svg className={className} viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <rect className="logo__tile" width="32" height="32" rx="8" />
      <path className="logo__c" d="M22.6 10.4a8.4 8.4 0 1 0 0 11.2" />
      <path className="logo__line" d="M12.4 18.6l3.1-3.1 2.3 2.3 4.6-4.6" />
    </svg>
  );
}

export function Logo() {
  return (
    <span className="logo">
      <LogoMark />
      <span className="logo__word">Clearvest</span>
    </span>
  );
}
