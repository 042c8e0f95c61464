import { describe, expect, it } from 'vitest';
import generated from '../api/generated.ts?raw';
import de from '../i18n/de/labels.json';
import en from '../i18n/en/labels.json';
import { LABEL_VALUES, labelOf, type LabelKind } from './labels';

// The API's enums as the generated client spells them, read from its source, so a value added
// to the OpenAPI spec fails here until it has a label in every language.
const union = (source: string) => [...source.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
const typeValues = (name: string) => {
  const found = new RegExp(`export type ${name} =([^;]+);`).exec(generated);
  if (!found) throw new Error(`${name} is not in the generated client`);
  return union(found[1]!);
};
const fieldValues = (type: string, field: string) => {
  const body = new RegExp(`export type ${type} = \\{([\\s\\S]*?)\\n\\};`).exec(generated)?.[1] ?? '';
  const found = new RegExp(`\\n  ${field}: ([^;]+);`).exec(body);
  if (!found) throw new Error(`${type}.${field} is not in the generated client`);
  return union(found[1]!);
};

const apiEnums: [LabelKind, string[]][] = [
  ['role', typeValues('Role')],
  ['accountStatus', fieldValues('User', 'status')],
  ['kyc', typeValues('KycStatus')],
  ['kycDecision', fieldValues('KycDecision', 'status')],
  ['deposit', typeValues('DepositStatus')],
  ['withdrawal', typeValues('WithdrawalStatus')],
  ['investment', typeValues('InvestmentStatus')],
  ['ticket', typeValues('SupportTicketStatus')],
  ['testimonial', typeValues('TestimonialStatus')],
  ['proposal', typeValues('ProposalStatus')],
  ['proposalKind', typeValues('ProposalKind')],
];

const texts: Record<string, Record<string, Record<string, string>>> = { en, de };

describe('labels', () => {
  it.each(apiEnums)('names every %s value of the API in English and German', (kind, values) => {
    expect(values.length).toBeGreaterThan(0);
    expect([...LABEL_VALUES[kind]].sort()).toEqual([...values].sort());
    for (const language of ['en', 'de']) {
      const words = texts[language]![kind] ?? {};
      const missing = values.filter((value) => !words[value]?.trim());
      expect(missing, `${language} ${kind}`).toEqual([]);
      // A label is words for people, not the value itself in another case.
      if (language === 'en') expect(values.filter((value) => words[value] === value && /[_a-z]/.test(value[0]!))).toEqual([]);
    }
  });

  it('has a generic word for an unknown value of every kind, in both languages', () => {
    for (const kind of Object.keys(LABEL_VALUES)) {
      expect(en[kind as LabelKind].unknown).toBeTruthy();
      expect((de as Record<string, Record<string, string>>)[kind]!.unknown).toBeTruthy();
    }
  });

  it('never shows a raw value', () => {
    const t = (key: string) => key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown>)?.[part], en) as string;
    expect(labelOf(t, 'role', 'subscriber')).toBe('Investor');
    expect(labelOf(t, 'kyc', 'Not Submitted')).toBe('Not submitted yet');
    expect(labelOf(t, 'ticket', 'escalated')).toBe('Unknown');
    expect(labelOf(t, 'role', 'auditor')).toBe('Other role');
    expect(labelOf(t, 'role', undefined)).toBe('Other role');
  });
});
