// The icons content files may name (platform/sitecontent Icons): simple strokes, decorative only,
// so the text beside them carries the meaning.
const paths: Record<string, string> = {
  chart: 'M4 20h16M6 16l4-5 3 3 5-7',
  compass: 'M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18zm3.5 5.5-2 5-5 2 2-5z',
  gift: 'M4 10h16v4H4zM6 14h12v6H6zM12 10v10M12 10c-2-4-6-4-6-1s6 1 6 1zm0 0c2-4 6-4 6-1s-6 1-6 1z',
  headset: 'M4 14v-2a8 8 0 0 1 16 0v2M4 14h3v5H4zM17 14h3v5h-3z',
  'id-card': 'M3 6h18v12H3zM7 10h4M7 14h6M15 9h3v4h-3z',
  list: 'M8 6h12M8 12h12M8 18h12M4 6h.01M4 12h.01M4 18h.01',
  lock: 'M6 11h12v9H6zM8 11V8a4 4 0 0 1 8 0v3',
  mail: 'M3 6h18v12H3zM3 7l9 6 9-6',
  pen: 'M4 20l4-1 11-11-3-3L5 16zM14 6l3 3',
  shield: 'M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6z',
  user: 'M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zM4 21c1-4 4-6 8-6s7 2 8 6',
  wallet: 'M3 7h16v12H3zM3 7l12-3v3M15 12h4v3h-4z',
};

export function ContentIcon({ name }: { name: string }) {
  const d = paths[name];
  if (!d) return null;
  return (
    <svg className="content-icon" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" focusable="false">
      <path d={d} fill="none" stroke="currentColor" strokeWidth="1.75" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}

export const contentIconNames = Object.keys(paths);
