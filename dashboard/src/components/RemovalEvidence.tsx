import type { PrimitiveInsight } from '@gradual/sdk';
import { formatTime } from '../format';
import { useResource } from '../hooks';
import type { DefinitionApi } from '../primitive-api';
import { ErrorNote } from './ui';

/** How long without evaluations a flag must go before its removal is considered (as `gradual flags stale` defaults). */
export const REMOVAL_STALE_DAYS = 30;

const commitOf = (c: PrimitiveInsight['codeReferences'][number]) => (c.commit ? ` at ${c.commit.slice(0, 12)}` : '');

/**
 * Whether a flag or config can go, and why: no evaluation in any environment for 30 days (usage
 * insights), and no use in the code, as each repository's type check reported it (`gradual flags
 * stale --report`). Says nothing while it is in use or new.
 */
export function RemovalEvidence({ ops, kind, primitiveKey }: { ops: Pick<DefinitionApi, 'insight'>; kind: 'flag' | 'config'; primitiveKey: string }) {
  const insight = useResource(() => ops.insight(REMOVAL_STALE_DAYS), [ops]);
  const i = insight.data;
  if (insight.error) return <ErrorNote error={insight.error} title="Removal check:" />;
  if (!i || i.evaluations > 0 || i.status === 'new') return null;
  const unused = `No evaluation in any environment for ${REMOVAL_STALE_DAYS} days${i.lastEvaluatedAt ? '' : ' (none recorded)'}.`;
  const used = i.codeReferences.filter((c) => c.references > 0);
  return (
    <div className={`note ${i.safeToRemove ? 'note-success' : 'note-warn'}`} data-testid="removal-evidence">
      <strong>{i.safeToRemove ? 'Safe to remove.' : 'Not evaluated, but not proven unused.'}</strong> {unused}
      {i.codeReferences.length === 0 ? (
        <p>
          No code check reported yet: run <code>gradual flags stale --tsconfig … --types … --report &lt;repository&gt;</code> where the code uses this {kind}.
        </p>
      ) : (
        <ul className="plain">
          {i.codeReferences.map((c) => (
            <li key={c.repository}>
              <code>{c.repository}</code>
              {commitOf(c)}, type-checked {formatTime(c.checkedAt)}:{' '}
              {c.references === 0 ? (
                'no use'
              ) : (
                <>
                  {c.references} {c.references === 1 ? 'use' : 'uses'}
                  {c.locations.length > 0 && <> ({c.locations.join(', ')})</>}
                </>
              )}
            </li>
          ))}
        </ul>
      )}
      {i.safeToRemove && (
        <p>
          Archive it under {kind === 'flag' ? 'Flag details' : 'Config details'} (it can be restored), or <code>gradual flags archive {kind === 'config' ? `--config ${primitiveKey}` : primitiveKey}</code>.
        </p>
      )}
      {!i.safeToRemove && used.length > 0 && <p>Remove its uses first.</p>}
    </div>
  );
}
