/**
 * Step definitions for the OpenFeature specification's Gherkin suites
 * (tests/fixtures/openfeature-gherkin), run against GradualProvider by
 * openfeature-gherkin.test.ts, and the mapping of the specification's test
 * flags (specification/assets/gherkin/test-flags.json) onto Gradual flags and
 * configs.
 */
import { expect } from 'vitest';
import {
  OpenFeature,
  ProviderStatus,
  type Client,
  type EvaluationContext,
  type EvaluationDetails,
  type FlagValue,
  type Hook,
  type JsonValue,
  type Logger,
  type Provider,
  type ProviderMetadata,
} from '@openfeature/server-sdk';
import type { FlagMetadata, GradualClient, Rule } from '@gradual/sdk';
import { GradualProvider } from '@gradual/sdk/openfeature';

// ---------------------------------------------------------------------------
// The specification's flags in Gradual
// ---------------------------------------------------------------------------

/** The spec's `email == 'ballmer@macrosoft.com' ? 'zero' : ''` as a Gradual rule serving the `zero` variant. */
const BALLMER_ZERO: Rule = { conditions: [{ attribute: 'email', operator: 'in', values: ['ballmer@macrosoft.com'] }], variant: 'zero' };

type Variants = Record<string, JsonValue>;

/** A flag (boolean, string, number) or a config (JSON objects) with its variants, default variant and rules. */
type SpecFlag = {
  key: string;
  variants: Variants;
  defaultVariant: string;
  rules?: Rule[];
  archived?: true;
  metadata?: FlagMetadata;
} & ({ kind: 'flag'; valueType: 'boolean' | 'string' | 'number' } | { kind: 'config' });

const TEMPLATE = { showImages: true, title: 'Check out these pics!', imagesPerPage: 100 };
const ON_OFF: Variants = { on: true, off: false };
const GREETING: Variants = { greeting: 'hi', parting: 'bye' };
const TEN: Variants = { one: 1, ten: 10 };
const HALF: Variants = { tenth: 0.1, half: 0.5 };
const OBJECT: Variants = { empty: {}, template: TEMPLATE };
const INTERNAL: Variants = { internal: 'INTERNAL', external: 'EXTERNAL' };
const zero = (nonZero: JsonValue, zeroValue: JsonValue): Variants => ({ zero: zeroValue, 'non-zero': nonZero });

/**
 * test-flags.json as Gradual has it, one to one: the same variants and default variants; a
 * `contextEvaluator` is a rule serving its variant. Booleans, strings and numbers are flags, JSON
 * objects configs. `disabled: true` flags are archived (GradualProvider then serves the caller's
 * default with reason DISABLED). null-default-flag and undefined-default-flag (no default
 * variant) are not created: a Gradual flag always has a value, and no scenario evaluates them.
 */
export const SPEC_FLAGS: readonly SpecFlag[] = [
  { kind: 'flag', key: 'boolean-flag', valueType: 'boolean', variants: ON_OFF, defaultVariant: 'on' },
  { kind: 'flag', key: 'boolean-disabled-flag', valueType: 'boolean', variants: ON_OFF, defaultVariant: 'on', archived: true },
  { kind: 'flag', key: 'boolean-targeted-zero-flag', valueType: 'boolean', variants: zero(true, false), defaultVariant: 'zero', rules: [BALLMER_ZERO] },
  { kind: 'flag', key: 'boolean-zero-flag', valueType: 'boolean', variants: zero(true, false), defaultVariant: 'zero' },
  {
    // !customer && email == 'ballmer@macrosoft.com' && age > 10 ? 'internal' : 'external'
    kind: 'flag',
    key: 'complex-targeted',
    valueType: 'string',
    variants: INTERNAL,
    defaultVariant: 'external',
    rules: [
      {
        conditions: [
          { attribute: 'customer', operator: 'in', values: ['false'] },
          { attribute: 'email', operator: 'in', values: ['ballmer@macrosoft.com'] },
          { attribute: 'age', operator: 'gt', values: [10] },
        ],
        variant: 'internal',
      },
    ],
  },
  { kind: 'flag', key: 'float-flag', valueType: 'number', variants: HALF, defaultVariant: 'half' },
  { kind: 'flag', key: 'float-disabled-flag', valueType: 'number', variants: HALF, defaultVariant: 'half', archived: true },
  { kind: 'flag', key: 'float-targeted-zero-flag', valueType: 'number', variants: zero(1, 0), defaultVariant: 'zero', rules: [BALLMER_ZERO] },
  { kind: 'flag', key: 'float-zero-flag', valueType: 'number', variants: zero(1, 0), defaultVariant: 'zero' },
  { kind: 'flag', key: 'integer-flag', valueType: 'number', variants: TEN, defaultVariant: 'ten' },
  { kind: 'flag', key: 'integer-disabled-flag', valueType: 'number', variants: TEN, defaultVariant: 'ten', archived: true },
  { kind: 'flag', key: 'integer-targeted-zero-flag', valueType: 'number', variants: zero(1, 0), defaultVariant: 'zero', rules: [BALLMER_ZERO] },
  { kind: 'flag', key: 'integer-zero-flag', valueType: 'number', variants: zero(1, 0), defaultVariant: 'zero' },
  { kind: 'flag', key: 'metadata-flag', valueType: 'boolean', variants: ON_OFF, defaultVariant: 'on', metadata: { string: '1.0.2', integer: 2, float: 0.1, boolean: true } },
  { kind: 'config', key: 'object-flag', variants: OBJECT, defaultVariant: 'template' },
  { kind: 'config', key: 'object-disabled-flag', variants: OBJECT, defaultVariant: 'template', archived: true },
  { kind: 'config', key: 'object-targeted-zero-flag', variants: zero(TEMPLATE, {}), defaultVariant: 'zero', rules: [BALLMER_ZERO] },
  { kind: 'config', key: 'object-zero-flag', variants: zero(TEMPLATE, {}), defaultVariant: 'zero' },
  { kind: 'flag', key: 'string-flag', valueType: 'string', variants: GREETING, defaultVariant: 'greeting' },
  { kind: 'flag', key: 'string-disabled-flag', valueType: 'string', variants: GREETING, defaultVariant: 'greeting', archived: true },
  { kind: 'flag', key: 'string-targeted-zero-flag', valueType: 'string', variants: zero('str', ''), defaultVariant: 'zero', rules: [BALLMER_ZERO] },
  { kind: 'flag', key: 'string-zero-flag', valueType: 'string', variants: zero('str', ''), defaultVariant: 'zero' },
  { kind: 'flag', key: 'wrong-flag', valueType: 'string', variants: { one: 'uno', two: 'dos' }, defaultVariant: 'one' },
  {
    // fn == 'Sulisław' && ln == 'Świętopełk' && age == 29 && !customer ? 'internal' : 'external'
    kind: 'flag',
    key: 'context-aware',
    valueType: 'string',
    variants: INTERNAL,
    defaultVariant: 'external',
    rules: [
      {
        conditions: [
          { attribute: 'fn', operator: 'in', values: ['Sulisław'] },
          { attribute: 'ln', operator: 'in', values: ['Świętopełk'] },
          { attribute: 'age', operator: 'in', values: [29] },
          { attribute: 'customer', operator: 'in', values: ['false'] },
        ],
        variant: 'internal',
      },
    ],
  },
];

/** Creates SPEC_FLAGS in a project (flags and configs get their state in every environment), archiving the disabled ones. */
export async function createSpecFlags(session: GradualClient, projectId: string): Promise<void> {
  for (const f of SPEC_FLAGS) {
    const body = { key: f.key, name: f.key, variants: f.variants, defaultVariant: f.defaultVariant, ...(f.rules ? { rules: f.rules } : {}), ...(f.metadata ? { metadata: f.metadata } : {}) };
    if (f.kind === 'flag') {
      await session.createFlag({ path: { id: projectId }, body: { ...body, valueType: f.valueType } });
      if (f.archived) await session.archiveFlag({ path: { id: projectId, key: f.key } });
    } else {
      await session.createConfig({ path: { id: projectId }, body });
      if (f.archived) await session.archiveConfig({ path: { id: projectId, key: f.key } });
    }
  }
}

// ---------------------------------------------------------------------------
// Providers and the world each scenario runs in
// ---------------------------------------------------------------------------

/** A provider that keeps the evaluation context the SDK last handed it (contextMerging.feature), evaluating with `inner`. */
export class ContextRecorder implements Provider {
  lastContext: EvaluationContext | undefined;
  readonly runsOn = 'server';
  readonly metadata: ProviderMetadata;

  constructor(private readonly inner: Provider) {
    this.metadata = { name: `context recorder over ${inner.metadata.name}` };
  }

  initialize(context?: EvaluationContext): Promise<void> {
    return this.inner.initialize?.(context) ?? Promise.resolve();
  }

  onClose(): Promise<void> {
    return this.inner.onClose?.() ?? Promise.resolve();
  }

  resolveBooleanEvaluation(flagKey: string, defaultValue: boolean, context: EvaluationContext, logger: Logger) {
    this.lastContext = context;
    return this.inner.resolveBooleanEvaluation(flagKey, defaultValue, context, logger);
  }

  resolveStringEvaluation(flagKey: string, defaultValue: string, context: EvaluationContext, logger: Logger) {
    this.lastContext = context;
    return this.inner.resolveStringEvaluation(flagKey, defaultValue, context, logger);
  }

  resolveNumberEvaluation(flagKey: string, defaultValue: number, context: EvaluationContext, logger: Logger) {
    this.lastContext = context;
    return this.inner.resolveNumberEvaluation(flagKey, defaultValue, context, logger);
  }

  resolveObjectEvaluation<T extends JsonValue>(flagKey: string, defaultValue: T, context: EvaluationContext, logger: Logger) {
    this.lastContext = context;
    return this.inner.resolveObjectEvaluation(flagKey, defaultValue, context, logger);
  }
}

/** A provider state the scenarios ask for besides a stable (ready) provider. */
export type ProviderState = 'not ready' | 'error' | 'fatal' | 'stale';

/** What the scenarios share: the providers registered once for all of them, and how to make the others. */
export interface GherkinEnv {
  /** OpenFeature domain of the stable provider. */
  stableDomain: string;
  /** OpenFeature domain of a stable provider that records the context it is handed. */
  contextDomain: string;
  recorder: { lastContext: EvaluationContext | undefined };
  /**
   * Registers in `domain` a provider in `state`, as near as the provider under test comes to it,
   * and answers how to close it.
   */
  registerProvider(state: ProviderState, domain: string, client: Client): Promise<() => Promise<void>>;
}

/** fetch that fails like an unreachable server while `offline` is true. */
function switchableFetch() {
  const state = { offline: false };
  const f: typeof fetch = async (input, init) => {
    if (state.offline) throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED (simulated)') });
    return fetch(input, init);
  };
  return { fetch: f, state };
}

/** OpenFeature's logger: errors (except those starting with `expected`) and warnings to the console. */
export function quietOpenFeatureLogger(expected: string): void {
  OpenFeature.setLogger({
    error: (...args: unknown[]) => {
      if (args[0] !== expected) console.error(...args);
    },
    warn: (...args: unknown[]) => console.warn(...args),
    info: () => undefined,
    debug: () => undefined,
  });
}

const isProviderState = (s: string): s is ProviderState => ['not ready', 'error', 'fatal', 'stale'].includes(s);

/** GradualProvider in each state: waiting for, or giving up on, a ruleset the server does not have; a rejected token; a server gone. */
export function gradualProviderStates(options: { baseUrl: string; token: string; envId: string; emptyEnvId: string }): GherkinEnv['registerProvider'] {
  const { baseUrl, token, envId, emptyEnvId } = options;
  return async (state, domain, client) => {
    switch (state) {
      case 'not ready': {
        // Initialization waits for a ruleset the server does not have yet.
        const provider = new GradualProvider({ baseUrl, token, envId: emptyEnvId, logger: null, initTimeoutMs: 600_000 });
        OpenFeature.setProvider(domain, provider);
        expect(client.providerStatus).toBe(ProviderStatus.NOT_READY);
        return () => provider.onClose();
      }
      case 'error': {
        // Initialization gives up waiting for a first ruleset.
        const provider = new GradualProvider({ baseUrl, token, envId: emptyEnvId, logger: null, initTimeoutMs: 100 });
        await OpenFeature.setProviderAndWait(domain, provider).catch(() => undefined);
        return () => provider.onClose();
      }
      case 'fatal': {
        // The server rejects the token (401).
        const provider = new GradualProvider({ baseUrl, token: 'svc_not_a_real_token', envId, logger: null });
        await OpenFeature.setProviderAndWait(domain, provider).catch(() => undefined);
        return () => provider.onClose();
      }
      case 'stale': {
        // Ready, then the server cannot be reached.
        const net = switchableFetch();
        const provider = new GradualProvider({ baseUrl, token, envId, mode: 'poll', pollIntervalMs: 50, backoff: { initialMs: 20, maxMs: 100 }, fetch: net.fetch, logger: null });
        await OpenFeature.setProviderAndWait(domain, provider);
        net.state.offline = true;
        await expect.poll(() => client.providerStatus, { timeout: 5000 }).toBe(ProviderStatus.STALE);
        return () => provider.onClose();
      }
    }
  };
}

type FlagType = 'Boolean' | 'String' | 'Integer' | 'Float' | 'Object';
type HookStage = 'before' | 'after' | 'error' | 'finally';
const LEVELS = ['API', 'Transaction', 'Client', 'Invocation', 'Before Hooks'] as const;
type Level = (typeof LEVELS)[number];

let domains = 0;

export class World {
  client: Client;
  /** The flag of the "a <type>-flag with key … and a fallback value …" steps. */
  flag: { type: FlagType; key: string; fallback: FlagValue } | undefined;
  context: EvaluationContext = {};
  contextSnapshot: EvaluationContext | undefined;
  details: EvaluationDetails<FlagValue> | undefined;
  /** evaluation.feature: the last value of a plain (not detailed) evaluation. */
  value: FlagValue | undefined;
  hookCalls: { stage: HookStage; details?: EvaluationDetails<FlagValue> }[] = [];
  optionHooks: Hook[] = [];
  optionHookOrder: string[] = [];
  returnedPromise = false;
  levelOrder: string[] = [];
  transactionContext: EvaluationContext = {};
  beforeHookContext: EvaluationContext = {};
  private readonly cleanups: (() => void | Promise<void>)[] = [];

  constructor(readonly env: GherkinEnv) {
    this.client = OpenFeature.getClient(env.stableDomain);
  }

  /** Closes the providers the scenario created and clears the API-level context it set. */
  async cleanup(): Promise<void> {
    for (const c of this.cleanups.splice(0).reverse()) await c();
    OpenFeature.setContext({});
  }

  /** A domain of the scenario's own, with the client pointed at it. */
  private newDomain(): string {
    const domain = `gherkin-${++domains}`;
    this.client = OpenFeature.getClient(domain);
    return domain;
  }

  async givenProvider(status: string): Promise<void> {
    if (status === 'stable') {
      this.client = OpenFeature.getClient(this.env.stableDomain);
      return;
    }
    if (!isProviderState(status)) throw new Error(`no provider "${status}"`);
    const domain = this.newDomain();
    this.cleanups.push(await this.env.registerProvider(status, domain, this.client));
  }

  recordingHook(): Hook {
    return {
      before: () => void this.hookCalls.push({ stage: 'before' }),
      after: (_ctx, details) => void this.hookCalls.push({ stage: 'after', details }),
      error: () => void this.hookCalls.push({ stage: 'error' }),
      finally: (_ctx, details) => void this.hookCalls.push({ stage: 'finally', details }),
    };
  }

  orderHook(name: string): Hook {
    return {
      before: () => void this.optionHookOrder.push(`${name}.before`),
      after: () => void this.optionHookOrder.push(`${name}.after`),
      error: () => void this.optionHookOrder.push(`${name}.error`),
      finally: () => void this.optionHookOrder.push(`${name}.finally`),
    };
  }

  evaluateFlag(options: { hooks?: Hook[] } = {}): Promise<EvaluationDetails<FlagValue>> {
    const flag = this.flag;
    if (!flag) throw new Error('no flag given');
    return evaluateDetails(this.client, flag.type, flag.key, flag.fallback, this.context, options);
  }

  addContextEntry(level: string, key: string, value: string): void {
    if (!isLevel(level)) throw new Error(`unknown context level "${level}"`);
    switch (level) {
      case 'API':
        OpenFeature.setContext({ ...OpenFeature.getContext(), [key]: value });
        return;
      case 'Transaction':
        this.transactionContext[key] = value;
        return;
      case 'Client':
        this.client.setContext({ ...this.client.getContext(), [key]: value });
        return;
      case 'Invocation':
        this.context[key] = value;
        return;
      case 'Before Hooks':
        this.beforeHookContext[key] = value;
        return;
    }
  }

  /** contextMerging.feature: one boolean evaluation with every level's entries. */
  async evaluateSomeFlag(): Promise<void> {
    const beforeHookContext = this.beforeHookContext;
    const hooks: Hook[] = Object.keys(beforeHookContext).length > 0 ? [{ before: () => beforeHookContext }] : [];
    const evaluate = () => this.client.getBooleanDetails('boolean-flag', false, this.context, { hooks });
    if (Object.keys(this.transactionContext).length === 0) {
      this.details = await evaluate();
      return;
    }
    this.details = await new Promise<EvaluationDetails<boolean>>((resolve, reject) => {
      OpenFeature.setTransactionContext(this.transactionContext, () => evaluate().then(resolve, reject));
    });
  }
}

function isLevel(level: string): level is Level {
  return (LEVELS as readonly string[]).includes(level);
}

async function evaluateDetails(
  client: Client,
  type: FlagType,
  key: string,
  fallback: FlagValue,
  context: EvaluationContext,
  options: { hooks?: Hook[] },
): Promise<EvaluationDetails<FlagValue>> {
  switch (type) {
    case 'Boolean':
      if (typeof fallback !== 'boolean') throw new Error(`fallback ${JSON.stringify(fallback)} is not a boolean`);
      return client.getBooleanDetails(key, fallback, context, options);
    case 'String':
      if (typeof fallback !== 'string') throw new Error(`fallback ${JSON.stringify(fallback)} is not a string`);
      return client.getStringDetails(key, fallback, context, options);
    case 'Integer':
    case 'Float':
      if (typeof fallback !== 'number') throw new Error(`fallback ${JSON.stringify(fallback)} is not a number`);
      return client.getNumberDetails(key, fallback, context, options);
    case 'Object':
      if (typeof fallback !== 'object') throw new Error(`fallback ${JSON.stringify(fallback)} is not JSON`);
      return client.getObjectDetails(key, fallback, context, options);
  }
}

// ---------------------------------------------------------------------------
// Values as the feature files write them
// ---------------------------------------------------------------------------

/** `\"` in table cells and step text stands for `"`. */
function unescape(text: string): string {
  return text.replace(/\\"/g, '"');
}

function parseBoolean(text: string): boolean {
  if (text !== 'true' && text !== 'false') throw new Error(`"${text}" is not a boolean`);
  return text === 'true';
}

function parseNumber(text: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n)) throw new Error(`"${text}" is not a number`);
  return n;
}

function parseJson(text: string): JsonValue {
  const parsed: JsonValue = JSON.parse(unescape(text));
  return parsed;
}

function parseTyped(type: string, text: string): FlagValue {
  switch (type.toLowerCase()) {
    case 'boolean':
      return parseBoolean(text);
    case 'integer':
    case 'float':
      return parseNumber(text);
    case 'object':
      return parseJson(text);
    case 'string':
      return text;
    default:
      throw new Error(`unknown type "${type}"`);
  }
}

function flagType(text: string): FlagType {
  const t = text.charAt(0).toUpperCase() + text.slice(1).toLowerCase();
  if (t === 'Boolean' || t === 'String' || t === 'Integer' || t === 'Float' || t === 'Object') return t;
  throw new Error(`unknown flag type "${text}"`);
}

/** A field of the evaluation details as hooks.feature names it. */
function detailsField(details: EvaluationDetails<FlagValue>, key: string): unknown {
  switch (key) {
    case 'flag_key':
      return details.flagKey;
    case 'value':
      return details.value;
    case 'variant':
      return details.variant;
    case 'reason':
      return details.reason;
    case 'error_code':
      return details.errorCode;
    default:
      throw new Error(`unknown evaluation details field "${key}"`);
  }
}

function requireDetails(world: World): EvaluationDetails<FlagValue> {
  if (!world.details) throw new Error('no flag was evaluated with details');
  return world.details;
}

// ---------------------------------------------------------------------------
// Steps
// ---------------------------------------------------------------------------

export type DataTable = readonly (readonly string[])[];
type StepFn = (world: World, args: string[], table: DataTable | undefined) => void | Promise<void>;

function requireTable(table: DataTable | undefined): DataTable {
  if (!table) throw new Error('the step needs a data table');
  return table;
}

/** Rows of a table with a header row, as records. */
function records(table: DataTable): Record<string, string>[] {
  const [header, ...rows] = table;
  if (!header) return [];
  return rows.map((row) => Object.fromEntries(header.map((h, i) => [h, row[i] ?? ''])));
}

const STEPS: [RegExp, StepFn][] = [
  // Providers
  [/^a stable provider$/, (w) => w.givenProvider('stable')],
  [/^an? (not ready|error|fatal|stale) provider$/, (w, [status]) => w.givenProvider(status!)],
  [
    /^a stable provider with retrievable context is registered$/,
    (w) => {
      w.client = OpenFeature.getClient(w.env.contextDomain);
      w.env.recorder.lastContext = undefined;
    },
  ],
  [/^the provider status should be "([^"]*)"$/, (w, [status]) => void expect(w.client.providerStatus).toBe(status)],

  // evaluation_v2, metadata, hooks: the flag, the context, the evaluation
  [
    /^a (boolean|string|integer|float|object)-flag with key "([^"]*)" and a fallback value "(.*)"$/i,
    (w, [type, key, fallback]) => {
      const t = flagType(type!);
      w.flag = { type: t, key: key!, fallback: parseTyped(t, fallback!) };
    },
  ],
  [
    /^a context containing a key "([^"]*)", with type "([^"]*)" and with value "([^"]*)"$/,
    (w, [key, type, value]) => void (w.context[key!] = parseTyped(type!, value!)),
  ],
  [/^a context containing a key "([^"]*)" with null value$/, (w, [key]) => void (w.context[key!] = null)],
  [
    /^an evaluation context with modifiable data$/,
    (w) => {
      w.context = { targetingKey: 'user-1', email: 'ballmer@macrosoft.com', tags: ['a', 'b'], address: { city: 'Kraków' } };
      w.contextSnapshot = structuredClone(w.context);
    },
  ],
  [/^the flag was evaluated with details$/, async (w) => void (w.details = await w.evaluateFlag())],
  [
    /^the flag was evaluated with details asynchronously$/,
    async (w) => {
      const pending = w.evaluateFlag();
      w.returnedPromise = pending instanceof Promise;
      w.details = await pending;
    },
  ],
  [/^evaluation options containing specific hooks$/, (w) => void (w.optionHooks = [w.orderHook('first'), w.orderHook('second')])],
  [
    /^the flag was evaluated with details using the evaluation options$/,
    async (w) => void (w.details = await w.evaluateFlag({ hooks: w.optionHooks })),
  ],

  // evaluation_v2, metadata: the outcome
  [
    /^the resolved details value should be "(.*)"$/,
    (w, [expected]) => {
      const type = w.flag?.type ?? 'String';
      expect(requireDetails(w).value).toEqual(parseTyped(type, expected!));
    },
  ],
  [/^the reason should be "([^"]*)"$/, (w, [reason]) => void expect(requireDetails(w).reason).toBe(reason)],
  [/^the error-code should be "([^"]*)"$/, (w, [code]) => void expect(requireDetails(w).errorCode).toBe(code)],
  [/^the variant should be "([^"]*)"$/, (w, [variant]) => void expect(requireDetails(w).variant).toBe(variant)],
  [/^the flag key should be "([^"]*)"$/, (w, [key]) => void expect(requireDetails(w).flagKey).toBe(key)],
  [
    /^the resolved metadata should contain$/,
    (w, _args, table) => {
      const metadata = requireDetails(w).flagMetadata;
      for (const row of records(requireTable(table))) {
        expect(metadata[row.key!], `flag metadata "${row.key}"`).toEqual(parseTyped(row.metadata_type!, row.value!));
      }
    },
  ],
  [/^the resolved metadata is empty$/, (w) => void expect(requireDetails(w).flagMetadata).toEqual({})],
  [/^the evaluation should complete without blocking$/, (w) => void expect(w.returnedPromise, 'the evaluation returned a promise').toBe(true)],
  [
    /^the original evaluation context should remain unmodified$/,
    (w) => void expect(w.context).toEqual(w.contextSnapshot),
  ],
  [
    /^the evaluation details should be immutable$/,
    (w) => {
      const metadata = requireDetails(w).flagMetadata;
      expect(Object.isFrozen(metadata), 'flag metadata is frozen').toBe(true);
      expect(Reflect.set(metadata, 'written', true)).toBe(false);
    },
  ],
  [
    /^the specified hooks should execute during evaluation$/,
    (w) => {
      for (const name of ['first', 'second']) {
        for (const stage of ['before', 'after', 'finally']) expect(w.optionHookOrder).toContain(`${name}.${stage}`);
      }
    },
  ],
  [
    /^the hook order should be maintained$/,
    (w) => {
      // Spec 4.4.2: before hooks run in order, after/error/finally hooks in reverse.
      const of = (stage: string) => w.optionHookOrder.filter((e) => e.endsWith(`.${stage}`));
      expect(of('before')).toEqual(['first.before', 'second.before']);
      expect(of('after')).toEqual(['second.after', 'first.after']);
      expect(of('finally')).toEqual(['second.finally', 'first.finally']);
    },
  ],

  // hooks.feature
  [/^a client with added hook$/, (w) => void w.client.addHooks(w.recordingHook())],
  [
    /^the "([^"]*)" hook should have been executed$/,
    (w, [stage]) => void expect(w.hookCalls.map((c) => c.stage)).toContain(stage),
  ],
  [
    /^the "([^"]*)" hooks should be called with evaluation details$/,
    (w, [stages], table) => {
      for (const stage of stages!.split(',').map((s) => s.trim())) {
        const call = w.hookCalls.find((c) => c.stage === stage);
        if (!call?.details) throw new Error(`the "${stage}" hook was not called with evaluation details`);
        for (const row of records(requireTable(table))) {
          const actual = detailsField(call.details, row.key!);
          if (row.value === 'null') expect(actual ?? null, `${stage}: ${row.key}`).toBeNull();
          else expect(actual, `${stage}: ${row.key}`).toEqual(parseTyped(row.data_type!, row.value!));
        }
      }
    },
  ],

  // contextMerging.feature
  [
    /^A context entry with key "([^"]*)" and value "([^"]*)" is added to the "([^"]*)" level$/,
    (w, [key, value, level]) => w.addContextEntry(level!, key!, value!),
  ],
  [/^A table with levels of increasing precedence$/, (w, _args, table) => void (w.levelOrder = requireTable(table).map((row) => row[0] ?? ''))],
  [
    /^Context entries for each level from API level down to the "([^"]*)" level, with key "([^"]*)" and value "([^"]*)"$/,
    (w, [last, key, value]) => {
      const end = w.levelOrder.indexOf(last!);
      if (end < 0) throw new Error(`"${last}" is not in the table of levels`);
      for (const level of w.levelOrder.slice(0, end + 1)) w.addContextEntry(level, key!, value!);
    },
  ],
  [/^Some flag was evaluated$/, (w) => w.evaluateSomeFlag()],
  [
    /^The merged context contains an entry with key "([^"]*)" and value "([^"]*)"$/,
    (w, [key, value]) => void expect(w.env.recorder.lastContext?.[key!], `merged context "${key}"`).toBe(value),
  ],

  // evaluation.feature (the older phrasings)
  [
    /^an? (boolean|string|integer|float) flag with key "([^"]*)" is evaluated with default value "?([^"]*)"?$/,
    async (w, [type, key, fallback]) => {
      const t = flagType(type!);
      w.flag = { type: t, key: key!, fallback: parseTyped(t, fallback!) };
      w.value = (await w.evaluateFlag()).value;
    },
  ],
  [
    /^an object flag with key "([^"]*)" is evaluated with a null default value$/,
    async (w, [key]) => void (w.value = await w.client.getObjectValue(key!, null, w.context)),
  ],
  [
    /^an? (boolean|string|integer|float) flag with key "([^"]*)" is evaluated with details and default value "?([^"]*)"?$/,
    async (w, [type, key, fallback]) => {
      const t = flagType(type!);
      w.flag = { type: t, key: key!, fallback: parseTyped(t, fallback!) };
      w.details = await w.evaluateFlag();
    },
  ],
  [
    /^an object flag with key "([^"]*)" is evaluated with details and a null default value$/,
    async (w, [key]) => {
      w.flag = { type: 'Object', key: key!, fallback: null };
      w.details = await w.client.getObjectDetails(key!, null, w.context);
    },
  ],
  [
    /^the resolved (boolean|string|integer|float) value should be "?([^"]*)"?$/,
    (w, [type, expected]) => void expect(w.value).toEqual(parseTyped(type!, expected!)),
  ],
  [
    /^the resolved (boolean|string|integer|float) details value should be "?([^",]*)"?, the variant should be "([^"]*)", and the reason should be "([^"]*)"$/,
    (w, [type, expected, variant, reason]) => {
      const details = requireDetails(w);
      expect(details.value).toEqual(parseTyped(type!, expected!));
      expect(details.variant).toBe(variant);
      expect(details.reason).toBe(reason);
    },
  ],
  [
    /^the resolved object (?:details )?value should be contain fields "([^"]*)", "([^"]*)", and "([^"]*)", with values "([^"]*)", "([^"]*)" and (\d+), respectively$/,
    (w, [f1, f2, f3, v1, v2, v3]) => {
      const value = w.details && w.value === undefined ? w.details.value : w.value;
      expect(value).toMatchObject({ [f1!]: parseBoolean(v1!), [f2!]: v2, [f3!]: parseNumber(v3!) });
    },
  ],
  [
    /^the variant should be "([^"]*)", and the reason should be "([^"]*)"$/,
    (w, [variant, reason]) => {
      expect(requireDetails(w).variant).toBe(variant);
      expect(requireDetails(w).reason).toBe(reason);
    },
  ],
  [
    /^context contains keys "([^"]*)", "([^"]*)", "([^"]*)", "([^"]*)" with values "([^"]*)", "([^"]*)", (\d+), "([^"]*)"$/,
    (w, [k1, k2, k3, k4, v1, v2, v3, v4]) => {
      w.context = { [k1!]: v1!, [k2!]: v2!, [k3!]: parseNumber(v3!), [k4!]: parseBoolean(v4!) };
    },
  ],
  [
    /^a flag with key "([^"]*)" is evaluated with default value "([^"]*)"$/,
    async (w, [key, fallback]) => {
      w.flag = { type: 'String', key: key!, fallback: fallback! };
      w.value = await w.client.getStringValue(key!, fallback!, w.context);
    },
  ],
  [/^the resolved string response should be "([^"]*)"$/, (w, [expected]) => void expect(w.value).toBe(expected)],
  [
    /^the resolved flag value is "([^"]*)" when the context is empty$/,
    async (w, [expected]) => {
      const flag = w.flag;
      if (!flag || typeof flag.fallback !== 'string') throw new Error('no string flag was evaluated');
      expect(await w.client.getStringValue(flag.key, flag.fallback, {})).toBe(expected);
    },
  ],
  [
    /^a non-existent string flag with key "([^"]*)" is evaluated with details and a fallback value "([^"]*)"$/,
    async (w, [key, fallback]) => {
      w.flag = { type: 'String', key: key!, fallback: fallback! };
      w.details = await w.evaluateFlag();
    },
  ],
  [
    /^a string flag with key "([^"]*)" is evaluated as an integer, with details and a fallback value (\d+)$/,
    async (w, [key, fallback]) => {
      w.flag = { type: 'Integer', key: key!, fallback: parseNumber(fallback!) };
      w.details = await w.evaluateFlag();
    },
  ],
  [
    /^the default (string|integer) value should be returned$/,
    (w) => void expect(requireDetails(w).value).toEqual(w.flag?.fallback),
  ],
  [
    /^the reason should indicate an error and the error code should indicate (?:a missing flag|a type mismatch) with "([^"]*)"$/,
    (w, [code]) => {
      expect(requireDetails(w).reason).toBe('ERROR');
      expect(requireDetails(w).errorCode).toBe(code);
    },
  ],
];

/** Runs one step; a step no definition matches fails with its text. */
export async function runStep(world: World, text: string, table: DataTable | undefined): Promise<void> {
  for (const [pattern, fn] of STEPS) {
    const match = pattern.exec(text);
    if (match) {
      await fn(world, match.slice(1), table);
      return;
    }
  }
  throw new Error(`no step definition matches "${text}"`);
}
