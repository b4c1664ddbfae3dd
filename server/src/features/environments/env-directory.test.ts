import { describe, expect, it } from 'vitest';
import { manualLoader, settle } from '../../../../tests/support/manual-loader.js';
import { InProcessEnvChangeBus } from './env-changes.js';
import { EnvDirectory, type EnvSummary } from './env-directory.js';

describe('EnvDirectory: refresh-ahead', () => {
  const ID = '00000000-0000-4000-8000-000000000001';
  const env = (version: number): EnvSummary => ({ id: ID, orgId: 'o', projectId: 'p', version });
  /** The full route's first read (through a stand-in EntityManager). */
  const seed = (envs: EnvDirectory, version: number) => envs.get({ findOne: () => Promise.resolve(env(version)) } as never, ID);

  it('re-reads a polled environment before it expires, keeping the newest version it has heard of', async () => {
    let now = 0;
    const bus = new InProcessEnvChangeBus();
    const loader = manualLoader<EnvSummary>();
    const envs = new EnvDirectory(bus, { load: loader.load, ttlMs: 1000, now: () => now });
    await seed(envs, 3);
    now = 600;
    expect(envs.peek(ID)?.version).toBe(3);
    expect(loader.calls).toHaveLength(1);
    bus.publish({ envId: ID, version: 5 }); // a write commits while the read is in flight
    loader.calls[0]!.resolve(env(4));
    await settle();
    now = 1500;
    expect(envs.peek(ID)?.version).toBe(5);
    envs.close();
  });

  it('an environment gone from the database leaves the directory', async () => {
    let now = 0;
    const loader = manualLoader<EnvSummary>();
    const envs = new EnvDirectory(new InProcessEnvChangeBus(), { load: loader.load, ttlMs: 1000, now: () => now });
    await seed(envs, 1);
    now = 600;
    envs.peek(ID);
    loader.calls[0]!.resolve(null);
    await settle();
    expect(envs.peek(ID)).toBeUndefined();
    envs.close();
  });
});
