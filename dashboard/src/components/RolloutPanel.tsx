import { useState } from 'react';
import type { Rollout, RolloutPlan } from '@gradual/sdk';
import { isLiveStatus } from '@gradual/sdk/evaluation';
import { errorMessage } from '../api';
import { formatJson, formatPercent, formatTime, relativeTime } from '../format';
import { useAction, useNow } from '../hooks';
import type { PrimitiveApi } from '../primitive-api';
import { GuardPanel, hasGuard } from './GuardPanel';
import { RampChart } from './RampChart';
import { RollBackNow } from './RollBackNow';
import { RolloutForm } from './RolloutForm';
import { StatusBadge } from './ui';

export interface RolloutPanelProps {
  rollout: Rollout | null;
  ops: PrimitiveApi;
  plans: RolloutPlan[];
  hasRules: boolean;
  defaultSeed: string;
  defaultBucketField: string;
  onChange: (rollout: Rollout) => void;
}

/**
 * Status, the operator's buttons (with a reason for the audit log), the approval prompt, the kill
 * switch and the ramp. The buttons are exactly the rollout's `allowedActions` (the server's state
 * machine decides them), so a held or rolled-back rollout offers no advance.
 */
export function RolloutPanel(props: RolloutPanelProps) {
  const { ops } = props;
  const last = props.rollout;
  const rollout = last && isLiveStatus(last.status) ? last : null;
  const [editing, setEditing] = useState(false);
  const [reason, setReason] = useState('');
  const [confirmCancel, setConfirmCancel] = useState(false);
  const action = useAction();
  const now = useNow(30_000);

  const act = async (what: 'pause' | 'resume' | 'cancel' | 'advance') => {
    const next = await action.run(() => ops[what](reason));
    if (next) {
      setReason('');
      setConfirmCancel(false);
      props.onChange(next);
    }
  };

  if (editing) {
    return (
      <RolloutForm
        rollout={rollout ?? undefined}
        plans={props.plans}
        hasRules={props.hasRules}
        defaultSeed={props.defaultSeed}
        defaultBucketField={props.defaultBucketField}
        submit={(body, why) => ops.putRollout(body, why)}
        onDone={(r) => {
          setEditing(false);
          props.onChange(r);
        }}
        onCancel={() => setEditing(false)}
      />
    );
  }

  if (!rollout) {
    return (
      <div className="rollout-empty">
        {last && (
          <p>
            The last rollout is <StatusBadge status={last.status} /> (at {formatPercent(last.percent)}, {formatTime(last.updatedAt)}).
          </p>
        )}
        {!last && <p className="muted">No rollout. Everyone gets the value above (or what the rules give them).</p>}
        <button className="btn btn-primary" onClick={() => setEditing(true)}>
          Start a rollout
        </button>
      </div>
    );
  }

  const steps = rollout.planRampStepsSnapshot ?? [];
  const gateStep = rollout.pausedReason === 'approval_gate' ? steps[(rollout.rampStepIdx ?? -1) + (rollout.percent < (steps[rollout.rampStepIdx ?? 0]?.percent ?? 0) ? 0 : 1)] : undefined;
  const allowed = new Set(rollout.allowedActions);

  return (
    <div className="rollout-panel">
      <div className="rollout-summary">
        <div className="big-percent" aria-label={`${formatPercent(rollout.percent)} admitted`}>
          {formatPercent(rollout.percent)}
        </div>
        <div>
          <StatusBadge status={rollout.status} reason={rollout.pausedReason} />
          <dl className="facts">
            <dt>Candidate</dt>
            <dd>
              {rollout.newValue === undefined ? <em>the rules (gated)</em> : <code className="value">{formatJson(rollout.newValue)}</code>}
            </dd>
            <dt>Plan</dt>
            <dd>
              {rollout.planKey ? (
                <>
                  <code>{rollout.planKey}</code> · {rollout.cadence}
                  {rollout.rampStepIdx !== null && ` · step ${rollout.rampStepIdx + 1} of ${steps.length}`}
                </>
              ) : (
                'none'
              )}
            </dd>
            {rollout.nextStepAt && (
              <>
                <dt>Next step</dt>
                <dd>
                  {formatTime(rollout.nextStepAt)} ({relativeTime(rollout.nextStepAt, now)})
                </dd>
              </>
            )}
            {rollout.awaitingConvergenceUntil && (
              <>
                <dt>Next step</dt>
                <dd data-testid="awaiting-convergence">
                  once {steps[rollout.rampStepIdx ?? -1]?.holdFromConvergence?.instancesPercent ?? 100}% of SDK instances serve v{rollout.stepVersion}, then{' '}
                  {Math.round((steps[rollout.rampStepIdx ?? -1]?.holdForSeconds ?? 0) / 60).toLocaleString()} min; pauses at {formatTime(rollout.awaitingConvergenceUntil)} (
                  {relativeTime(rollout.awaitingConvergenceUntil, now)}) if not
                </dd>
              </>
            )}
            <dt>Bucketing</dt>
            <dd>
              <code>{rollout.bucketField}</code> with seed <code>{rollout.seed}</code>
            </dd>
            <dt>Target IDs</dt>
            <dd>{rollout.targetIdsCount.toLocaleString()}</dd>
          </dl>
        </div>
      </div>

      {rollout.pausedReason === 'approval_gate' && (
        <div className="note note-warn approval" role="alert" data-testid="approval-gate">
          <strong>Waiting for approval.</strong> The next step
          {gateStep ? ` (${formatPercent(gateStep.percent)})` : ''} needs someone to approve it. Approving enters the step now and the
          ramp continues.
          {allowed.has('approve') && (
            <div className="row">
              <button className="btn btn-primary" disabled={action.busy} onClick={() => void act('resume')}>
                Approve and continue
              </button>
            </div>
          )}
        </div>
      )}
      {rollout.pausedReason === 'auto_rollback' && (
        <div className="note note-error">
          Rolled back to 0%{rollout.lastAutoRollback ? ' (the last alert is in the banner above)' : ''}. Resume returns it to{' '}
          {formatPercent(rollout.rolledBackFromPercent ?? 0)}.
          {rollout.lastRollbackConvergence?.convergedMs != null && (
            <span data-testid="rollback-converged">
              {' '}
              The rollback reached {rollout.lastRollbackConvergence.serving.toLocaleString()} of {rollout.lastRollbackConvergence.instances.toLocaleString()} SDK instances in{' '}
              {rollout.lastRollbackConvergence.convergedMs.toLocaleString()} ms.
            </span>
          )}
        </div>
      )}

      <div className="operate">
        <label className="reason">
          <span>Reason (optional, saved in the audit log)</span>
          <input value={reason} onChange={(e) => setReason(e.target.value)} maxLength={500} placeholder="e.g. error rate up in checkout" />
        </label>
        <div className="row wrap">
          {allowed.has('pause') && (
            <button className="btn" disabled={action.busy} onClick={() => void act('pause')}>
              Pause
            </button>
          )}
          {allowed.has('resume') && (
            <button className="btn btn-primary" disabled={action.busy} onClick={() => void act('resume')}>
              Resume
            </button>
          )}
          {allowed.has('advance') && (
            <button className="btn" disabled={action.busy} onClick={() => void act('advance')} title="Move to the next step now, ignoring its hold and blackout days">
              Advance to next step
            </button>
          )}
          <button className="btn" onClick={() => setEditing(true)}>
            Edit rollout
          </button>
          {allowed.has('cancel') && confirmCancel && (
            <>
              <button className="btn btn-danger" disabled={action.busy} onClick={() => void act('cancel')}>
                Yes, cancel the rollout
              </button>
              <button className="btn" onClick={() => setConfirmCancel(false)}>
                Keep it
              </button>
            </>
          )}
          {allowed.has('cancel') && !confirmCancel && (
            <button className="btn btn-danger-outline" onClick={() => setConfirmCancel(true)}>
              Cancel rollout
            </button>
          )}
        </div>
        {allowed.has('rollback') && (
          <div className="row">
            <RollBackNow rollout={rollout} rollback={ops.rollback} onDone={props.onChange} />
          </div>
        )}
        {action.error ? (
          <div className="note note-error" role="alert">
            {errorMessage(action.error)}
          </div>
        ) : null}
      </div>

      {steps.length > 0 && <RampChart rollout={rollout} now={now.getTime()} />}
      {hasGuard(rollout) && <GuardPanel rollout={rollout} now={now.getTime()} />}
    </div>
  );
}
