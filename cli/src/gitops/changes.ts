import type { Environment, GradualClient } from '@gradual/sdk';
import { CliError } from '../errors.js';
import { normalRule, normalSteps, same, type Remote } from './remote.js';
import type { FileEnvState, FilePlan, GradualFile, Json } from './schema.js';

export type ResourceKind = 'plan' | 'flag' | 'config';

/** One line of the diff. */
export interface Change {
  action: 'create' | 'update' | 'unchanged';
  kind: ResourceKind;
  key: string;
  /** For updates: the field, e.g. `name`, `rampSteps`, `environments.prod.value`. */
  field?: string;
  from?: unknown;
  to?: unknown;
}

/** A write request the diff needs, in the order they are sent. */
type Write =
  | { op: 'createPlan'; key: string; plan: FilePlan }
  | { op: 'updatePlan'; key: string; fields: Partial<FilePlan> }
  | { op: 'createFlag'; key: string; name: string; description?: string; valueType?: 'boolean' | 'string' | 'number'; defaultValue: Json }
  | { op: 'createConfig'; key: string; name: string; description?: string; defaultValue: Json }
  | { op: 'setValue'; kind: 'flag' | 'config'; key: string; envId: string; value: Json }
  | { op: 'setRules'; kind: 'flag' | 'config'; key: string; envId: string; rules: ReturnType<typeof normalRule>[] };

export interface ChangeSet {
  changes: Change[];
  writes: Write[];
}

/**
 * What applying `file` to `remote` would change. Resources the file does not name, and fields it
 * leaves out, are left as they are. A difference the API cannot apply (a flag's name, type or
 * default value, which are fixed at creation) or an environment the project does not have is an
 * error, reported before anything is written.
 */
export function computeChanges(file: GradualFile, remote: Remote): ChangeSet {
  const changes: Change[] = [];
  const writes: Write[] = [];
  const problems: string[] = [];
  const envByKey = new Map(remote.environments.map((e) => [e.key, e]));

  for (const [key, plan] of Object.entries(file.plans ?? {})) {
    const current = remote.plans.find((p) => p.key === key);
    if (!current) {
      changes.push({ action: 'create', kind: 'plan', key, to: plan });
      writes.push({ op: 'createPlan', key, plan });
      continue;
    }
    const fields: Partial<FilePlan> = {};
    const compare = <F extends keyof FilePlan>(field: F, from: unknown, to: FilePlan[F] | undefined, normal: (v: NonNullable<FilePlan[F]>) => unknown = (v) => v) => {
      if (to === undefined || to === null) return;
      if (same(from, normal(to))) return;
      fields[field] = to;
      changes.push({ action: 'update', kind: 'plan', key, field, from, to: normal(to) });
    };
    compare('name', current.name, plan.name);
    compare('description', current.description ?? '', plan.description);
    compare('cadence', current.cadence, plan.cadence);
    compare('rampSteps', normalSteps(current.rampSteps), plan.rampSteps, normalSteps);
    compare('blackoutDaysOfWeek', current.blackoutDaysOfWeek, plan.blackoutDaysOfWeek);
    compare('blackoutTimezone', current.blackoutTimezone, plan.blackoutTimezone);
    if (Object.keys(fields).length > 0) writes.push({ op: 'updatePlan', key, fields });
    else changes.push({ action: 'unchanged', kind: 'plan', key });
  }

  const primitives = [
    ...Object.entries(file.flags ?? {}).map(([key, f]) => ({ kind: 'flag' as const, key, def: f, valueType: f.valueType })),
    ...Object.entries(file.configs ?? {}).map(([key, c]) => ({ kind: 'config' as const, key, def: c, valueType: undefined })),
  ];
  for (const { kind, key, def, valueType } of primitives) {
    const current = kind === 'flag' ? remote.flags.find((f) => f.key === key) : remote.configs.find((c) => c.key === key);
    const before = changes.length;
    const envs: [Environment, FileEnvState][] = [];
    for (const [envKey, state] of Object.entries(def.environments ?? {})) {
      const env = envByKey.get(envKey);
      if (!env) problems.push(`${kind}s.${key}.environments.${envKey}: project "${remote.project.key}" has no environment "${envKey}" (it has: ${[...envByKey.keys()].join(', ') || 'none'})`);
      else envs.push([env, state]);
    }
    if (!current) {
      changes.push({ action: 'create', kind, key, to: { name: def.name, ...(def.description ? { description: def.description } : {}), ...(valueType ? { valueType } : {}), defaultValue: def.defaultValue } });
      writes.push(
        kind === 'flag'
          ? { op: 'createFlag', key, name: def.name, defaultValue: def.defaultValue, ...(def.description ? { description: def.description } : {}), ...(valueType ? { valueType } : {}) }
          : { op: 'createConfig', key, name: def.name, defaultValue: def.defaultValue, ...(def.description ? { description: def.description } : {}) },
      );
    } else {
      // Fixed once created: the API has no request that changes them.
      const fixed: [string, unknown, unknown][] = [
        ['name', current.name, def.name],
        ['description', current.description ?? '', def.description],
        ['defaultValue', current.defaultValue, def.defaultValue],
        ...(kind === 'flag' && 'valueType' in current ? [['valueType', current.valueType, valueType] as [string, unknown, unknown]] : []),
      ];
      for (const [field, from, to] of fixed) {
        if (to !== undefined && !same(from, to)) problems.push(`${kind}s.${key}.${field}: ${JSON.stringify(from)} → ${JSON.stringify(to)} cannot be applied: the API fixes a ${kind}'s ${field} when it is created`);
      }
    }
    for (const [env, state] of envs) {
      const remoteState = current ? (kind === 'flag' ? remote.flagStates : remote.configStates).get(env.id)?.get(key) : undefined;
      // A created flag or config starts in every environment at its default value, with no rules.
      const fromValue: unknown = remoteState ? remoteState.value : def.defaultValue;
      const fromRules = remoteState ? remoteState.rules.map(normalRule) : [];
      if (state.value !== undefined && !same(fromValue, state.value)) {
        changes.push({ action: 'update', kind, key, field: `environments.${env.key}.value`, from: fromValue, to: state.value });
        writes.push({ op: 'setValue', kind, key, envId: env.id, value: state.value });
      }
      if (state.rules !== undefined) {
        const rules = state.rules.map(normalRule);
        if (!same(fromRules, rules)) {
          changes.push({ action: 'update', kind, key, field: `environments.${env.key}.rules`, from: fromRules, to: rules });
          writes.push({ op: 'setRules', kind, key, envId: env.id, rules });
        }
      }
    }
    if (current && changes.length === before) changes.push({ action: 'unchanged', kind, key });
  }

  if (problems.length > 0) throw new CliError('apply_conflict', problems.join('\n'));
  // Plans first (nothing in the file depends on them yet), then creations, then per-environment edits.
  const order: Record<Write['op'], number> = { createPlan: 0, updatePlan: 0, createFlag: 1, createConfig: 1, setValue: 2, setRules: 2 };
  writes.sort((a, b) => order[a.op] - order[b.op]);
  return { changes, writes };
}

/** Sends the writes, in order; stops at the first failure (what was sent stays applied). */
export async function executeWrites(client: GradualClient, projectId: string, writes: Write[], reason: string | undefined): Promise<void> {
  const headers = reason ? { headers: { 'x-audit-reason': reason } } : {};
  for (const w of writes) {
    switch (w.op) {
      case 'createPlan':
        await client.createRolloutPlan({ path: { id: projectId }, body: { key: w.key, ...w.plan }, ...headers });
        break;
      case 'updatePlan':
        await client.updateRolloutPlan({ path: { id: projectId, planKey: w.key }, body: w.fields, ...headers });
        break;
      case 'createFlag': {
        const { op: _op, ...body } = w;
        await client.createFlag({ path: { id: projectId }, body, ...headers });
        break;
      }
      case 'createConfig': {
        const { op: _op, ...body } = w;
        await client.createConfig({ path: { id: projectId }, body, ...headers });
        break;
      }
      case 'setValue': {
        const request = { path: { envId: w.envId, key: w.key }, body: { value: w.value }, ...headers };
        await (w.kind === 'flag' ? client.setFlagValue(request) : client.setConfigValue(request));
        break;
      }
      case 'setRules': {
        const request = { path: { envId: w.envId, key: w.key }, body: { rules: w.rules }, ...headers };
        await (w.kind === 'flag' ? client.setFlagRules(request) : client.setConfigRules(request));
        break;
      }
    }
  }
}
