import type { Rollout } from '@gradual/sdk';
import { formatTime, relativeTime } from '../format';
import { useNow } from '../hooks';
import { Link } from '../router';
import { stopText } from './GuardPanel';

const HOUR_MS = 3_600_000;

/** The automatic stop the banner is about: the later of the alert's rollback and the guard's stop. */
function latestStop(rollout: Rollout): { kind: 'alert'; at: string } | { kind: 'guard'; at: string } | null {
  const alert = rollout.lastAutoRollback;
  const guard = rollout.lastGuardStop;
  if (guard && (!alert || guard.at >= alert.firedAt)) return { kind: 'guard', at: guard.at };
  return alert ? { kind: 'alert', at: alert.firedAt } : null;
}

/** Whether the banner shows: for an hour after the automatic rollback (an alert's, or a guard's stop) that paused the rollout. */
export function showsRollbackBanner(rollout: Rollout | null | undefined, now: Date): boolean {
  const stop = rollout ? latestStop(rollout) : null;
  if (!stop) return false;
  const age = now.getTime() - new Date(stop.at).getTime();
  return age >= -60_000 && age < HOUR_MS;
}

/**
 * "Rolled back automatically": shown for an hour after a rollback webhook paused the rollout,
 * naming the secret that fired and linking the alert that triggered it, or after its guard stopped
 * it, naming the metric and its evidence.
 */
export function RollbackBanner({ rollout, link }: { rollout: Rollout; link?: string }) {
  const now = useNow(15_000);
  if (!showsRollbackBanner(rollout, now)) return null;
  const name = link ? <Link to={link}>{rollout.primitiveKey}</Link> : rollout.primitiveKey;
  const guard = rollout.lastGuardStop;
  if (latestStop(rollout)?.kind === 'guard' && guard) {
    return (
      <div className="banner banner-danger" role="alert" data-testid="rollback-banner">
        <strong>
          {name} was {guard.action === 'rollback' ? 'rolled back' : 'paused'} by its guard
        </strong>{' '}
        <span title={formatTime(guard.at)}>{relativeTime(guard.at, now)}</span>: {stopText(guard)}.{' '}
        {rollout.status === 'paused' && (rollout.pausedReason === 'auto_rollback' || rollout.pausedReason === 'guard') && (
          <span>It stays {rollout.pausedReason === 'auto_rollback' ? 'at 0%' : 'where it is'} until someone resumes it.</span>
        )}
      </div>
    );
  }
  const info = rollout.lastAutoRollback!;
  return (
    <div className="banner banner-danger" role="alert" data-testid="rollback-banner">
      <strong>
        {name} was rolled back automatically
      </strong>{' '}
      <span title={formatTime(info.firedAt)}>{relativeTime(info.firedAt, now)}</span> by the rollback secret{' '}
      <strong>“{info.secretName}”</strong>.{' '}
      {info.parsedMonitorUrl ? (
        <a href={info.parsedMonitorUrl} target="_blank" rel="noreferrer noopener">
          Open the alert
        </a>
      ) : (
        <span>The alert did not carry a link.</span>
      )}{' '}
      {rollout.status === 'paused' && rollout.pausedReason === 'auto_rollback' && (
        <span>
          It stays at 0% until someone resumes it (back to {rollout.rolledBackFromPercent ?? 0}%).
        </span>
      )}
    </div>
  );
}
