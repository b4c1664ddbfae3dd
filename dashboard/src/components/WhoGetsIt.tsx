import { useState, type FormEvent } from 'react';
import { bucket, evaluatePrimitive, isLiveStatus, type EvaluationResult, type RulesetPrimitive } from '@gradual/sdk/evaluation';
import type { Rollout, Rule, Segment } from '@gradual/sdk';
import { errorMessage } from '../api';
import { formatJson, formatPercent } from '../format';
import { useAction } from '../hooks';
import type { PrimitiveApi } from '../primitive-api';
import { segmentsForContext, type SegmentListCheck } from '../segment-membership';

export interface WhoGetsItProps {
  kind: 'flag' | 'config';
  primitiveKey: string;
  value: unknown;
  rules: Rule[];
  rollout: Rollout | null;
  defaultBucketField: string;
  ops: Pick<PrimitiveApi, 'containsTargetId'>;
  /** Archived: everyone gets the base value. */
  archived?: boolean;
  /**
   * The project's segments and how to ask their ID lists, for rules with segment conditions
   * (without them such a condition finds nobody in any segment).
   */
  segments?: { list: readonly Segment[]; check: SegmentListCheck };
}

interface Answer {
  id: string;
  bucket: number | null;
  onList: boolean;
  result: EvaluationResult;
}

/**
 * The branch that served the value, in words: the variant names it; for the base value the
 * reason tells a context the rollout left out from one no rule matched.
 */
export function describeResult(result: Pick<EvaluationResult, 'reason' | 'variant'>): string {
  const { reason, variant } = result;
  if (variant === 'target-id') return 'Target ID';
  if (variant === 'rollout-new') return 'Rollout (admitted)';
  if (variant === 'rollout-base') return 'Base value (not admitted by the rollout)';
  const rule = /^rule-(\d+)$/.exec(variant);
  if (rule) return `Rule ${rule[1]}`;
  if (reason === 'STATIC') return 'Base value (no rules, no rollout)';
  if (reason === 'DISABLED') return 'Base value (archived)';
  if (reason === 'ERROR') return 'Base value (rules over the evaluation budget)';
  return 'Base value (no rule matched)';
}

/**
 * "Does this user get it?": the shared evaluator (the same code the server and the SDKs run) on
 * this primitive's state, with the ID's allow-list membership asked from the server.
 */
export function WhoGetsIt(props: WhoGetsItProps) {
  const [id, setId] = useState('');
  const [extra, setExtra] = useState('');
  const [extraError, setExtraError] = useState<string>();
  const [answer, setAnswer] = useState<Answer>();
  const action = useAction();
  const r = props.rollout;
  const live = r && isLiveStatus(r.status) ? r : null;
  const field = live?.bucketField ?? props.defaultBucketField;

  const check = async (e: FormEvent) => {
    e.preventDefault();
    const target = id.trim();
    if (!target) return;
    let attrs: Record<string, unknown> = {};
    if (extra.trim()) {
      try {
        const parsed: unknown = JSON.parse(extra);
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error();
        attrs = parsed as Record<string, unknown>;
      } catch {
        return setExtraError('Attributes must be a JSON object, e.g. {"country": "NL"}.');
      }
    }
    setExtraError(undefined);
    const found = await action.run(async () => {
      const onList = live && live.targetIdsCount > 0 ? (await props.ops.containsTargetId(target)).contains : false;
      const context = { ...attrs, [field]: target };
      const segments = props.segments ? await segmentsForContext(props.rules, context, props.segments.list, props.segments.check) : [];
      const primitive: RulesetPrimitive = {
        ...(props.archived ? { archived: true as const } : {}),
        kind: props.kind,
        key: props.primitiveKey,
        value: props.value,
        rules: props.rules,
        rollout: live
          ? {
              id: live.id,
              status: live.status,
              percent: live.percent,
              seed: live.seed,
              bucketField: live.bucketField,
              ...(live.newValue !== undefined ? { newValue: live.newValue } : {}),
              targetIds: onList ? [target] : [],
            }
          : null,
      };
      const result = evaluatePrimitive(primitive, context, segments);
      return { id: target, bucket: live ? bucket(live.seed, target) : null, onList, result };
    });
    if (found) setAnswer(found);
  };

  const getsCandidate = answer && (answer.result.variant === 'target-id' || answer.result.variant === 'rollout-new');
  return (
    <div className="who">
      <form className="row wrap" onSubmit={(e) => void check(e)}>
        <label className="grow">
          <span className="label">{field}</span>
          <input value={id} onChange={(e) => setId(e.target.value)} placeholder="e.g. user-42" aria-label={`Value of ${field} to check`} />
        </label>
        <label className="grow">
          <span className="label">Other attributes (JSON, for rules)</span>
          <input className="mono" value={extra} onChange={(e) => setExtra(e.target.value)} placeholder='{"country": "NL"}' aria-invalid={Boolean(extraError) || undefined} />
        </label>
        <button className="btn btn-primary" disabled={action.busy || !id.trim()}>
          Check
        </button>
      </form>
      {extraError && (
        <div className="field-error" role="alert">
          {extraError}
        </div>
      )}
      {action.error ? <div className="note note-error">{errorMessage(action.error)}</div> : null}
      {answer && (
        <div className={`answer ${getsCandidate ? 'answer-yes' : 'answer-no'}`} role="status" data-testid="who-answer">
          <div className="answer-head">
            <strong>{answer.id}</strong> gets <code className="value">{formatJson(answer.result.value)}</code>{' '}
            <span className="muted" data-testid="who-reason" title={`${answer.result.reason} · ${answer.result.variant}`}>
              ({describeResult(answer.result)})
            </span>
          </div>
          {live && answer.bucket !== null && (
            <div className="bucket-line">
              <div className="meter meter-wide" aria-hidden="true">
                <div style={{ width: `${live.percent}%` }} />
                <span className="marker" style={{ left: `${answer.bucket}%` }} />
              </div>
              <span className="small">
                Bucket {answer.bucket.toFixed(4)} {answer.bucket < live.percent ? '<' : '≥'} {formatPercent(live.percent)}
                {answer.onList ? ' · on the target-ID list' : ''}
              </span>
            </div>
          )}
          {!live && <div className="small muted">No live rollout: only the rules and the base value decide.</div>}
        </div>
      )}
    </div>
  );
}
