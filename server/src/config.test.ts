import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, type Config } from './config.js';

/** The refusal message for `env`, or the config when it is accepted. */
function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error(`accepted: ${JSON.stringify(env)}`);
}

const TRUST_PROXY_FORMS = /is not one of the accepted forms: a hop count \(0, 1, 2…\), true or false, or a comma-separated list of loopback, linklocal, uniquelocal, IP addresses and CIDR ranges/;

describe('TRUST_PROXY', () => {
  const accepted: Array<[string | undefined, Config['trustProxy']]> = [
    [undefined, false],
    ['false', false],
    ['true', true],
    ['0', 0],
    ['1', 1],
    ['2', 2],
    ['loopback', ['loopback']],
    ['loopback, linklocal,uniquelocal', ['loopback', 'linklocal', 'uniquelocal']],
    ['10.0.0.1', ['10.0.0.1']],
    ['10.0.0.0/8, 192.168.1.0/24', ['10.0.0.0/8', '192.168.1.0/24']],
    ['::1', ['::1']],
    ['fd00::/8,loopback', ['fd00::/8', 'loopback']],
    ['0.0.0.0/0', ['0.0.0.0/0']],
  ];
  it.each(accepted)('accepts %j as %j', (value, expected) => {
    expect(loadConfig(value === undefined ? {} : { TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  const refused = ['yes', 'TRUE', '1.5', '-1', 'loopbak', '10.0.0.0/33', '::/129', '127.1', '10.0.0.1/8/1', '10.0.0.1,', 'loopback;10.0.0.0/8', 'http://proxy'];
  it.each(refused)('refuses %j, naming the variable and the accepted forms', (value) => {
    const message = refusal({ TRUST_PROXY: value });
    expect(message).toMatch(/^Invalid configuration/);
    expect(message).toMatch(/^ {2}TRUST_PROXY: ".*" is not one of the accepted forms/m);
    expect(message).toMatch(TRUST_PROXY_FORMS);
  });

  it('names only the entries it refuses', () => {
    expect(refusal({ TRUST_PROXY: 'loopback, 10.0.0.0/40, proxy' })).toContain('TRUST_PROXY: "10.0.0.0/40", "proxy" is not one of');
  });
});

describe('the other variables', () => {
  const accepted: Array<[Record<string, string>, Partial<Config>]> = [
    [{}, { port: 8080, host: '0.0.0.0', publicUrlConfigured: false, publicSignup: false, databaseUrl: undefined }],
    [{ PORT: '0' }, { port: 0 }],
    [{ PORT: '65535' }, { port: 65535 }],
    [{ HOST: '127.0.0.1' }, { host: '127.0.0.1' }],
    [{ HOST: '::' }, { host: '::' }],
    [{ HOST: 'localhost' }, { host: 'localhost' }],
    [{ HOST: 'gradual-1.internal' }, { host: 'gradual-1.internal' }],
    [{ DATABASE_URL: 'postgres://u:p@db:5432/gradual' }, { databaseUrl: 'postgres://u:p@db:5432/gradual' }],
    [{ DATABASE_URL: 'postgresql://db/gradual' }, { databaseUrl: 'postgresql://db/gradual' }],
    [{ REDIS_URL: 'redis://127.0.0.1:6379' }, { redisUrl: 'redis://127.0.0.1:6379' }],
    [{ REDIS_URL: 'rediss://cache:6380/0' }, { redisUrl: 'rediss://cache:6380/0' }],
    [{ SMTP_URL: 'smtp://mail:587' }, { smtpUrl: 'smtp://mail:587' }],
    [{ SMTP_URL: 'smtps://u:p@mail:465' }, { smtpUrl: 'smtps://u:p@mail:465' }],
    [{ PROMETHEUS_URL: 'http://prometheus:9090/' }, { prometheusUrl: 'http://prometheus:9090' }],
    [{ PUBLIC_URL: 'https://flags.example.com/' }, { publicUrl: 'https://flags.example.com', publicUrlConfigured: true }],
    [{ PUBLIC_URL: 'http://127.0.0.1:8080' }, { publicUrl: 'http://127.0.0.1:8080' }],
    [{ SERVICE_PUBLIC_SIGNUP: '1' }, { publicSignup: true }],
    [{ SERVICE_PUBLIC_SIGNUP: 'true' }, { publicSignup: true }],
    [{ SERVICE_PUBLIC_SIGNUP: '0' }, { publicSignup: false }],
    [{ SERVICE_PUBLIC_SIGNUP: 'false' }, { publicSignup: false }],
    [{ LOG_LEVEL: 'debug' }, { logLevel: 'debug' }],
  ];
  it.each(accepted)('accepts %j', (env, expected) => {
    expect(loadConfig(env)).toMatchObject(expected);
  });

  const refused: Array<[Record<string, string>, string]> = [
    [{ PORT: '' }, 'PORT: is set but empty; unset it or give it a value'],
    [{ PORT: '65536' }, 'PORT: must be a port number, 0 to 65535 (0: the system chooses one)'],
    [{ PORT: '8080.0' }, 'PORT: must be a port number'],
    [{ PORT: '0x1f90' }, 'PORT: must be a port number'],
    [{ PORT: '1e3' }, 'PORT: must be a port number'],
    [{ PORT: ' 8080' }, 'PORT: must be a port number'],
    [{ HOST: '[::1]' }, 'HOST: must be an IP address or a host name, e.g. 0.0.0.0, ::, 127.0.0.1 or localhost (an IPv6 address without brackets)'],
    [{ HOST: '0.0.0.0:8080' }, 'HOST: must be an IP address or a host name'],
    [{ HOST: 'http://localhost' }, 'HOST: must be an IP address or a host name'],
    [{ DATABASE_URL: '' }, 'DATABASE_URL: is set but empty; unset it or give it a value'],
    [{ DATABASE_URL: 'mysql://db/gradual' }, 'DATABASE_URL: must be a URL starting with postgres:// or postgresql://, e.g. postgres://'],
    [{ DATABASE_URL: 'db:5432/gradual' }, 'DATABASE_URL: must be a URL starting with postgres:// or postgresql://'],
    [{ REDIS_URL: 'http://cache:6379' }, 'REDIS_URL: must be a URL starting with redis:// or rediss://, e.g. redis://127.0.0.1:6379'],
    [{ REDIS_URL: '127.0.0.1:6379' }, 'REDIS_URL: must be a URL starting with redis:// or rediss://'],
    [{ SMTP_URL: 'mail.example.com:587' }, 'SMTP_URL: must be a URL starting with smtp:// or smtps://'],
    [{ PROMETHEUS_URL: 'prometheus:9090' }, 'PROMETHEUS_URL: must be a URL starting with http:// or https://'],
    [{ SMTP_URL: 'https://mail.example.com' }, 'SMTP_URL: must be a URL starting with smtp:// or smtps://'],
    [{ PUBLIC_URL: 'localhost:8080' }, 'PUBLIC_URL: must be a URL starting with http:// or https://, e.g. https://flags.example.com'],
    [{ PUBLIC_URL: 'flags.example.com' }, 'PUBLIC_URL: must be a URL starting with http:// or https://'],
    [{ PUBLIC_URL: 'ftp://flags.example.com' }, 'PUBLIC_URL: must be a URL starting with http:// or https://'],
    [{ PUBLIC_URL: 'https://flags.example.com/?x=1' }, 'PUBLIC_URL: must be a plain address without a query, fragment or user name'],
    [{ PUBLIC_URL: 'https://admin:pw@flags.example.com' }, 'PUBLIC_URL: must be a plain address without a query, fragment or user name'],
    [{ SERVICE_PUBLIC_SIGNUP: '' }, 'SERVICE_PUBLIC_SIGNUP: is set but empty; unset it or give it a value'],
    [{ SERVICE_PUBLIC_SIGNUP: 'yes' }, 'SERVICE_PUBLIC_SIGNUP: must be 1 or true (on), 0 or false (off)'],
    [{ SERVICE_CHECK_RESPONSES: 'on' }, 'SERVICE_CHECK_RESPONSES: must be 1 or true (on), 0 or false (off)'],
    [{ SERVICE_TOPOLOGY: 'cloud' }, 'SERVICE_TOPOLOGY: Invalid enum value'],
    [{ LOG_LEVEL: 'INFO' }, "LOG_LEVEL: Invalid enum value. Expected 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent', received 'INFO'"],
    [{ SERVICE_TEST_CLOCK: '1', NODE_ENV: 'production' }, 'SERVICE_TEST_CLOCK: refused when NODE_ENV=production'],
  ];
  it.each(refused)('refuses %j', (env, message) => {
    expect(refusal(env)).toContain(`  ${message}`);
  });

  it('names every refused variable at once', () => {
    const message = refusal({ PORT: 'http', TRUST_PROXY: 'yes', REDIS_URL: '' });
    expect(message.split('\n').slice(1).map((line) => line.trim().split(':')[0])).toEqual(['REDIS_URL', 'PORT', 'TRUST_PROXY']);
  });
});

describe('unknown variables', () => {
  it('warns about unknown SERVICE_* and GRADUAL_* variables, suggesting the closest known one', () => {
    expect(loadConfig({ SERVICE_TOPOLGY: 'hosted', GRADUAL_PORT: '80', SERVICE_WHATEVER_ELSE: '1', HOME: '/root' }).warnings).toEqual([
      'SERVICE_TOPOLGY is not a setting of this server and is ignored (did you mean SERVICE_TOPOLOGY?)',
      'GRADUAL_PORT is not a setting of this server and is ignored',
      'SERVICE_WHATEVER_ELSE is not a setting of this server and is ignored',
    ]);
  });

  it('leaves the test harness variables and known ones alone', () => {
    expect(loadConfig({ GRADUAL_REQUIRE_BROWSER: '1', GRADUAL_TEST_VIA_PRISM: '1', GRADUAL_CHROMIUM: '/x', SERVICE_TOPOLOGY: 'hosted' }).warnings).toEqual([]);
  });
});

describe('start-up with a refused value', () => {
  it('prints the message naming the variable and exits 2', () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const run = spawnSync(process.execPath, ['--conditions=@gradual/source', '--import', 'tsx', 'server/src/main.ts'], {
      cwd: root,
      env: { PATH: process.env.PATH, TRUST_PROXY: 'yes', PORT: '0', DATA_DIR: '/nonexistent/never-opened' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('Invalid configuration (docs/operations.md describes every variable):\n  TRUST_PROXY: "yes" is not one of the accepted forms');
    expect(run.stdout).toBe('');
  });
});
