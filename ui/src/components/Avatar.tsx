import { initials } from './format';

// The rendered size of each avatar, in CSS pixels (.avatar and .avatar--lg): the image's width
// and height attributes reserve its box before it loads.
const PIXELS = { md: 48, lg: 72 };

// A profile photo, or the person's initials when there is none. Decorative next to their name.
// Photos load lazily: lists of people (referrals, testimonials) are often below the fold.
export function Avatar({ name, photo, size = 'md' }: { name: string; photo?: string; size?: 'md' | 'lg' }) {
  return photo ? (
    <img className={`avatar avatar--${size}`} src={photo} alt="" width={PIXELS[size]} height={PIXELS[size]} loading="lazy" decoding="async" />
  ) : (
    <span className={`avatar avatar--${size} avatar--initials`} aria-hidden="true">
      {initials(name)}
    </span>
  );
}
