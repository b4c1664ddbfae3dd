import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { KEY_MAX_LENGTH, SEGMENT_NESTING_MAX, SEGMENTS_PER_PROJECT_MAX, type Segment as SegmentDto, type SegmentRule } from '@gradual/contract';
import { SegmentEntity, type Project, type Segment } from '../../db/entities/index.js';
import { DomainError, invalid } from '../../domain/errors.js';
import { authorize, tokenSees, type Actor, type Caller } from '../access/authorize.js';
import type { AuditEntry } from '../audit/audit.store.js';
import { checkIfMatch } from '../common/etag.js';
import { findProject, iso, keyInUse, mapUniqueViolation } from '../common/lookup.js';
import { changeEnvironments, type EnvChangeBus, type EnvChangeSet } from '../environments/env-changes.js';
import { findCycle, longestChainThrough, SEGMENT_OPERATORS, segmentKeysOf, segmentRefsOf, segmentsReaching, type RuleConditions } from '../../domain/segments/references.js';
import * as store from './segments.store.js';

export const toSegmentDto = (s: Segment): SegmentDto => ({
  id: s.id,
  projectId: s.projectId,
  key: s.key,
  name: s.name,
  description: s.description ?? null,
  rules: s.rules,
  includedCount: s.includedCount,
  excludedCount: s.excludedCount,
  createdAt: iso(s.createdAt),
  updatedAt: iso(s.updatedAt),
});

/**
 * A segment belongs to the project and reaches every environment whose rules use it: API keys
 * restricted to environments read the segments of projects they hold an environment in, and no
 * key restricted to environments or resources changes them. An approval-required key's writes are
 * refused (approval_not_supported): segments have no proposals.
 */
export async function segmentProject(em: EntityManager, caller: Caller, projectId: string, action: 'read' | 'write'): Promise<{ project: Project; actor: Actor }> {
  const project = await findProject(em, projectId);
  const scope = action === 'write' ? { allEnvironments: true, allResources: true } : {};
  const actor = await authorize(em, caller, project.orgId, {
    action,
    projectId: project.id,
    ...scope,
  });
  return { project, actor };
}

const noSegment = (key: string) => new DomainError('not_found', `No segment "${key}" in this project.`);

/** The segment `key` of the project (read again from the database, locked for the transaction when `lock`). */
export async function findSegment(em: EntityManager, projectId: string, key: string, lock = false): Promise<Segment> {
  const segment =
    key.length <= KEY_MAX_LENGTH
      ? await em.findOne(
          SegmentEntity,
          { projectId, key },
          {
            refresh: true,
            ...(lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {}),
          },
        )
      : null;
  if (!segment) throw noSegment(key);
  return segment;
}

/**
 * Checks, in the transaction `em` is in, that every segment the rules reference exists in the
 * project (400 naming the field, `rules.0.conditions.1.values.0`), and keeps those segments from
 * being deleted until the transaction ends. Flags' and configs' rule writes call it too.
 */
export async function checkSegmentReferences(em: EntityManager, projectId: string, rules: readonly RuleConditions[], prefix = 'rules'): Promise<void> {
  const refs = segmentRefsOf(rules, prefix);
  if (!refs.length) return;
  const existing = await store.lockExistingSegments(em, projectId, [...new Set(refs.map((r) => r.key))]);
  const fields: Record<string, string> = {};
  for (const ref of refs) if (!existing.has(ref.key)) fields[ref.field] = `no segment "${ref.key}" in this project`;
  if (Object.keys(fields).length) throw invalid(fields, 'A condition references a segment that does not exist.');
}

/**
 * 409 segment_cycle when the rules written for `key` would close a cycle of references, and
 * 409 segment_nesting_too_deep when they would make a chain of more than SEGMENT_NESTING_MAX
 * segments.
 */
async function checkReferenceGraph(tx: EntityManager, projectId: string, key: string, refs: readonly string[]): Promise<void> {
  if (!refs.length) return;
  const graph = store.withRefs(await store.segmentGraph(tx, projectId), key, refs);
  const cycle = findCycle(graph, key);
  if (cycle) {
    throw new DomainError('segment_cycle', `These rules would make segment "${key}" reference itself: ${cycle.join(' → ')}.`, { details: { cycle } });
  }
  const chain = longestChainThrough(graph, key);
  if (chain.length > SEGMENT_NESTING_MAX) {
    throw new DomainError(
      'segment_nesting_too_deep',
      `These rules would nest ${chain.length} segments (${chain.join(' → ')}); at most ${SEGMENT_NESTING_MAX} may nest.`,
      { details: { chain, max: SEGMENT_NESTING_MAX } },
    );
  }
}

/**
 * Every environment whose flags' or configs' rules use segment `key`, directly or through other
 * segments, gets a new version: its ruleset carries the segment.
 */
export async function changeEnvironmentsUsing(changes: EnvChangeSet, projectId: string, key: string): Promise<void> {
  const reaching = segmentsReaching(await store.segmentGraph(changes.tx, projectId), key);
  for (const envId of await store.environmentsUsing(changes.tx, projectId, [...reaching])) changes.change(envId);
}

function segmentAudit(caller: Caller, actor: Actor, segment: Segment, action: AuditEntry['action'], before?: unknown, after?: unknown): AuditEntry {
  return {
    orgId: segment.orgId,
    projectId: segment.projectId,
    action,
    resourceType: 'segment',
    resourceKey: segment.key,
    resourceId: segment.id,
    ...(before !== undefined ? { previousValue: before } : {}),
    ...(after !== undefined ? { newValue: after } : {}),
  };
}

export async function listSegments(em: EntityManager, caller: Caller, projectId: string): Promise<SegmentDto[]> {
  const { project } = await segmentProject(em, caller, projectId, 'read');
  const rows = await em.find(SegmentEntity, { projectId: project.id }, { orderBy: { key: 'asc' } });
  return rows.map(toSegmentDto);
}

export async function getSegment(em: EntityManager, caller: Caller, projectId: string, key: string): Promise<SegmentDto> {
  const { project } = await segmentProject(em, caller, projectId, 'read');
  return toSegmentDto(await findSegment(em, project.id, key));
}

/** What references the segment: `flag.<key>`, `config.<key>` (rules in any environment) and `segment.<key>`. */
export async function getSegmentReferrers(em: EntityManager, caller: Caller, projectId: string, key: string): Promise<{ referrers: string[] }> {
  const { project } = await segmentProject(em, caller, projectId, 'read');
  const segment = await findSegment(em, project.id, key);
  const referrers = await store.referrersOf(em, project.id, segment.key);
  // A key restricted to resources sees the flags and configs inside its globs only.
  return { referrers: referrers.filter((r) => r.startsWith('segment.') || tokenSees(caller, undefined, r.slice(r.indexOf('.') + 1))) };
}

export interface CreateSegmentInput {
  key: string;
  name: string;
  description?: string | undefined;
  rules?: SegmentRule[] | undefined;
}

/** Creates a segment with empty lists. Nothing references it yet, so no environment changes. */
export async function createSegment(em: EntityManager, caller: Caller, bus: EnvChangeBus, projectId: string, input: CreateSegmentInput): Promise<SegmentDto> {
  const { project, actor } = await segmentProject(em, caller, projectId, 'write');
  const rules = input.rules ?? [];
  const refs = segmentKeysOf(rules);
  const now = caller.now;
  const segment = await mapUniqueViolation(
    () =>
      changeEnvironments(em, bus, now, async (changes) => {
        const { tx } = changes;
        await store.lockSegmentGraph(tx, project.id);
        if (
          await tx.findOne(SegmentEntity, {
            projectId: project.id,
            key: input.key,
          })
        )
          throw keyInUse('segment', input.key);
        const count = await tx.count(SegmentEntity, { projectId: project.id });
        if (count >= SEGMENTS_PER_PROJECT_MAX) {
          throw new DomainError('quota_exceeded', `A project can have at most ${SEGMENTS_PER_PROJECT_MAX} segments.`, {
            details: {
              dimension: 'segments_per_project',
              limit: SEGMENTS_PER_PROJECT_MAX,
            },
          });
        }
        await checkSegmentReferences(tx, project.id, rules.map(selfless(input.key)));
        await checkReferenceGraph(tx, project.id, input.key, refs);
        const segment = tx.create(SegmentEntity, {
          orgId: project.orgId,
          projectId: project.id,
          key: input.key,
          name: input.name,
          description: input.description ?? null,
          rules,
          segmentRefs: refs,
          includedListId: randomUUID(),
          includedCount: 0,
          excludedListId: randomUUID(),
          excludedCount: 0,
          targetIdsVersion: 0,
          createdAt: now,
          updatedAt: now,
        });
        await tx.flush();
        changes.audit(caller, actor, segmentAudit(caller, actor, segment, 'segment.created', undefined, toSegmentDto(segment)));
        return segment;
      }),
    () => keyInUse('segment', input.key),
  );
  return toSegmentDto(segment);
}

/**
 * A rule as the existence check sees it on create: a reference to the segment being created is
 * a cycle (checked after), not a missing segment.
 */
const selfless =
  (key: string) =>
  (rule: SegmentRule): RuleConditions => ({
    conditions: rule.conditions.map((c) => (SEGMENT_OPERATORS.has(c.operator) ? { ...c, values: c.values.filter((v) => String(v) !== key) } : c)),
  });

export interface UpdateSegmentInput {
  name?: string | undefined;
  description?: string | null | undefined;
  rules?: SegmentRule[] | undefined;
}

/**
 * Renames a segment or replaces its rules. New rules are checked (references exist, no cycle)
 * and every environment that evaluates the segment, directly or through other segments, gets a
 * new version. A write that changes nothing commits nothing.
 */
export async function updateSegment(em: EntityManager, caller: Caller, bus: EnvChangeBus, projectId: string, key: string, input: UpdateSegmentInput, ifMatch: string | undefined): Promise<SegmentDto> {
  const { project, actor } = await segmentProject(em, caller, projectId, 'write');
  const segment = await changeEnvironments(em, bus, caller.now, async (changes) => {
    const { tx } = changes;
    await store.lockSegmentGraph(tx, project.id);
    const segment = await findSegment(tx, project.id, key, true);
    const before = toSegmentDto(segment);
    checkIfMatch(ifMatch, before);
    if (input.name !== undefined) segment.name = input.name;
    if (input.description !== undefined) segment.description = input.description;
    const rulesChanged = input.rules !== undefined && JSON.stringify(input.rules) !== JSON.stringify(segment.rules);
    if (input.rules !== undefined && rulesChanged) {
      const refs = segmentKeysOf(input.rules);
      await checkSegmentReferences(tx, project.id, input.rules.map(selfless(segment.key)));
      await checkReferenceGraph(tx, project.id, segment.key, refs);
      segment.rules = input.rules;
      segment.segmentRefs = refs;
    }
    const after = toSegmentDto(segment);
    if (JSON.stringify(after) === JSON.stringify(before)) return segment;
    segment.updatedAt = caller.now;
    await tx.flush();
    if (rulesChanged) await changeEnvironmentsUsing(changes, project.id, segment.key);
    changes.audit(caller, actor, segmentAudit(caller, actor, segment, 'segment.updated', changedFields(before, after), changedFields(after, before)));
    return segment;
  });
  return toSegmentDto(segment);
}

/** The fields of a segment's representation that differ in `other` (an audit row's before or after). */
function changedFields(dto: SegmentDto, other: SegmentDto): Partial<SegmentDto> {
  const out: Partial<SegmentDto> = {};
  if (dto.name !== other.name) out.name = dto.name;
  if (dto.description !== other.description) out.description = dto.description;
  if (JSON.stringify(dto.rules) !== JSON.stringify(other.rules)) out.rules = dto.rules;
  return out;
}

/**
 * Deletes a segment and (the table's trigger) its target IDs. The body repeats the key; refused
 * with `in_use` while a flag or config in any environment, or another segment, references it.
 */
export async function deleteSegment(em: EntityManager, caller: Caller, bus: EnvChangeBus, projectId: string, key: string, confirm: string | undefined, ifMatch: string | undefined): Promise<void> {
  const { project, actor } = await segmentProject(em, caller, projectId, 'write');
  await changeEnvironments(em, bus, caller.now, async (changes) => {
    const { tx } = changes;
    await store.lockSegmentGraph(tx, project.id);
    const segment = await findSegment(tx, project.id, key, true);
    checkIfMatch(ifMatch, toSegmentDto(segment));
    if (confirm !== segment.key) {
      throw new DomainError('invalid_confirmation', `Type the segment's key ("${segment.key}") in "confirm" to delete it.`, { fields: { confirm: 'must be the segment key' } });
    }
    const referrers = await store.referrersOf(tx, project.id, segment.key);
    if (referrers.length) {
      throw new DomainError('in_use', `Segment "${segment.key}" is referenced by ${referrers.join(', ')}; remove those references first.`, {
        fields: Object.fromEntries(referrers.map((r) => [r, `references segment "${segment.key}"`])),
      });
    }
    const before = toSegmentDto(segment);
    tx.remove(segment);
    await tx.flush();
    changes.audit(caller, actor, segmentAudit(caller, actor, segment, 'segment.deleted', before));
  });
}
