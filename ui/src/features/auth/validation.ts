import * as z from 'zod/mini';
import type { FieldErrorState } from '../../components/form/useSpecForm';
import { useTranslation } from '../../i18n';

// The specification's wording, used verbatim: support scripts, the e2e tests and users who were
// told "you will see X" all depend on these exact strings.
export const messages = {
  required: 'All fields are required',
  email: 'Please enter a valid email',
  emailRequired: 'Please enter an email',
  phone: 'Please enter a valid Phone Number',
  passwordTooShort: 'Password must be at least 8 characters',
  passwordTooLong: 'Password must be at most 128 characters',
  mismatch: 'Passwords do not match',
  paste: 'Cannot paste into input field',
  codeRequired: 'Please fill in the login code',
  codeLength: 'Access code must be 6 characters',
  totpRequired: 'Please enter the code from your authenticator app',
  roleRequired: 'Please select a role',
  photoType: 'Please choose a JPEG or PNG image.',
  terms: 'Please agree to the Terms and the Privacy Policy to create an account',
  totpDigits: 'The code has 6 digits',
} as const;

export type MessageKey = keyof typeof messages;

// The rules above and the server speak English; the reader sees the same message in their
// language (auth namespace, "validation"). A message this list does not know (one only the
// server writes) is shown as it came.
export function useFormMessages() {
  const { t } = useTranslation('auth');
  const say = (message: string | undefined) => {
    const key = (Object.keys(messages) as MessageKey[]).find((k) => messages[k] === message);
    return key ? t(`validation.${key}`) : message;
  };
  return {
    say,
    field: (error: FieldErrorState): FieldErrorState => (error.message ? { ...error, message: say(error.message) } : error),
  };
}

// The server's password policy (platform/auth/password): 8 to 128 characters, counted as the
// server counts them (code points, so an emoji is one character, not two).
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;
const passwordLength = (p: string) => Array.from(p).length;
const passwordLengthOk = (p: string) => passwordLength(p) >= PASSWORD_MIN && passwordLength(p) <= PASSWORD_MAX;
export const LOGIN_CODE_LENGTH = 6;

const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;
// Optional "+", a first digit 1-9, then 1 to 14 more digits.
const PHONE = /^\+?[1-9]\d{1,14}$/;

export const isEmail = (value: string) => EMAIL.test(value.trim());
// People type numbers with spaces, dashes and brackets; those carry no meaning, so they are
// dropped before the check and before sending.
export const normalisePhone = (value: string) => value.replace(/[\s().-]/g, '');
export const isPhone = (value: string) => PHONE.test(normalisePhone(value));

// The register page's live checklist. It guides; the only hard client rule is the length (the
// server decides the rest: not a common password, not the user's name or e-mail).
export const SPECIAL_CHARACTERS = '! % & @ # $ ^ * ? _ ~';
export const passwordChecks = [
  { id: 'case', test: (p: string) => /[a-z]/.test(p) && /[A-Z]/.test(p) },
  { id: 'digit', test: (p: string) => /\d/.test(p) },
  { id: 'special', test: (p: string) => /[!%&@#$^*?_~]/.test(p) },
  { id: 'length', test: passwordLengthOk },
] as const;

// Every form value is a string (inputs and selects give strings); T names the form's fields.
type Form<T> = Record<keyof T, string>;
type Field<T> = keyof T & string;

// A rule names the fields at fault; the first rule that finds any wins, so the user gets the
// one message the specification prescribes for the situation, never a pile of them.
interface Rule<T> {
  message: string;
  faulty: (values: T) => Field<T>[];
}

const blank = (value: string | undefined) => !value || value.trim() === '';

export function requiredRule<T extends Form<T>>(fields: Field<T>[], message: string = messages.required): Rule<T> {
  return { message, faulty: (v) => fields.filter((f) => blank(v[f])) };
}

export function rule<T extends Form<T>>(field: Field<T>, message: string, ok: (value: string, values: T) => boolean): Rule<T> {
  return { message, faulty: (v) => (ok(v[field] ?? '', v) ? [] : [field]) };
}

export function formSchema<T extends Form<T>>(fields: readonly Field<T>[], rules: Rule<T>[]) {
  const shape = Object.fromEntries(fields.map((f) => [f, z.string()]));
  const schema = z.object(shape).check(
    z.superRefine((values, ctx) => {
      for (const r of rules) {
        const faulty = r.faulty(values as unknown as T);
        if (faulty.length === 0) continue;
        for (const field of faulty) ctx.addIssue({ code: 'custom', message: r.message, path: [field], input: values[field] });
        return;
      }
    }),
  );
  return schema as unknown as z.ZodMiniType<T, T>;
}

// The length rules every new password meets, with the server's own messages.
const newPasswordRules = <T extends Form<T> & { password: string }>(): Rule<T>[] => [
  rule<T>('password', messages.passwordTooShort, (p) => passwordLength(p) >= PASSWORD_MIN),
  rule<T>('password', messages.passwordTooLong, (p) => passwordLength(p) <= PASSWORD_MAX),
];

// A second factor may be asked for after the password (authenticator app) or the e-mailed code;
// `totpStep` is "yes" once the server has asked, which is when the code becomes required.
const totpRule = <T extends Form<T> & { totpCode: string; totpStep: string }>() =>
  rule<T>('totpCode', messages.totpRequired, (code, v) => v.totpStep !== 'yes' || code.trim() !== '');

export interface LoginValues {
  email: string;
  password: string;
  totpCode: string;
  totpStep: string;
}
export const loginFields = ['email', 'password', 'totpCode', 'totpStep'] as const;
export const loginSchema = formSchema<LoginValues>(loginFields, [
  requiredRule(['email', 'password']),
  rule('email', messages.email, isEmail),
  totpRule<LoginValues>(),
]);

export interface RegisterValues {
  name: string;
  email: string;
  phone: string;
  country: string;
  password: string;
  confirmPassword: string;
  referralCode: string;
  // "yes" once the person ticked "I agree to the Terms and the Privacy Policy".
  acceptTerms: string;
}
export const registerFields = ['name', 'email', 'phone', 'country', 'password', 'confirmPassword', 'referralCode', 'acceptTerms'] as const;
export const registerSchema = formSchema<RegisterValues>(registerFields, [
  requiredRule(['name', 'email', 'phone', 'country', 'password', 'confirmPassword']),
  rule('email', messages.email, isEmail),
  rule('phone', messages.phone, isPhone),
  ...newPasswordRules<RegisterValues>(),
  rule('confirmPassword', messages.mismatch, (c, v) => c === v.password),
  rule('acceptTerms', messages.terms, (accepted) => accepted === 'yes'),
]);

export interface ForgotValues {
  email: string;
}
export const forgotSchema = formSchema<ForgotValues>(['email'], [
  requiredRule(['email'], messages.emailRequired),
  rule('email', messages.email, isEmail),
]);

export interface NewPasswordValues {
  password: string;
  confirmPassword: string;
}
export const newPasswordFields = ['password', 'confirmPassword'] as const;
export const newPasswordSchema = formSchema<NewPasswordValues>(newPasswordFields, [
  requiredRule(['password', 'confirmPassword']),
  ...newPasswordRules<NewPasswordValues>(),
  rule('confirmPassword', messages.mismatch, (c, v) => c === v.password),
]);

export interface ChangePasswordValues {
  oldPassword: string;
  password: string;
  confirmPassword: string;
}
export const changePasswordFields = ['oldPassword', 'password', 'confirmPassword'] as const;
export const changePasswordSchema = formSchema<ChangePasswordValues>(changePasswordFields, [
  requiredRule(['oldPassword', 'password', 'confirmPassword']),
  ...newPasswordRules<ChangePasswordValues>(),
  rule('confirmPassword', messages.mismatch, (c, v) => c === v.password),
]);

export interface LoginCodeValues {
  loginCode: string;
  totpCode: string;
  totpStep: string;
}
export const loginCodeFields = ['loginCode', 'totpCode', 'totpStep'] as const;
export const loginCodeSchema = formSchema<LoginCodeValues>(loginCodeFields, [
  requiredRule(['loginCode'], messages.codeRequired),
  rule('loginCode', messages.codeLength, (c) => c.trim().length === LOGIN_CODE_LENGTH),
  totpRule<LoginCodeValues>(),
]);

export interface ProfileValues {
  name: string;
  phone: string;
  country: string;
  bio: string;
}
export const profileFields = ['name', 'phone', 'country', 'bio'] as const;
export const profileSchema = formSchema<ProfileValues>(profileFields, [
  requiredRule(['name', 'phone', 'country']),
  rule('phone', messages.phone, isPhone),
]);

export const PHOTO_TYPES = ['image/jpeg', 'image/png'] as const;
export const isAcceptedPhoto = (file: File) =>
  (PHOTO_TYPES as readonly string[]).includes(file.type) && /\.(jpe?g|png)$/i.test(file.name);

export interface TotpCodeValues {
  code: string;
}
export const totpCodeSchema = formSchema<TotpCodeValues>(['code'], [
  requiredRule(['code'], messages.totpRequired),
  rule('code', messages.totpDigits, (c) => /^\d{6}$/.test(c.replace(/\s/g, ''))),
]);

export interface TotpDisableValues {
  password: string;
  code: string;
}
export const totpDisableFields = ['password', 'code'] as const;
export const totpDisableSchema = formSchema<TotpDisableValues>(totpDisableFields, [requiredRule(['password', 'code'])]);

export interface RoleValues {
  role: string;
}
export const roleSchema = formSchema<RoleValues>(['role'], [requiredRule(['role'], messages.roleRequired)]);
