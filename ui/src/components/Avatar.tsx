import { initials } from './format';

// A profile photo, or the person's initials when there is none. Decorative next to their name.
export function Avatar({ name, photo, size = 'md' }: { name: string; photo?: string; size?: 'md' | 'lg' }) {
  return photo ? (
    <img className={`avatar avatar--${size}`} src={photo} alt="" />
  ) : (
    <span className={`avatar avatar--${size} avatar--initials`} aria-hidden="true">
      {initials(name)}
    </span>
  );
}
