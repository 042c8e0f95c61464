import { useEffect, type Ref } from 'react';
import type { UseFormRegisterReturn } from 'react-hook-form';
import { useGetCountriesQuery } from '../../api/enhanced';
import { SelectField } from '../../components/form/SelectField';
import type { FieldErrorState } from '../../components/form/useSpecForm';
import { useToast } from '../../components/toast/useToast';

const FAILED = 'Failed to fetch countries. Please try again later.';

export function CountrySelect({ registration, error }: { registration: UseFormRegisterReturn & { ref?: Ref<HTMLSelectElement> }; error: FieldErrorState }) {
  const { data: countries, isLoading, isError, refetch } = useGetCountriesQuery();
  const toast = useToast();

  useEffect(() => {
    if (isError) toast.error(FAILED);
  }, [isError, toast]);

  return (
    <div>
      {/* Remounted once the list arrives, so the form's current value (e.g. the profile's saved
          country) is applied to options that did not exist on the first render. */}
      <SelectField
        key={countries ? 'loaded' : 'loading'}
        label="Country"
        error={error}
        aria-busy={isLoading || undefined}
        hint={isError ? FAILED : undefined}
        {...registration}
      >
        <option value="">{isLoading ? 'Loading countries…' : 'Select your country'}</option>
        {(countries ?? []).map((country) => (
          <option key={country.code} value={country.code}>
            {country.name}
            {country.dialCode ? ` (${country.dialCode})` : ''}
          </option>
        ))}
      </SelectField>
      {isError ? (
        <button type="button" className="button button--small button--secondary" onClick={() => void refetch()}>
          Try loading countries again
        </button>
      ) : null}
    </div>
  );
}

export function useDialCode(code: string) {
  const { data: countries } = useGetCountriesQuery();
  return countries?.find((c) => c.code === code)?.dialCode;
}
