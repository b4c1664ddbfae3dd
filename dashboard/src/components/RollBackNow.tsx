import { useState } from 'react';
import type { Rollout } from '@gradual/sdk';
import { errorMessage } from '../api';
import { formatPercent } from '../format';
import { useAction } from '../hooks';

export interface RollBackNowProps {
  rollout: Rollout;
  /** The manual rollback (POST …/rollout/rollback) with the reason for the audit log. */
  rollback: (reason: string) => Promise<Rollout>;
  onDone: (rollout: Rollout) => void;
}

/**
 * The kill switch: "Roll back now", then a confirmation step with a required reason. Rendered
 * only while the rollout offers `rollback` in its allowedActions.
 */
export function RollBackNow({ rollout, rollback, onDone }: RollBackNowProps) {
  const [confirming, setConfirming] = useState(false);
  const [reason, setReason] = useState('');
  const action = useAction();
  if (!rollout.allowedActions.includes('rollback')) return null;
  const admitting = rollout.status === 'paused' ? (rollout.pausedAtPercent ?? rollout.percent) : rollout.percent;
  const why = reason.trim();

  const confirm = async () => {
    const next = await action.run(() => rollback(why));
    if (next) {
      setConfirming(false);
      setReason('');
      onDone(next);
    }
  };

  if (!confirming) {
    return (
      <button className="btn btn-danger" onClick={() => setConfirming(true)}>
        Roll back now
      </button>
    );
  }
  return (
    <form
      className="rollback-now"
      role="group"
      aria-label={`Roll back ${rollout.primitiveKey}`}
      onSubmit={(e) => {
        e.preventDefault();
        if (why) void confirm();
      }}
    >
      <p>
        <strong>Roll back {rollout.primitiveKey} to 0%?</strong> Nobody gets the rollout's value from the next evaluation on. Resume
        returns it to {formatPercent(admitting)}.
      </p>
      <label className="reason">
        <span>Reason (required, saved in the audit log)</span>
        <input value={reason} onChange={(e) => setReason(e.target.value)} maxLength={500} required placeholder="e.g. checkout errors up since 14:05" />
      </label>
      <div className="row">
        <button type="submit" className="btn btn-danger" disabled={action.busy || !why}>
          Roll back to 0%
        </button>
        <button
          type="button"
          className="btn"
          onClick={() => {
            setConfirming(false);
            action.setError(undefined);
          }}
        >
          Keep it
        </button>
      </div>
      {action.error ? (
        <div className="note note-error" role="alert">
          {errorMessage(action.error)}
        </div>
      ) : null}
    </form>
  );
}
