import type { EntityManager } from '@mikro-orm/postgresql';
import type { RolloutRamp } from '@gradual/contract';
import type { PrimitiveKind } from '../../db/entities/index.js';
import { DomainError } from '../../domain/errors.js';
import { buildRamp, type Ramp } from '../../domain/rollouts/ramp.js';
import type { Caller } from '../access/authorize.js';
import { iso } from '../common/lookup.js';
import { toState } from './rollout.mapper.js';
import { readRecordedTransitions } from './ramp.store.js';
import { resolveTarget } from './rollouts.service.js';

/**
 * The ramp of the current rollout of a flag or config in an environment, as of the caller's
 * `now`: its recorded transitions (one read of its audit rows) and the projection of its plan,
 * both from domain/rollouts/ramp.ts. Read access, as GET rollout.
 */
export async function getRolloutRamp(em: EntityManager, caller: Caller, kind: PrimitiveKind, envId: string, key: string): Promise<RolloutRamp> {
  const { current } = await resolveTarget(em, caller, kind, envId, key, 'read');
  if (!current) throw new DomainError('not_found', 'There is no rollout for this primitive in this environment.');
  const row = current.row;
  const history = await readRecordedTransitions(em, row);
  return toRampDto(buildRamp({ state: toState(row), createdAt: row.createdAt, updatedAt: row.updatedAt }, history, caller.now));
}

function toRampDto(ramp: Ramp): RolloutRamp {
  return {
    segments: ramp.segments.map((s) => ({ from: iso(s.from), to: iso(s.to), percent: s.percent, phase: s.phase, kind: s.kind })),
    marks: ramp.marks.map((m) => ({ at: iso(m.at), percent: m.percent, kind: m.kind, cause: m.cause, step: m.step, waitsFor: m.waitsFor, gate: m.gate })),
    now: iso(ramp.now),
    start: iso(ramp.start),
    end: iso(ramp.end),
  };
}
