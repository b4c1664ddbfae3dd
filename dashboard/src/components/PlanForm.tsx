import { useState, type FormEvent } from 'react';
import type { Cadence, CreateRolloutPlanRequest, RolloutPlan, StepGuard, StepGuardInput } from '@gradual/sdk';
import { errorMessage, fieldErrors } from '../api';
import { DAY_NAMES } from '../format';
import { useAction } from '../hooks';
import { Field, Icon, TextField } from './ui';

const UNITS = [
  ['days', 86400],
  ['hours', 3600],
  ['minutes', 60],
  ['seconds', 1],
] as const;
type Unit = (typeof UNITS)[number][0];

interface StepDraft {
  percent: string;
  hold: string;
  unit: Unit;
  requiresApproval: boolean;
  /** The guard's metric keys, comma-separated (docs/guards.md); empty: no guard. */
  guardMetrics: string;
  /** The guard the step had: its margins, actions, minimum units and longest hold are kept for the metrics it keeps. */
  guard?: StepGuard | undefined;
}

function toDraft(percent: number, seconds: number, requiresApproval = false, guard?: StepGuard): StepDraft {
  const [unit, size] = UNITS.find(([, s]) => seconds > 0 && seconds % s === 0) ?? UNITS[1];
  return { percent: String(percent), hold: String(seconds / size), unit, requiresApproval, guardMetrics: guard?.metrics.map((m) => m.key).join(', ') ?? '', guard };
}

/** The step's guard from its draft: the metrics named, each with the settings it had; none when no metric is named. */
export function guardOf(draft: Pick<StepDraft, 'guardMetrics' | 'guard'>): StepGuardInput | undefined {
  const keys = draft.guardMetrics
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '');
  if (keys.length === 0) return undefined;
  const had = new Map(draft.guard?.metrics.map((m) => [m.key, m]));
  return {
    metrics: keys.map((key) => had.get(key) ?? { key }),
    ...(draft.guard ? { minUnitsPerArm: draft.guard.minUnitsPerArm, maxHoldFactor: draft.guard.maxHoldFactor } : {}),
  };
}

const DEFAULT_STEPS: StepDraft[] = [toDraft(1, 3600), toDraft(10, 86400), toDraft(50, 86400), toDraft(100, 0)];

export interface PlanFormProps {
  /** The plan being edited; undefined to create one. */
  plan?: RolloutPlan;
  save: (body: CreateRolloutPlanRequest) => Promise<RolloutPlan>;
  onDone: (plan: RolloutPlan) => void;
  onCancel: () => void;
}

/**
 * Create or edit a rollout plan. The ramp rules (increasing percents, hold range, final step,
 * approval only on auto) are the server's: its `fields` messages (`rampSteps.2.percent`, …) are
 * shown next to the inputs they name.
 */
export function PlanForm({ plan, save, onDone, onCancel }: PlanFormProps) {
  const [key, setKey] = useState(plan?.key ?? '');
  const [name, setName] = useState(plan?.name ?? '');
  const [description, setDescription] = useState(plan?.description ?? '');
  const [cadence, setCadence] = useState<Cadence>(plan?.cadence ?? 'manual');
  const [steps, setSteps] = useState<StepDraft[]>(plan ? plan.rampSteps.map((s) => toDraft(s.percent, s.holdForSeconds, s.requiresApproval, s.guard)) : DEFAULT_STEPS);
  const [blackout, setBlackout] = useState<number[]>(plan?.blackoutDaysOfWeek ?? []);
  const [timezone, setTimezone] = useState(plan?.blackoutTimezone ?? 'UTC');
  const action = useAction();
  const errors = fieldErrors(action.error);

  const setStep = (i: number, patch: Partial<StepDraft>) => setSteps((all) => all.map((s, j) => (j === i ? { ...s, ...patch } : s)));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const body: CreateRolloutPlanRequest = {
      key: key.trim(),
      name,
      ...(description.trim() ? { description } : {}),
      cadence,
      rampSteps: steps.map((s) => {
        const guard = guardOf(s);
        return {
          percent: s.percent.trim() === '' ? Number.NaN : Number(s.percent),
          holdForSeconds: Math.round(Number(s.hold || 0) * UNITS.find(([u]) => u === s.unit)![1]),
          ...(s.requiresApproval ? { requiresApproval: true } : {}),
          ...(guard ? { guard } : {}),
        };
      }),
      blackoutDaysOfWeek: blackout,
      blackoutTimezone: timezone.trim(),
    };
    // NaN does not survive JSON; send null so the server names the field.
    for (const s of body.rampSteps) if (Number.isNaN(s.percent)) (s as { percent: unknown }).percent = null;
    const saved = await action.run(() => save(body));
    if (saved) onDone(saved);
  };

  const known = new Set(['key', 'name', 'description', 'cadence', 'rampSteps', 'blackoutDaysOfWeek', 'blackoutTimezone']);
  const stepFieldError = (i: number, f: string) => errors[`rampSteps.${i}.${f}`] ?? (f === 'percent' ? errors[`rampSteps.${i}`] : undefined);
  // A guard's errors name its parts (rampSteps.1.guard.metrics.0.key): shown under the step's guard field.
  const guardError = (i: number) => Object.entries(errors).find(([k]) => k === `rampSteps.${i}.guard` || k.startsWith(`rampSteps.${i}.guard.`))?.[1];
  const unplaced = Object.entries(errors).filter(([k]) => !known.has(k) && !/^rampSteps\.\d+/.test(k) && !/^blackoutDaysOfWeek\.\d+$/.test(k));
  const blackoutError = errors.blackoutDaysOfWeek ?? Object.entries(errors).find(([k]) => /^blackoutDaysOfWeek\.\d+$/.test(k))?.[1];

  return (
    <form className="plan-form" onSubmit={(e) => void submit(e)} noValidate aria-label={plan ? `Edit plan ${plan.key}` : 'New plan'}>
      <div className="form-grid">
        <TextField label="Key" value={key} onChange={setKey} error={errors.key} hint={plan ? 'The key cannot change.' : 'Letters, digits, ".", "_" and "-"; at most 64.'} autoFocus={!plan} />
        <TextField label="Name" value={name} onChange={setName} error={errors.name} />
        <TextField label="Description" value={description} onChange={setDescription} error={errors.description} className="span-2" />
        <Field label="Cadence" error={errors.cadence} hint={cadence === 'auto' ? 'The scheduler moves to the next step when the hold is over.' : 'Someone advances each step by hand.'}>
          {({ id, describedBy }) => (
            <select id={id} value={cadence} onChange={(e) => setCadence(e.target.value as Cadence)} aria-describedby={describedBy}>
              <option value="manual">manual</option>
              <option value="auto">auto</option>
            </select>
          )}
        </Field>
        <TextField label="Blackout time zone" value={timezone} onChange={setTimezone} error={errors.blackoutTimezone} hint="IANA name, e.g. Europe/Amsterdam." />
      </div>
      <fieldset className="days">
        <legend>Blackout days (no step starts on these local days)</legend>
        {DAY_NAMES.map((d, i) => (
          <label key={d} className="day">
            <input type="checkbox" checked={blackout.includes(i)} onChange={(e) => setBlackout((b) => (e.target.checked ? [...b, i].sort() : b.filter((x) => x !== i)))} />
            {d}
          </label>
        ))}
        {blackoutError && (
          <div className="field-error" role="alert">
            {blackoutError}
          </div>
        )}
      </fieldset>
      <fieldset className="steps">
        <legend>Ramp steps</legend>
        {errors.rampSteps && (
          <div className="field-error" role="alert">
            {errors.rampSteps}
          </div>
        )}
        <div className="step-head" aria-hidden="true">
          <span>#</span>
          <span>Percent</span>
          <span>Hold</span>
          <span>Approval</span>
          <span>Guard metrics</span>
          <span />
        </div>
        {steps.map((s, i) => (
          <div className="step-row" key={i}>
            <span className="step-no">{i + 1}</span>
            <Field label={`Step ${i + 1} percent`} error={stepFieldError(i, 'percent')} className="compact">
              {({ id, describedBy, invalid }) => (
                <input id={id} value={s.percent} inputMode="decimal" onChange={(e) => setStep(i, { percent: e.target.value })} aria-describedby={describedBy} aria-invalid={invalid || undefined} />
              )}
            </Field>
            <Field label={`Step ${i + 1} hold`} error={stepFieldError(i, 'holdForSeconds')} className="compact">
              {({ id, describedBy, invalid }) => (
                <div className="row">
                  <input id={id} value={s.hold} inputMode="numeric" onChange={(e) => setStep(i, { hold: e.target.value })} aria-describedby={describedBy} aria-invalid={invalid || undefined} />
                  <select value={s.unit} onChange={(e) => setStep(i, { unit: e.target.value as Unit })} aria-label={`Step ${i + 1} hold unit`}>
                    {UNITS.map(([u]) => (
                      <option key={u} value={u}>
                        {u}
                      </option>
                    ))}
                  </select>
                </div>
              )}
            </Field>
            <Field label={`Step ${i + 1} approval`} error={stepFieldError(i, 'requiresApproval')} className="compact">
              {({ id, describedBy }) => (
                <input id={id} type="checkbox" checked={s.requiresApproval} onChange={(e) => setStep(i, { requiresApproval: e.target.checked })} aria-describedby={describedBy} />
              )}
            </Field>
            <Field label={`Step ${i + 1} guard metrics`} error={guardError(i)} className="compact">
              {({ id, describedBy, invalid }) => (
                <input
                  id={id}
                  value={s.guardMetrics}
                  placeholder="none"
                  onChange={(e) => setStep(i, { guardMetrics: e.target.value })}
                  aria-describedby={describedBy}
                  aria-invalid={invalid || undefined}
                />
              )}
            </Field>
            <button type="button" className="btn btn-small" onClick={() => setSteps((all) => all.filter((_, j) => j !== i))} disabled={steps.length === 1} aria-label={`Remove step ${i + 1}`}>
              <Icon name="close" />
            </button>
          </div>
        ))}
        <button type="button" className="btn btn-small" onClick={() => setSteps((all) => [...all, { percent: '', hold: '0', unit: 'hours', requiresApproval: false, guardMetrics: '' }])}>
          Add step
        </button>
        <p className="hint">
          Percents strictly increase; each step but the last holds 1 minute to 30 days; the last step holds 0. A guarded step (auto cadence, not the last) watches the project's guard
          metrics named, comma-separated, and rolls back on a regression; margins, actions and minimum units set through the API or gradual.yaml are kept.
        </p>
      </fieldset>
      {unplaced.length > 0 && (
        <ul className="field-error" role="alert">
          {unplaced.map(([k, v]) => (
            <li key={k}>
              {k}: {v}
            </li>
          ))}
        </ul>
      )}
      {action.error && Object.keys(errors).length === 0 ? (
        <div className="note note-error" role="alert">
          {errorMessage(action.error)}
        </div>
      ) : null}
      <div className="form-actions">
        <button className="btn btn-primary" disabled={action.busy}>
          {plan ? 'Save plan' : 'Create plan'}
        </button>
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
