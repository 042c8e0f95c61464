import type { BadgeName } from '../../api/community';

// Hand-drawn badges, one shape per level so they differ without colour too: a round token
// (member), a shield with a chevron (leader), a medal with a ribbon and a star (expert) and a
// crown (master). Decorative: the level's name is always written beside the icon.
export function BadgeIcon({ level, className = 'level__icon' }: { level: BadgeName; className?: string }) {
  const common = { className, viewBox: '0 0 64 64', 'aria-hidden': true, focusable: false } as const;
  switch (level) {
    case 'member':
      return (
        <svg {...common}>
          <circle cx="32" cy="32" r="26" fill="#e8f0fb" stroke="#0a58a8" strokeWidth="4" />
          <circle cx="32" cy="32" r="8" fill="#0a58a8" />
        </svg>
      );
    case 'leader':
      return (
        <svg {...common}>
          <path d="M32 4 56 12v18c0 15-10 25-24 30C18 55 8 45 8 30V12Z" fill="#eef1f5" stroke="#4a5565" strokeWidth="4" strokeLinejoin="round" />
          <path d="m20 34 12-10 12 10" fill="none" stroke="#4a5565" strokeWidth="5" strokeLinecap="round" strokeLinejoin="round" />
        </svg>
      );
    case 'expert':
      return (
        <svg {...common}>
          <path d="M20 4h10l6 16H26ZM34 4h10l-6 16h-6Z" fill="#0a58a8" />
          <circle cx="32" cy="40" r="20" fill="#fff6e5" stroke="#b45309" strokeWidth="4" />
          <path
            d="m32 28 3.6 7.3 8 1.2-5.8 5.6 1.4 8L32 46.3 24.8 50l1.4-8-5.8-5.6 8-1.2Z"
            fill="#b45309"
            strokeLinejoin="round"
          />
        </svg>
      );
    case 'master':
      return (
        <svg {...common}>
          <path d="M8 22 20 32 32 12 44 32 56 22 50 50H14Z" fill="#f4ecfb" stroke="#6b21a8" strokeWidth="4" strokeLinejoin="round" />
          <rect x="14" y="50" width="36" height="8" rx="2" fill="#6b21a8" />
          <circle cx="32" cy="36" r="5" fill="#6b21a8" />
        </svg>
      );
  }
}
