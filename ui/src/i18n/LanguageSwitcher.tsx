import { useId } from 'react';
import { chooseLanguage, LANGUAGES, supportedLanguage, useTranslation } from './index';
import './LanguageSwitcher.css';

// The language of the whole UI. The choice is kept in this browser (see chooseLanguage); each
// option names its language in that language and says so with lang, so a screen reader reads
// "Deutsch" in German.
export function LanguageSwitcher() {
  const { t, i18n } = useTranslation();
  const id = useId();
  return (
    <div className="language-switcher">
      <label htmlFor={id}>{t('language.label')}</label>
      <select
        id={id}
        value={supportedLanguage(i18n.resolvedLanguage) ?? LANGUAGES[0].code}
        onChange={(event) => {
          const language = supportedLanguage(event.target.value);
          if (language) void chooseLanguage(language);
        }}
      >
        {LANGUAGES.map(({ code, name }) => (
          <option key={code} value={code} lang={code}>
            {name}
          </option>
        ))}
      </select>
    </div>
  );
}
