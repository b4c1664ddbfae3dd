import { createClient, type Environment, type GradualClient, type Project } from '@gradual/sdk';
import type { Command } from 'commander';
import { resolveSettings, type GlobalOptions, type Settings } from './config.js';
import { CliError } from './errors.js';
import { createOutput, type Output } from './output.js';

export interface Context {
  client: GradualClient;
  settings: Settings;
  out: Output;
}

/** The global options of the command being run (`--url`, `--token`, `--org`, `--json`). */
export function globalOptions(cmd: Command): GlobalOptions {
  return cmd.optsWithGlobals<GlobalOptions>();
}

export function outputFor(cmd: Command): Output {
  return createOutput(globalOptions(cmd).json === true);
}

/**
 * The API client with the resolved URL and token. It retries what a pipeline should not fail on
 * (a 429 for any request, a 5xx or lost answer for reads: the SDK's `retry`), twice at most.
 */
export async function connect(cmd: Command): Promise<Context> {
  const settings = await resolveSettings(globalOptions(cmd));
  return { client: createClient({ baseUrl: settings.url, token: settings.token, retry: true }), settings, out: outputFor(cmd) };
}

/** The organization: the one set (option, GRADUAL_ORG, config file), else the token's own. */
export async function resolveOrg(ctx: Context): Promise<string> {
  if (ctx.settings.org) return ctx.settings.org;
  const me = await ctx.client.whoami();
  if (me.type === 'api_key') return me.organization.slug;
  throw new CliError('missing_org', 'no organization: pass --org <slug>, set GRADUAL_ORG, or log in with --org');
}

/** A project of the organization by its key. */
export async function findProject(ctx: Context, key: string | undefined): Promise<Project> {
  const projectKey = key ?? process.env.GRADUAL_PROJECT;
  if (!projectKey) throw new CliError('missing_project', 'no project: pass --project <key> or set GRADUAL_PROJECT');
  const org = await resolveOrg(ctx);
  const projects = await ctx.client.listProjects({ path: { slug: org } });
  const project = projects.find((p) => p.key === projectKey);
  if (!project) {
    throw new CliError('project_not_found', `no project "${projectKey}" in organization "${org}" (projects: ${projects.map((p) => p.key).join(', ') || 'none'})`);
  }
  return project;
}

/** An environment of the project by its key. */
export async function findEnvironment(ctx: Context, project: Project, key: string | undefined): Promise<Environment> {
  const envKey = key ?? process.env.GRADUAL_ENV;
  if (!envKey) throw new CliError('missing_env', 'no environment: pass --env <key> or set GRADUAL_ENV');
  const envs = await ctx.client.listEnvironments({ path: { id: project.id } });
  const env = envs.find((e) => e.key === envKey);
  if (!env) {
    throw new CliError('environment_not_found', `no environment "${envKey}" in project "${project.key}" (environments: ${envs.map((e) => e.key).join(', ') || 'none'})`);
  }
  return env;
}

export type Kind = 'flag' | 'config';

/** The flag named by the positional argument, or the config named by `--config`. */
export function subjectOf(flag: string | undefined, config: string | undefined): { kind: Kind; key: string } {
  if (flag && config) throw new CliError('invalid_option', `name either a flag ("${flag}") or --config ("${config}"), not both`);
  if (flag) return { kind: 'flag', key: flag };
  if (config) return { kind: 'config', key: config };
  throw new CliError('invalid_option', 'name a flag (the first argument) or a config (--config <key>)');
}

/** Parses a JSON option value; a bare word that is not JSON is taken as a string. */
export function parseJsonOption(text: string, option: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    if (/^[A-Za-z_][\w.-]*$/.test(text)) return text;
    throw new CliError('invalid_option', `${option}: ${JSON.stringify(text)} is not JSON (quote strings: '"blue"')`);
  }
}

export function parsePercent(text: string, option: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0 || n > 100) throw new CliError('invalid_option', `${option}: "${text}" is not a percent between 0 and 100`);
  return n;
}
