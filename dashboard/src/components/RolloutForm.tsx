import { useState, type FormEvent } from 'react';
import { isGradualApiError, type PutRolloutRequest, type Rollout, type RolloutPlan } from '@gradual/sdk';
import { errorMessage, fieldErrors } from '../api';
import { formatJsonPretty, formatPercent, parseJsonInput } from '../format';
import { useAction } from '../hooks';
import { Field, TextField } from './ui';

export interface RolloutFormProps {
  /** The live rollout being edited, or undefined to start a new one. */
  rollout?: Rollout | undefined;
  plans: RolloutPlan[];
  /** Whether the primitive has rules (then the candidate may be left empty: the rollout gates them). */
  hasRules: boolean;
  defaultSeed: string;
  defaultBucketField: string;
  submit: (body: PutRolloutRequest, reason: string) => Promise<Rollout>;
  onDone: (rollout: Rollout) => void;
  onCancel: () => void;
}

/**
 * Start or edit a rollout (PUT …/rollout). Client-side checks catch typos; everything else is the
 * server's call, and its `fields` messages are shown beside the inputs they name.
 */
export function RolloutForm(props: RolloutFormProps) {
  const r = props.rollout;
  const [percent, setPercent] = useState(r ? String(r.percent) : '');
  const [candidate, setCandidate] = useState(r && r.newValue !== undefined ? formatJsonPretty(r.newValue) : '');
  const [planKey, setPlanKey] = useState(r?.planKey ?? '');
  const [seed, setSeed] = useState(r?.seed ?? '');
  const [bucketField, setBucketField] = useState(r?.bucketField ?? '');
  const [reason, setReason] = useState('');
  const [local, setLocal] = useState<Record<string, string>>({});
  const action = useAction();

  const server = fieldErrors(action.error);
  if (isGradualApiError(action.error) && action.error.code === 'rollout_seed_locked' && !server.seed) {
    server.seed = 'The seed cannot change once the rollout admits anyone (percent above 0).';
  }
  const errors = { ...server, ...local };
  const plan = props.plans.find((p) => p.key === planKey);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const problems: Record<string, string> = {};
    const body: PutRolloutRequest = { percent: Number(percent) };
    if (percent.trim() === '' || !Number.isFinite(Number(percent))) problems.percent = 'Enter a percentage from 0 to 100.';
    if (candidate.trim() !== '') {
      const parsed = parseJsonInput(candidate);
      if (parsed.ok) body.newValue = parsed.value;
      else problems.newValue = parsed.error;
    } else if (!props.hasRules) {
      problems.newValue = 'Enter the value to roll out.';
    }
    if (planKey) body.planKey = planKey;
    else if (r?.planKey) body.planKey = null;
    if (seed.trim() && seed.trim() !== r?.seed) body.seed = seed.trim();
    if (bucketField.trim() && bucketField.trim() !== r?.bucketField) body.bucketField = bucketField.trim();
    setLocal(problems);
    if (Object.keys(problems).length > 0) return;
    const saved = await action.run(() => props.submit(body, reason));
    if (saved) props.onDone(saved);
  };

  const generalError =
    action.error && Object.keys(server).length === 0 ? errorMessage(action.error) : undefined;

  return (
    <form className="form-grid rollout-form" onSubmit={(e) => void submit(e)} noValidate aria-label={r ? 'Edit rollout' : 'Start a rollout'}>
      <TextField
        label="Percent"
        value={percent}
        onChange={setPercent}
        inputMode="decimal"
        error={errors.percent}
        hint={plan ? `The plan's steps: ${plan.rampSteps.map((s) => formatPercent(s.percent)).join(' → ')}` : '0 to 100, up to 4 decimals.'}
        autoFocus
      />
      <Field label="Plan" error={errors.planKey} hint={plan ? `${plan.cadence === 'auto' ? 'Advances automatically' : 'Advanced by hand'}.` : 'Without a plan, change the percent by hand.'}>
        {({ id, describedBy, invalid }) => (
          <select id={id} value={planKey} onChange={(e) => setPlanKey(e.target.value)} aria-describedby={describedBy} aria-invalid={invalid || undefined}>
            <option value="">No plan</option>
            {props.plans.map((p) => (
              <option key={p.key} value={p.key}>
                {p.name} ({p.key})
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field
        label="Candidate value (JSON)"
        error={errors.newValue}
        className="span-2"
        hint={props.hasRules ? 'Leave empty to gate the rules: admitted contexts get the rules, others the base value.' : undefined}
      >
        {({ id, describedBy, invalid }) => (
          <textarea id={id} className="mono" rows={2} value={candidate} onChange={(e) => setCandidate(e.target.value)} aria-describedby={describedBy} aria-invalid={invalid || undefined} />
        )}
      </Field>
      <TextField label="Seed" value={seed} onChange={setSeed} placeholder={props.defaultSeed} error={errors.seed} hint="Locked once the percent is above 0." />
      <TextField label="Bucket field" value={bucketField} onChange={setBucketField} placeholder={props.defaultBucketField} error={errors.bucketField} />
      <TextField label="Reason (optional)" value={reason} onChange={setReason} className="span-2" hint="Saved in the audit log." />
      {generalError && (
        <div className="note note-error span-2" role="alert">
          {generalError}
        </div>
      )}
      <div className="form-actions span-2">
        <button className="btn btn-primary" disabled={action.busy}>
          {r ? 'Save rollout' : 'Start rollout'}
        </button>
        <button type="button" className="btn" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
