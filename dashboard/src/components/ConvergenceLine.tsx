import type { Convergence } from '@gradual/sdk';
import { api } from '../api';
import { formatTime } from '../format';
import { useNow, useReloadOn, useResource } from '../hooks';

const count = (n: number) => n.toLocaleString('en-US');

/** The fleet in one line: "1,204 SDK instances · 99.6 % on v42 · p99 180 ms · 5 laggards". */
export function convergenceText(c: Convergence): string {
  if (c.instances === 0) return `No SDK instance acknowledged a ruleset in the last ${c.windowSeconds / 60} minutes`;
  const share = `${(100 * (c.currentShare ?? 0)).toFixed(1)} % on v${c.version}`;
  const timed = c.versions.find((v) => v.p99Ms !== null);
  const p99 = timed ? ` · p99 ${count(timed.p99Ms!)} ms${timed.version === c.version ? '' : ` (v${timed.version})`}` : '';
  const laggards = c.instances - c.current;
  return `${count(c.instances)} SDK instance${c.instances === 1 ? '' : 's'} · ${share}${p99} · ${laggards === 0 ? 'no laggards' : `${count(laggards)} laggard${laggards === 1 ? '' : 's'}`}`;
}

/**
 * Which ruleset version the environment's SDK instances serve (docs/convergence.md): read again
 * when the environment's version moves and every few seconds (acknowledgements arrive without
 * events), with the laggards by instance under a disclosure.
 */
export function ConvergenceLine({ envId, version }: { envId: string; version: number | undefined }) {
  const ledger = useResource(() => api().getConvergence({ path: { envId } }), [envId]);
  const now = useNow(5000);
  useReloadOn(`${version}|${now.getTime()}`, ledger.reload);
  const c = ledger.data;
  if (!c) return ledger.error ? <p className="small muted">The convergence ledger could not be read.</p> : null;
  return (
    <div className="convergence" data-testid="convergence" aria-live="polite">
      <p className="small">
        <strong>{convergenceText(c)}</strong>
      </p>
      {c.laggards.length > 0 && (
        <details className="small">
          <summary>Laggards</summary>
          <ul>
            {c.laggards.map((l) => (
              <li key={l.instanceId}>
                <code>{l.instanceId}</code> {l.service ? `(${l.service}) ` : ''}
                {l.sdk.name} {l.sdk.version} on v{l.version}, last seen {formatTime(l.lastSeen)}
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
