import { useId, useState } from 'react';
import { useGetUsersQuery } from '../../api/enhanced';
import { TextField } from '../../components/form/TextField';
import { useDebounced } from '../../components/useDebounced';
import { useTranslation } from '../../i18n';

export interface PickedUser {
  id: string;
  name: string;
  email: string;
}

// Finds one user by name or e-mail among the user base: staff pick a person, never type an
// address. Closed accounts are not offered (the server leaves them out of the list).
export function UserPicker({ label, picked, onPick }: { label: string; picked: PickedUser | null; onPick: (u: PickedUser | null) => void }) {
  const { t } = useTranslation('mail');
  const [search, setSearch] = useState('');
  const settled = useDebounced(search.trim());
  const listId = useId();
  const users = useGetUsersQuery({ search: settled }, { skip: settled.length < 2 || picked !== null });
  if (picked) {
    return (
      <div className="field">
        <p className="field__label">{label}</p>
        <p className="picked-user">
          <span>
            <strong>{picked.name}</strong> <span className="muted break-anywhere">{picked.email}</span>
          </span>
          <button type="button" className="button button--secondary button--small" onClick={() => onPick(null)}>
            {t('picker.change')}
          </button>
        </p>
      </div>
    );
  }
  const found = (users.data ?? []).filter((u) => u.status !== 'closed').slice(0, 8);
  return (
    <div className="user-picker">
      <TextField
        label={label}
        hint={t('picker.hint')}
        type="search"
        autoComplete="off"
        value={search}
        maxLength={100}
        aria-controls={listId}
        onChange={(e) => setSearch(e.target.value)}
      />
      <div id={listId} aria-live="polite">
        {settled.length < 2 ? null : users.isFetching && !users.data ? (
          <p className="muted">{t('picker.searching')}</p>
        ) : users.isError ? (
          <p className="muted">{t('picker.failed')}</p>
        ) : found.length === 0 ? (
          <p className="muted">{t('picker.none')}</p>
        ) : (
          <ul className="user-picker__list">
            {found.map((u) => (
              <li key={u._id}>
                <button type="button" className="user-picker__option" onClick={() => onPick({ id: u._id, name: u.name, email: u.email })}>
                  <strong>{u.name}</strong> <span className="muted break-anywhere">{u.email}</span>
                  {!u.isVerified ? <span className="badge badge--warning">{t('picker.unverified')}</span> : null}
                </button>
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}
