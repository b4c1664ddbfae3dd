import type { ConditionOperator, Config, ConfigState, Environment, Flag, FlagState, GradualClient, Project, RolloutPlan } from '@gradual/sdk';
import type { GradualFile, Json } from './schema.js';
import { GUARD_DEFAULTS } from '@gradual/contract/limits';

/** Everything of a project that gradual.yaml describes, as the server has it. */
export interface Remote {
  project: Project;
  environments: Environment[];
  plans: RolloutPlan[];
  flags: Flag[];
  configs: Config[];
  /** envId → key → state */
  flagStates: Map<string, Map<string, FlagState>>;
  configStates: Map<string, Map<string, ConfigState>>;
}

export async function readRemote(client: GradualClient, project: Project): Promise<Remote> {
  const path = { id: project.id };
  const [environments, plans, flags, configs] = await Promise.all([
    client.listEnvironments({ path }),
    client.listRolloutPlans({ path }),
    client.listFlags({ path }),
    client.listConfigs({ path }),
  ]);
  const flagStates = new Map<string, Map<string, FlagState>>();
  const configStates = new Map<string, Map<string, ConfigState>>();
  await Promise.all(
    environments.map(async (env) => {
      const [f, c] = await Promise.all([client.listFlagStates({ path: { envId: env.id } }), client.listConfigStates({ path: { envId: env.id } })]);
      flagStates.set(env.id, new Map(f.map((s) => [s.key, s])));
      configStates.set(env.id, new Map(c.map((s) => [s.key, s])));
    }),
  );
  return { project, environments, plans, flags, configs, flagStates, configStates };
}

/** Sorts object keys so that two equal JSON values have one text. */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => [k, sorted(v)]),
    );
  }
  return value;
}

export const canonical = (value: unknown): string => JSON.stringify(sorted(value)) ?? 'undefined';
export const same = (a: unknown, b: unknown): boolean => canonical(a) === canonical(b);

interface RuleLike {
  description?: string;
  conditions: { attribute: string; operator: ConditionOperator; values: (string | number)[] }[];
  value?: unknown;
}

/** A rule as gradual.yaml writes it (no empty description, fields in the contract's order). */
export function normalRule(rule: RuleLike): { description?: string; conditions: RuleLike['conditions']; value: Json } {
  return {
    ...(rule.description ? { description: rule.description } : {}),
    conditions: rule.conditions.map((c) => ({ attribute: c.attribute, operator: c.operator, values: [...c.values] })),
    value: toJson(rule.value),
  };
}

interface StepLike {
  percent: number;
  holdForSeconds: number;
  requiresApproval?: boolean;
  guard?: { metrics: Array<{ key: string; margin?: number; action?: 'rollback' | 'pause' }>; minUnitsPerArm?: number; maxHoldFactor?: number };
}
/** Steps as the server stores them: a guard with its defaults (GUARD_DEFAULTS), so a file that leaves them out matches. */
export const normalSteps = (steps: StepLike[]) =>
  steps.map((s) => ({
    percent: s.percent,
    holdForSeconds: s.holdForSeconds,
    ...(s.requiresApproval ? { requiresApproval: true } : {}),
    ...(s.guard
      ? {
          guard: {
            metrics: s.guard.metrics.map((m) => ({ key: m.key, margin: m.margin ?? GUARD_DEFAULTS.margin, action: m.action ?? GUARD_DEFAULTS.action })),
            minUnitsPerArm: s.guard.minUnitsPerArm ?? GUARD_DEFAULTS.minUnitsPerArm,
            maxHoldFactor: s.guard.maxHoldFactor ?? GUARD_DEFAULTS.maxHoldFactor,
          },
        }
      : {}),
  }));

/** A value the API sent as JSON, typed as JSON (`undefined` becomes null). */
export function toJson(value: unknown): Json {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) return value.map(toJson);
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJson(v)]));
  return null;
}

const byKey = <T extends { key: string }>(a: T, b: T) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

/** The project as gradual.yaml: applying it back changes nothing. */
export function exportFile(remote: Remote): GradualFile {
  const envs = [...remote.environments].sort(byKey);
  const environmentsOf = (stateOf: (envId: string) => { value?: unknown; rules: RuleLike[] } | undefined) =>
    Object.fromEntries(
      envs.flatMap((env) => {
        const state = stateOf(env.id);
        return state ? [[env.key, { value: toJson(state.value), rules: state.rules.map(normalRule) }]] : [];
      }),
    );
  return {
    version: 1,
    project: remote.project.key,
    plans: Object.fromEntries(
      [...remote.plans].sort(byKey).map((p) => [
        p.key,
        {
          name: p.name,
          ...(p.description ? { description: p.description } : {}),
          cadence: p.cadence,
          rampSteps: normalSteps(p.rampSteps),
          blackoutDaysOfWeek: [...p.blackoutDaysOfWeek],
          blackoutTimezone: p.blackoutTimezone,
        },
      ]),
    ),
    flags: Object.fromEntries(
      [...remote.flags].sort(byKey).map((f) => [
        f.key,
        {
          name: f.name,
          ...(f.description ? { description: f.description } : {}),
          valueType: f.valueType,
          defaultValue: toJson(f.defaultValue),
          environments: environmentsOf((envId) => remote.flagStates.get(envId)?.get(f.key)),
        },
      ]),
    ),
    configs: Object.fromEntries(
      [...remote.configs].sort(byKey).map((c) => [
        c.key,
        {
          name: c.name,
          ...(c.description ? { description: c.description } : {}),
          defaultValue: toJson(c.defaultValue),
          environments: environmentsOf((envId) => remote.configStates.get(envId)?.get(c.key)),
        },
      ]),
    ),
  };
}
