import type { EntityManager } from '@mikro-orm/postgresql';
import type { Rollout as RolloutDto, TargetIdsAdded, TargetIdsCount, TargetIdsRemoved } from '@gradual/contract';
import type { PrimitiveKind } from '../../db/entities/index.js';
import { DomainError } from '../../domain/errors.js';
import { applyCommand } from '../../domain/rollouts/state-machine.js';
import type { Caller } from '../access/authorize.js';
import { checkIfMatch } from '../common/etag.js';
import type { EnvChangeBus } from '../environments/env-changes.js';
import { toRolloutDto, toState } from './rollout.mapper.js';
import { candidateOf, commandRollout, loadPlanSnapshot, putRollout, resolveTarget, type PutRolloutBody, type RolloutTarget } from './rollouts.service.js';
import { editTargetIds, type TargetIdEdit } from './target-ids.service.js';

/**
 * The rollout slice's operations port: the rollout state changes and target-ID
 * edits of one flag or config in one environment, as typed values, and the one
 * executor that runs them. Other slices (proposals) store, check and run these
 * operations through `rolloutOperations` and import nothing else of this slice;
 * the HTTP rollout routes build an operation per request and run it the same way.
 */

/** The flag or config in an environment an operation acts on. */
export interface OpTarget {
  primitiveKind: PrimitiveKind;
  envId: string;
  key: string;
}

type Command = 'pause' | 'resume' | 'cancel' | 'advance';

/** What each operation takes besides its target. */
export interface OpInputs {
  'rollout.put': { body: PutRolloutBody; ifMatch?: string | undefined };
  'rollout.delete': object;
  'rollout.pause': object;
  'rollout.resume': object;
  'rollout.cancel': object;
  'rollout.advance': object;
  'target_ids.add': { body: { targetIds: string[] } };
  'target_ids.remove': { body: { targetIds: string[] } };
  'target_ids.replace': { body: { targetIds: string[] } };
}
export type OpKind = keyof OpInputs;
/** One operation (of kind `K`, or any). */
export type RolloutOp<K extends OpKind = OpKind> = { [P in K]: { kind: P } & OpInputs[P] }[K];

/** What running each operation answers (the direct HTTP call's status and body). */
export interface OpResults {
  'rollout.put': { status: 200; body: RolloutDto };
  'rollout.delete': { status: 204; body: undefined };
  'rollout.pause': { status: 200; body: RolloutDto };
  'rollout.resume': { status: 200; body: RolloutDto };
  'rollout.cancel': { status: 200; body: RolloutDto };
  'rollout.advance': { status: 200; body: RolloutDto };
  'target_ids.add': { status: 200; body: TargetIdsAdded };
  'target_ids.remove': { status: 200; body: TargetIdsRemoved };
  'target_ids.replace': { status: 200; body: TargetIdsCount };
}

/** The authorized environment, primitive and actor an operation was checked against. */
export type CheckedTarget = Pick<RolloutTarget, 'env' | 'primitive' | 'actor'>;

export interface RolloutOperations {
  /** Runs the operation now, as `caller`; env changes go to `bus`. */
  execute<K extends OpKind>(em: EntityManager, caller: Caller, bus: EnvChangeBus, target: OpTarget, op: RolloutOp<K>): Promise<OpResults[K]>;
  /**
   * Checks the operation without writing anything: the caller may propose it (authorized
   * as for the direct call: cross-tenant 404; IP, action, environment, resource; an
   * approval requirement does not refuse it), the primitive exists, and the checks
   * that cost a read or two pass against the current state: If-Match, the
   * candidate's type and the plan of a PUT; a rollout to act on; and the pure state
   * machine accepts a command (e.g. resume needs a paused rollout).
   */
  check(em: EntityManager, caller: Caller, target: OpTarget, op: RolloutOp): Promise<CheckedTarget>;
}

interface OpContext {
  em: EntityManager;
  caller: Caller;
  bus: EnvChangeBus;
  target: OpTarget;
}

const command =
  (type: Command) =>
  async ({ em, caller, bus, target: t }: OpContext) => ({
    status: 200 as const,
    body: await commandRollout(em, caller, bus, t.primitiveKind, t.envId, t.key, { type }),
  });
const edit =
  <E extends TargetIdEdit>(kind: E) =>
  async ({ em, caller, bus, target: t }: OpContext, op: { body: { targetIds: string[] } }) => ({
    status: 200 as const,
    body: await editTargetIds(em, caller, bus, t.primitiveKind, t.envId, t.key, kind, op.body.targetIds),
  });

const runners: { [K in OpKind]: (ctx: OpContext, op: RolloutOp<K>) => Promise<OpResults[K]> } = {
  // `newValue: null` is a value; an absent newValue gates the primitive's rules.
  'rollout.put': async ({ em, caller, bus, target: t }, op) => ({
    status: 200,
    body: await putRollout(em, caller, bus, t.primitiveKind, t.envId, t.key, op.body, 'newValue' in op.body, op.ifMatch),
  }),
  'rollout.delete': async ({ em, caller, bus, target: t }) => {
    await commandRollout(em, caller, bus, t.primitiveKind, t.envId, t.key, { type: 'cancel' });
    return { status: 204, body: undefined };
  },
  'rollout.pause': command('pause'),
  'rollout.resume': command('resume'),
  'rollout.cancel': command('cancel'),
  'rollout.advance': command('advance'),
  'target_ids.add': edit('add'),
  'target_ids.remove': edit('remove'),
  'target_ids.replace': edit('replace'),
};

/** The state-machine command each rollout operation applies (DELETE cancels). */
const COMMAND_OF: Partial<Record<OpKind, Command>> = {
  'rollout.delete': 'cancel',
  'rollout.pause': 'pause',
  'rollout.resume': 'resume',
  'rollout.cancel': 'cancel',
  'rollout.advance': 'advance',
};

const noRollout = () => new DomainError('not_found', 'There is no rollout for this primitive in this environment.');

export const rolloutOperations: RolloutOperations = {
  execute<K extends OpKind>(em: EntityManager, caller: Caller, bus: EnvChangeBus, target: OpTarget, op: RolloutOp<K>): Promise<OpResults[K]> {
    const run: (ctx: OpContext, op: RolloutOp<K>) => Promise<OpResults[K]> = runners[op.kind];
    return run({ em, caller, bus, target }, op);
  },

  async check(em, caller, t, op) {
    const target = await resolveTarget(em, caller, t.primitiveKind, t.envId, t.key, 'propose');
    const current = target.current?.row ?? null;
    if (op.kind === 'rollout.put') {
      checkIfMatch(op.ifMatch, current ? toRolloutDto(current) : null);
      candidateOf(target.primitive, op.body, 'newValue' in op.body);
      if (typeof op.body.planKey === 'string') await loadPlanSnapshot(em, target.env.projectId, op.body.planKey);
      return target;
    }
    if (!current) throw noRollout();
    const type = COMMAND_OF[op.kind];
    if (type) applyCommand(toState(current), { type }, caller.now);
    return target;
  },
};
