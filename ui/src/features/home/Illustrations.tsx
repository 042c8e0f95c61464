// Hand-drawn SVG illustrations for the home page. Colours come from the --art-* tokens through
// classes (home.css), so they follow dark mode; all are decorative (aria-hidden), the text beside
// them says everything they show.

export function HeroArt() {
  return (
    <svg className="art hero-art" viewBox="0 0 360 300" aria-hidden="true" focusable="false">
      {/* A plan's timeline card: start, term, maturity. */}
      <rect className="art-paper art-shadow" x="24" y="36" width="272" height="188" rx="20" />
      <rect className="art-4" x="48" y="60" width="112" height="12" rx="6" />
      <rect className="art-4" x="48" y="82" width="72" height="10" rx="5" />
      <path className="art-stroke-2" d="M56 190 L108 168 L152 176 L204 136 L264 104" />
      <circle className="art-1" cx="264" cy="104" r="9" />
      <circle className="art-paper art-ring" cx="56" cy="190" r="7" />
      <line className="art-stroke-4" x1="48" y1="206" x2="272" y2="206" />
      {/* The term, fixed in advance. */}
      <rect className="art-3" x="196" y="52" width="84" height="30" rx="15" />
      <path className="art-stroke-paper" d="M214 67 l7 7 13 -14" />
      {/* A stack of coins beside it. */}
      <g>
        <ellipse className="art-2" cx="300" cy="262" rx="42" ry="12" />
        <rect className="art-2" x="258" y="232" width="84" height="30" />
        <ellipse className="art-1" cx="300" cy="232" rx="42" ry="12" />
        <ellipse className="art-2" cx="300" cy="226" rx="42" ry="12" />
        <rect className="art-2" x="258" y="200" width="84" height="26" />
        <ellipse className="art-1" cx="300" cy="200" rx="42" ry="12" />
        <path className="art-stroke-paper" d="M290 196 h20" />
      </g>
      {/* A calendar page: the date the money comes back. */}
      <rect className="art-paper art-shadow" x="4" y="214" width="88" height="78" rx="14" />
      <rect className="art-1" x="4" y="214" width="88" height="22" rx="11" />
      <rect className="art-1" x="4" y="226" width="88" height="10" />
      <rect className="art-4" x="20" y="248" width="14" height="12" rx="3" />
      <rect className="art-4" x="41" y="248" width="14" height="12" rx="3" />
      <rect className="art-3" x="62" y="248" width="14" height="12" rx="3" />
      <rect className="art-4" x="20" y="268" width="14" height="12" rx="3" />
      <rect className="art-4" x="41" y="268" width="14" height="12" rx="3" />
    </svg>
  );
}

export function TrustArt() {
  return (
    <svg className="art trust-art" viewBox="0 0 240 220" aria-hidden="true" focusable="false">
      {/* A ledger page behind a shield: every change written down, nothing rewritten. */}
      <rect className="art-paper art-shadow" x="20" y="24" width="150" height="176" rx="16" />
      <rect className="art-4" x="40" y="50" width="90" height="10" rx="5" />
      <rect className="art-4" x="40" y="74" width="110" height="8" rx="4" />
      <rect className="art-4" x="40" y="94" width="96" height="8" rx="4" />
      <rect className="art-4" x="40" y="114" width="104" height="8" rx="4" />
      <rect className="art-4" x="40" y="134" width="80" height="8" rx="4" />
      <path className="art-1" d="M168 70 l52 18 v44 c0 34 -24 56 -52 68 c-28 -12 -52 -34 -52 -68 v-44 z" />
      <path className="art-stroke-paper art-thick" d="M146 134 l16 16 30 -32" />
    </svg>
  );
}

type IconName = 'calendar' | 'lock' | 'receipt' | 'wallet' | 'people' | 'book';

const iconPaths: Record<IconName, string> = {
  calendar: 'M7 3v3M17 3v3M4 9h16M6 5h12a2 2 0 0 1 2 2v11a2 2 0 0 1-2 2H6a2 2 0 0 1-2-2V7a2 2 0 0 1 2-2zM9 14l2 2 4-4',
  lock: 'M7 11V8a5 5 0 0 1 10 0v3M6 11h12a1 1 0 0 1 1 1v7a1 1 0 0 1-1 1H6a1 1 0 0 1-1-1v-7a1 1 0 0 1 1-1zM12 15v2',
  receipt: 'M6 3h12v18l-3-2-3 2-3-2-3 2zM9 8h6M9 12h6M9 16h3',
  wallet: 'M4 7a2 2 0 0 1 2-2h11v4M4 7v10a2 2 0 0 0 2 2h13V9H6a2 2 0 0 1-2-2zM16 14h1',
  people: 'M9 11a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM3 19a6 6 0 0 1 12 0M16 5a3 3 0 0 1 0 6M18 19a6 6 0 0 0-3-5.2',
  book: 'M4 5a2 2 0 0 1 2-2h13v16H6a2 2 0 0 0-2 2zM4 21V5M8 7h7M8 11h5',
};

export function Icon({ name }: { name: IconName }) {
  return (
    <svg className="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      <path d={iconPaths[name]} />
    </svg>
  );
}

export type { IconName };
