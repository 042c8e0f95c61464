import { useTranslation } from '../../i18n';
import { PASSWORD_MAX, PASSWORD_MIN, passwordChecks, SPECIAL_CHARACTERS } from './validation';

// The live strength checklist (docs/product-rules.md). Each item says in words whether it is met, so the
// state does not depend on colour or the tick alone.
export function PasswordChecklist({ password }: { password: string }) {
  const { t } = useTranslation('auth');
  return (
    <div className="checklist">
      <p className="checklist__title">{t('checklist.title')}</p>
      <ul className="checklist__items">
        {passwordChecks.map((check) => {
          const met = check.test(password);
          return (
            <li key={check.id} className="checklist__item" data-met={met}>
              <span className="checklist__mark" aria-hidden="true">
                {met ? '✓' : '✗'}
              </span>
              {t(`checklist.${check.id}`, { characters: SPECIAL_CHARACTERS, min: PASSWORD_MIN, max: PASSWORD_MAX })}
              <span className="visually-hidden">{met ? t('checklist.done') : t('checklist.notYet')}</span>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
