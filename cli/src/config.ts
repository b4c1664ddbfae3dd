import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { BlockList, isIP, isIPv6 } from 'node:net';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { CliError } from './errors.js';

/** What `gradual login` stores. */
export const StoredConfig = z.object({
  url: z.string().url(),
  token: z.string().min(1),
  org: z.string().min(1).optional(),
});
export type StoredConfig = z.infer<typeof StoredConfig>;

/**
 * The config file: `$GRADUAL_CONFIG`, else `$XDG_CONFIG_HOME/gradual/config.json`, else
 * `~/.config/gradual/config.json`.
 */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.GRADUAL_CONFIG) return env.GRADUAL_CONFIG;
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'gradual', 'config.json');
}

export async function readConfig(path: string): Promise<StoredConfig | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if (err instanceof Error && 'code' in err && err.code === 'ENOENT') return undefined;
    throw err;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CliError('invalid_config', `${path} is not JSON; run \`gradual login\` again`);
  }
  const result = StoredConfig.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new CliError('invalid_config', `${path}: ${issue?.path.join('.') || 'value'}: ${issue?.message ?? 'invalid'}; run \`gradual login\` again`);
  }
  return result.data;
}

/**
 * Writes the file, holding a token, readable by its owner only: the token goes into a new file
 * created with mode 0600 beside it (never into an existing file, whose mode or other links could
 * let others read it), which then replaces the file. Directories it creates are 0700.
 */
export async function writeConfig(path: string, config: StoredConfig): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const temporary = join(dir, `.${basename(path)}.${randomBytes(8).toString('hex')}.tmp`);
  try {
    // `wx`: created here, or the write fails; the mode is set as the file is created.
    await writeFile(temporary, JSON.stringify(config, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
    await rename(temporary, path);
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * Whether a server URL sends the token over the network in clear text: plain `http://` to a host
 * other than this machine (`localhost`, 127.0.0.0/8 and ::1, with or without a trailing dot).
 */
export function cleartextToAnotherHost(url: URL): boolean {
  if (url.protocol !== 'http:') return false;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.+$/, '').toLowerCase();
  if (host === 'localhost') return false;
  if (isIP(host) === 0) return true;
  // BlockList reads IPv4-mapped IPv6 (::ffff:127.0.0.1) as its IPv4 address.
  return !LOOPBACK.check(host, isIPv6(host) ? 'ipv6' : 'ipv4');
}

export async function removeConfig(path: string): Promise<boolean> {
  try {
    await rm(path);
    return true;
  } catch (err) {
    if (err instanceof Error && 'code' in err && err.code === 'ENOENT') return false;
    throw err;
  }
}

export type Source = 'option' | 'environment' | 'config file';

export interface Settings {
  url: string;
  token: string;
  org: string | undefined;
  sources: { url: Source; token: Source; org: Source | undefined };
}

export interface GlobalOptions {
  url?: string;
  token?: string;
  org?: string;
  json?: boolean;
}

/** Options override the environment (`GRADUAL_URL`, `GRADUAL_TOKEN`, `GRADUAL_ORG`), which overrides the file. */
export async function resolveSettings(options: GlobalOptions, env: NodeJS.ProcessEnv = process.env): Promise<Settings> {
  const path = configPath(env);
  const file = await readConfig(path);
  const pick = (option: string | undefined, envValue: string | undefined, fileValue: string | undefined) =>
    option ? { value: option, source: 'option' as const } : envValue ? { value: envValue, source: 'environment' as const } : fileValue ? { value: fileValue, source: 'config file' as const } : undefined;
  const url = pick(options.url, env.GRADUAL_URL, file?.url);
  const token = pick(options.token, env.GRADUAL_TOKEN, file?.token);
  const org = pick(options.org, env.GRADUAL_ORG, file?.org);
  if (!url || !token) {
    const missing = [!url && 'server URL', !token && 'token'].filter(Boolean).join(' and ');
    throw new CliError('not_logged_in', `no ${missing}: run \`gradual login --url <url> --org <slug>\`, set GRADUAL_URL and GRADUAL_TOKEN, or pass --url and --token`);
  }
  return { url: url.value, token: token.value, org: org?.value, sources: { url: url.source, token: token.source, org: org?.source } };
}
