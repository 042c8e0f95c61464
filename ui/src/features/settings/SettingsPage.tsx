import { useState, type ReactNode } from 'react';
import {
  useCreatePlanMutation,
  useGetSettingsQuery,
  useNewPlanVersionMutation,
  useRetirePlanMutation,
  useUpdateSettingsMutation,
  type Settings,
  type SettingsChange,
  type SettingsPlan,
  type SettingsValues,
} from '../../api/enhanced';
import type { ApiErrorInfo } from '../../api/errors';
import { Amount } from '../../components/Amount';
import { formatDateTime, formatDecimal } from '../../components/format';
import { QueryState } from '../../components/QueryState';
import { useRunMutation } from '../../components/useRunMutation';
import { useTranslation } from '../../i18n';
import { ChangeForm, type FieldSpec, type SendResult, type Values } from './settingsForm';

// The admins' settings (docs/staff.md, "Settings"): one section per setting, each with its form,
// its reason, a confirm step and its history. Every change is an event in force at once in
// every server process; the server checks every value again and names the field at fault.

type Section = 'withdrawalFee' | 'referral' | 'approvals' | 'depositAddresses' | 'support';

const money = (value: string) => <Amount amount={value} />;
const percent = (value: string) => `${formatDecimal(value)} %`;

// Runs one request the console's way and hands a refusal back to the form.
function useSend() {
  const run = useRunMutation();
  const { t } = useTranslation('settings');
  return async <T,>(request: { unwrap(): Promise<T> }, success: string): Promise<SendResult> => {
    let refused: ApiErrorInfo | undefined;
    const outcome = await run(request, {
      fallback: t('failed'),
      success,
      formError: () => undefined,
      handled: (error) => {
        refused = error;
        return true;
      },
    });
    return outcome.ok ? { ok: true } : { ok: false, error: refused ?? { status: 'unknown', message: outcome.message } };
  };
}

function History({ section, history }: { section: string; history: readonly SettingsChange[] }) {
  const { t } = useTranslation('settings');
  const list = history.filter((c) => c.section === section);
  return (
    <details className="stack">
      <summary>{t('history.title', { count: list.length })}</summary>
      {list.length === 0 ? (
        <p className="empty">{t('history.none')}</p>
      ) : (
        <ol className="queue" data-testid={`${section}-history`}>
          {list.map((c) => (
            <li key={`${c.at}-${c.by._id}`} className="queue-item">
              <div className="stack">
                <p>
                  <strong>{formatDateTime(c.at)}</strong> · {t('history.by', { name: c.by.name || t('history.unnamed') })}
                </p>
                <p>
                  {t('reason')}: {c.reason}
                </p>
                <p className="muted">
                  <ValuesText values={c.old} /> → <ValuesText values={c.new} />
                </p>
              </div>
            </li>
          ))}
        </ol>
      )}
    </details>
  );
}

// One line for a section's values, as the history shows them.
function ValuesText({ values }: { values: SettingsValues }) {
  const { t } = useTranslation('settings');
  if (values.withdrawalFee) {
    const f = values.withdrawalFee;
    return (
      <>
        {percent(f.percent)} + {money(f.flat)}, {t('fee.minimum')} {money(f.minimum)}, {t('fee.cap')} {Number(f.cap) > 0 ? money(f.cap) : t('none')}
      </>
    );
  }
  if (values.referral) {
    return (
      <>
        {t('referral.bonus')} {money(values.referral.bonus)}, {t('referral.minDeposit')} {money(values.referral.minDeposit)}
      </>
    );
  }
  if (values.approvals) {
    const a = values.approvals;
    return (
      <>
        {percent(a.depositTolerancePercent)}, {money(a.depositThreshold)}, {money(a.withdrawalThreshold)}
      </>
    );
  }
  if (values.depositAddresses) {
    const list = values.depositAddresses.addresses;
    return <>{list.length === 0 ? t('none') : list.map((d) => `${d.asset}/${d.network} ${d.address}`).join(', ')}</>;
  }
  if (values.support) return <>{values.support.email}</>;
  return null;
}

function SectionPanel({ id, title, lead, children }: { id: string; title: string; lead: string; children: ReactNode }) {
  return (
    <section className="panel stack" aria-labelledby={`${id}-title`} data-testid={`settings-${id}`}>
      <h2 id={`${id}-title`} className="panel__title">
        {title}
      </h2>
      <p className="muted">{lead}</p>
      {children}
    </section>
  );
}

// A flat section: a few fields, sent as one object.
function FlatSection({
  section,
  settings,
  fields,
  current,
  body,
}: {
  section: Exclude<Section, 'depositAddresses'>;
  settings: Settings;
  fields: readonly FieldSpec[];
  current: Values;
  body: (v: Values) => Record<string, unknown>;
}) {
  const { t } = useTranslation('settings');
  const [update] = useUpdateSettingsMutation();
  const send = useSend();
  return (
    <SectionPanel id={section} title={t(`${section}.title`)} lead={t(`${section}.lead`)}>
      <LastChange section={section} history={settings.history} />
      <ChangeForm
        key={JSON.stringify(current)}
        idPrefix={section}
        fields={fields}
        initial={current}
        current={current}
        submitLabel={t('review')}
        send={(v, reason, key) =>
          send(update({ section, 'Idempotency-Key': key, settingsUpdate: { reason, [section]: body(v) } }), t('saved'))
        }
      />
      <History section={section} history={settings.history} />
    </SectionPanel>
  );
}

function LastChange({ section, history }: { section: string; history: readonly SettingsChange[] }) {
  const { t } = useTranslation('settings');
  const last = history.find((c) => c.section === section);
  return (
    <p className="muted" data-testid={`${section}-last`}>
      {last ? t('lastChange', { at: formatDateTime(last.at), name: last.by.name || t('history.unnamed') }) : t('neverChanged')}
    </p>
  );
}

function AddressesSection({ settings }: { settings: Settings }) {
  const { t } = useTranslation('settings');
  const [update] = useUpdateSettingsMutation();
  const send = useSend();
  const list = settings.depositAddresses.addresses;
  const current: Values = { count: String(list.length) };
  list.forEach((d, i) => {
    current[`${i}.asset`] = d.asset;
    current[`${i}.network`] = d.network;
    current[`${i}.address`] = d.address;
  });
  const rows = (v: Values) => Array.from({ length: Number(v.count ?? 0) }, (_, i) => ({
    asset: (v[`${i}.asset`] ?? '').trim(),
    network: (v[`${i}.network`] ?? '').trim(),
    address: (v[`${i}.address`] ?? '').trim(),
  }));
  return (
    <SectionPanel id="depositAddresses" title={t('depositAddresses.title')} lead={t('depositAddresses.lead')}>
      <LastChange section="depositAddresses" history={settings.history} />
      <ChangeForm
        key={JSON.stringify(current)}
        idPrefix="depositAddresses"
        fields={[]}
        initial={current}
        current={current}
        submitLabel={t('review')}
        editor={({ values, setValues, errors }) => (
          <AddressRows values={values} setValues={setValues} errors={errors} />
        )}
        summary={(v) => (
          <dl className="facts">
            <div className="facts__row">
              <dt>{t('depositAddresses.before')}</dt>
              <dd className="muted">{list.map((d) => `${d.asset}/${d.network} ${d.address}`).join(', ') || t('none')}</dd>
            </div>
            <div className="facts__row">
              <dt>{t('depositAddresses.after')}</dt>
              <dd>
                <strong>{rows(v).map((d) => `${d.asset}/${d.network} ${d.address}`).join(', ') || t('none')}</strong>
              </dd>
            </div>
          </dl>
        )}
        send={(v, reason, key) =>
          send(
            update({ section: 'depositAddresses', 'Idempotency-Key': key, settingsUpdate: { reason, depositAddresses: { addresses: rows(v) } } }),
            t('saved'),
          )
        }
      />
      <History section="depositAddresses" history={settings.history} />
    </SectionPanel>
  );
}

function AddressRows({ values, setValues, errors }: { values: Values; setValues: (v: Values) => void; errors: Record<string, string> }) {
  const { t } = useTranslation('settings');
  const count = Number(values.count ?? 0);
  const remove = (index: number) => {
    const next: Values = { count: String(count - 1) };
    let j = 0;
    for (let i = 0; i < count; i++) {
      if (i === index) continue;
      for (const k of ['asset', 'network', 'address']) next[`${j}.${k}`] = values[`${i}.${k}`] ?? '';
      j++;
    }
    setValues(next);
  };
  return (
    <fieldset className="stack">
      <legend>{t('depositAddresses.list')}</legend>
      {count === 0 ? <p className="empty">{t('depositAddresses.empty')}</p> : null}
      {Array.from({ length: count }, (_, i) => {
        const error = errors[`addresses.${i}`];
        const errorId = `address-row-${i}-error`;
        const input = (k: string, label: string, extra: Record<string, unknown> = {}) => (
          <div className="field">
            <label className="field__label" htmlFor={`address-${i}-${k}`}>
              {label}
            </label>
            <input
              id={`address-${i}-${k}`}
              name={k === 'address' ? `addresses.${i}` : `addresses.${i}.${k}`}
              className="field__input"
              value={values[`${i}.${k}`] ?? ''}
              aria-invalid={error && k === 'address' ? true : undefined}
              aria-describedby={error && k === 'address' ? errorId : undefined}
              onChange={(e) => setValues({ ...values, [`${i}.${k}`]: e.target.value })}
              {...extra}
            />
          </div>
        );
        return (
          <div key={i} className="stack" role="group" aria-label={t('depositAddresses.row', { n: i + 1 })}>
            {input('asset', t('depositAddresses.asset'), { maxLength: 10, autoCapitalize: 'characters' })}
            {input('network', t('depositAddresses.network'), { maxLength: 10, autoCapitalize: 'characters' })}
            {input('address', t('depositAddresses.address'), { maxLength: 200, spellCheck: false })}
            {error ? (
              <p id={errorId} className="field__error">
                {error}
              </p>
            ) : null}
            <button type="button" className="button button--secondary" onClick={() => remove(i)}>
              {t('depositAddresses.remove', { n: i + 1 })}
            </button>
          </div>
        );
      })}
      <button
        type="button"
        className="button button--secondary"
        onClick={() => setValues({ ...values, count: String(count + 1), [`${count}.asset`]: '', [`${count}.network`]: '', [`${count}.address`]: '' })}
      >
        {t('depositAddresses.add')}
      </button>
    </fieldset>
  );
}

function usePlanFields(): FieldSpec[] {
  const { t } = useTranslation('settings');
  return [
    { name: 'min', label: t('plans.min'), inputMode: 'decimal', show: money },
    { name: 'max', label: t('plans.max'), inputMode: 'decimal', show: money },
    { name: 'termDays', label: t('plans.termDays'), inputMode: 'numeric' },
    { name: 'termRate', label: t('plans.termRate'), hint: t('plans.termRateHint'), inputMode: 'decimal', show: formatDecimal },
  ];
}

function PlanItem({ plan }: { plan: SettingsPlan }) {
  const { t } = useTranslation('settings');
  const [mode, setMode] = useState<'view' | 'version' | 'retire'>('view');
  const [newVersion] = useNewPlanVersionMutation();
  const [retire] = useRetirePlanMutation();
  const send = useSend();
  const fields = usePlanFields();
  const current: Values = { min: plan.min, max: plan.max, termDays: String(plan.termDays), termRate: plan.termRate };
  return (
    <li className="queue-item" data-testid={`plan-${plan.name}`}>
      <div className="stack">
        <p className="queue-item__name">
          {plan.name} · {t('plans.version', { version: plan.version })} · {plan.active ? t('plans.offered') : t('plans.retired')}
        </p>
        <p className="muted">
          {money(plan.min)} – {money(plan.max)} · {t('plans.days', { count: plan.termDays })} · {formatDecimal(plan.termRate)} ({percent(plan.apr)}{' '}
          {t('plans.apr')})
        </p>
        {plan.active && mode === 'view' ? (
          <div className="button-row">
            <button type="button" className="button button--secondary" onClick={() => setMode('version')}>
              {t('plans.newVersion')}
            </button>
            <button type="button" className="button button--secondary" onClick={() => setMode('retire')}>
              {t('plans.retire')}
            </button>
          </div>
        ) : null}
        {mode === 'version' ? (
          <ChangeForm
            idPrefix={`plan-${plan._id}-version`}
            fields={fields}
            initial={current}
            current={current}
            submitLabel={t('review')}
            onCancel={() => setMode('view')}
            onDone={() => setMode('view')}
            send={(v, reason, key) =>
              send(
                newVersion({
                  planId: plan._id,
                  'Idempotency-Key': key,
                  planVersionRequest: { min: v.min ?? '', max: v.max ?? '', termDays: Number(v.termDays), termRate: v.termRate ?? '', reason },
                }),
                t('plans.versionSaved'),
              )
            }
          />
        ) : null}
        {mode === 'retire' ? (
          <ChangeForm
            idPrefix={`plan-${plan._id}-retire`}
            fields={[]}
            initial={{}}
            submitLabel={t('plans.retire')}
            summary={() => <p>{t('plans.retireConfirm', { name: plan.name })}</p>}
            onCancel={() => setMode('view')}
            onDone={() => setMode('view')}
            send={(_v, reason, key) => send(retire({ planId: plan._id, 'Idempotency-Key': key, settingsReason: { reason } }), t('plans.retiredSaved'))}
          />
        ) : null}
      </div>
    </li>
  );
}

function PlansSection({ settings }: { settings: Settings }) {
  const { t } = useTranslation('settings');
  const [creating, setCreating] = useState(false);
  const [create] = useCreatePlanMutation();
  const send = useSend();
  const fields = usePlanFields();
  return (
    <SectionPanel id="plans" title={t('plans.title')} lead={t('plans.lead')}>
      {settings.plans.length === 0 ? (
        <p className="empty">{t('plans.none')}</p>
      ) : (
        <ol className="queue">
          {settings.plans.map((p) => (
            <PlanItem key={p._id} plan={p} />
          ))}
        </ol>
      )}
      {creating ? (
        <ChangeForm
          idPrefix="plan-create"
          fields={[{ name: 'name', label: t('plans.name') }, ...fields]}
          initial={{ name: '', min: '', max: '', termDays: '', termRate: '' }}
          submitLabel={t('review')}
          onCancel={() => setCreating(false)}
          onDone={() => setCreating(false)}
          send={(v, reason, key) =>
            send(
              create({
                'Idempotency-Key': key,
                planCreateRequest: { name: v.name ?? '', min: v.min ?? '', max: v.max ?? '', termDays: Number(v.termDays), termRate: v.termRate ?? '', reason },
              }),
              t('plans.created'),
            )
          }
        />
      ) : (
        <div className="button-row">
          <button type="button" className="button" onClick={() => setCreating(true)}>
            {t('plans.create')}
          </button>
        </div>
      )}
    </SectionPanel>
  );
}

function SettingsSections({ settings }: { settings: Settings }) {
  const { t } = useTranslation('settings');
  const f = settings.withdrawalFee;
  const r = settings.referral;
  const a = settings.approvals;
  return (
    <>
      <FlatSection
        section="withdrawalFee"
        settings={settings}
        current={{ percent: f.percent, flat: f.flat, minimum: f.minimum, cap: Number(f.cap) > 0 ? f.cap : '' }}
        fields={[
          { name: 'percent', label: t('fee.percent'), inputMode: 'decimal', show: percent },
          { name: 'flat', label: t('fee.flat'), inputMode: 'decimal', show: money },
          { name: 'minimum', label: t('fee.minimum'), hint: t('fee.minimumHint'), inputMode: 'decimal', show: money },
          { name: 'cap', label: t('fee.cap'), hint: t('fee.capHint'), inputMode: 'decimal', optional: true, show: money },
        ]}
        body={(v) => ({ percent: v.percent ?? '', flat: v.flat ?? '', minimum: v.minimum ?? '', cap: v.cap ?? '' })}
      />
      <FlatSection
        section="referral"
        settings={settings}
        current={{ bonus: r.bonus, minDeposit: r.minDeposit }}
        fields={[
          { name: 'bonus', label: t('referral.bonus'), inputMode: 'decimal', show: money },
          { name: 'minDeposit', label: t('referral.minDeposit'), hint: t('referral.minDepositHint'), inputMode: 'decimal', show: money },
        ]}
        body={(v) => ({ bonus: v.bonus ?? '', minDeposit: v.minDeposit ?? '' })}
      />
      <FlatSection
        section="approvals"
        settings={settings}
        current={{ depositTolerancePercent: a.depositTolerancePercent, depositThreshold: a.depositThreshold, withdrawalThreshold: a.withdrawalThreshold }}
        fields={[
          { name: 'depositTolerancePercent', label: t('approvals.tolerance'), hint: t('approvals.toleranceHint'), inputMode: 'decimal', show: percent },
          { name: 'depositThreshold', label: t('approvals.deposit'), inputMode: 'decimal', show: money },
          { name: 'withdrawalThreshold', label: t('approvals.withdrawal'), inputMode: 'decimal', show: money },
        ]}
        body={(v) => ({
          depositTolerancePercent: v.depositTolerancePercent ?? '',
          depositThreshold: v.depositThreshold ?? '',
          withdrawalThreshold: v.withdrawalThreshold ?? '',
        })}
      />
      <AddressesSection settings={settings} />
      <FlatSection
        section="support"
        settings={settings}
        current={{ email: settings.support.email }}
        fields={[{ name: 'email', label: t('support.email'), type: 'email', inputMode: 'email' }]}
        body={(v) => ({ email: (v.email ?? '').trim() })}
      />
      <PlansSection settings={settings} />
    </>
  );
}

export function SettingsPage() {
  const { t } = useTranslation('settings');
  const query = useGetSettingsQuery(undefined, { refetchOnMountOrArgChange: true });
  return (
    <section className="page container stack" aria-labelledby="settings-title">
      <div>
        <p className="eyebrow">{t('eyebrow')}</p>
        <h1 id="settings-title">{t('title')}</h1>
        <p className="muted">{t('lead')}</p>
      </div>
      <QueryState query={query} loading={t('loading')} failed={t('loadFailed')}>
        {(settings) => <SettingsSections settings={settings} />}
      </QueryState>
    </section>
  );
}
