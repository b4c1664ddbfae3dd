import { useLiveStatus } from './live';

const TEXT = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…' } as const;
const TITLE = {
  connecting: 'Connecting to live updates',
  live: 'Changes appear as they happen',
  reconnecting: 'Changes may be out of date until the connection is back',
} as const;

/** "Live" or "Reconnecting…" (text, not colour alone) while the page follows changes as they happen; nothing otherwise. */
export function LiveIndicator() {
  const status = useLiveStatus();
  if (!status) return null;
  return (
    <span className={`live-indicator live-${status}`} aria-live="polite" title={TITLE[status]} data-testid="live-indicator">
      <span aria-hidden="true" className="live-dot" />
      {TEXT[status]}
    </span>
  );
}
