import type { Ref } from 'react';
import type { UseFormRegisterReturn } from 'react-hook-form';
import { useGetCountriesQuery } from '../../api/enhanced';
import { SelectField } from '../../components/form/SelectField';
import type { FieldErrorState } from '../../components/form/useSpecForm';
import { useTranslation } from '../../i18n';

export function CountrySelect({ registration, error }: { registration: UseFormRegisterReturn & { ref?: Ref<HTMLSelectElement> }; error: FieldErrorState }) {
  const { t } = useTranslation('auth');
  const { data: countries, isLoading, isError, refetch } = useGetCountriesQuery();
  // A list that could not be loaded is said under the field, with a way to ask again.
  const failed = t('country.failed');

  return (
    <div>
      {/* Remounted once the list arrives, so the form's current value (e.g. the profile's saved
          country) is applied to options that did not exist on the first render. */}
      <SelectField
        key={countries ? 'loaded' : 'loading'}
        label={t('country.label')}
        error={error}
        aria-busy={isLoading || undefined}
        hint={isError ? failed : undefined}
        {...registration}
      >
        <option value="">{isLoading ? t('country.loading') : t('country.choose')}</option>
        {(countries ?? []).map((country) => (
          <option key={country.code} value={country.code}>
            {country.name}
            {country.dialCode ? ` (${country.dialCode})` : ''}
          </option>
        ))}
      </SelectField>
      {isError ? (
        <button type="button" className="button button--small button--secondary" onClick={() => void refetch()}>
          {t('country.retry')}
        </button>
      ) : null}
    </div>
  );
}

export function useDialCode(code: string) {
  const { data: countries } = useGetCountriesQuery();
  return countries?.find((c) => c.code === code)?.dialCode;
}
