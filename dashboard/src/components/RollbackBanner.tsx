import type { Rollout } from '@gradual/sdk';
import { formatTime, relativeTime } from '../format';
import { useNow } from '../hooks';
import { Link } from '../router';

const HOUR_MS = 3_600_000;

/** Whether the banner shows: for an hour after the automatic rollback that paused the rollout. */
export function showsRollbackBanner(rollout: Rollout | null | undefined, now: Date): boolean {
  const info = rollout?.lastAutoRollback;
  if (!info) return false;
  const age = now.getTime() - new Date(info.firedAt).getTime();
  return age >= -60_000 && age < HOUR_MS;
}

/**
 * "Rolled back automatically": shown for an hour after a rollback webhook paused the rollout,
 * naming the secret that fired and linking the alert that triggered it.
 */
export function RollbackBanner({ rollout, link }: { rollout: Rollout; link?: string }) {
  const now = useNow(15_000);
  if (!showsRollbackBanner(rollout, now)) return null;
  const info = rollout.lastAutoRollback!;
  return (
    <div className="banner banner-danger" role="alert" data-testid="rollback-banner">
      <strong>
        {link ? <Link to={link}>{rollout.primitiveKey}</Link> : rollout.primitiveKey} was rolled back automatically
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
