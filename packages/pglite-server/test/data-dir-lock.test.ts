import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireDataDirLock, DataDirLockedError, isZombie, LOCK_FILE_NAME } from '../src/data-dir-lock.js';

// The data dir lock on its own: who holds it, and when a lock file left behind is stale.

let dir: string;
const lockFile = () => join(dir, LOCK_FILE_NAME);
const writeLock = (pid: number, host = hostname()) =>
  writeFileSync(lockFile(), JSON.stringify({ pid, hostname: host, createdAt: new Date().toISOString() }));

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pglite-server-lock-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('data dir lock', () => {
  it('records this process, refuses a second holder here, and removes its file on release', () => {
    const lock = acquireDataDirLock(dir);
    expect(JSON.parse(readFileSync(lockFile(), 'utf8'))).toMatchObject({ pid: process.pid, hostname: hostname() });
    expect(() => acquireDataDirLock(dir)).toThrow(DataDirLockedError);
    lock.release();
    expect(existsSync(lockFile())).toBe(false);
    acquireDataDirLock(dir).release(); // free again
  });

  it('refuses a lock held by a live process, naming it', () => {
    writeLock(process.ppid);
    const err = (() => {
      try {
        acquireDataDirLock(dir);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(DataDirLockedError);
    expect(String(err)).toContain(`pid ${process.ppid}`);
  });

  it('takes over at once a lock whose process is gone', () => {
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    writeLock(gone);
    const stale: string[] = [];
    const lock = acquireDataDirLock(dir, (msg) => stale.push(msg));
    expect(stale).toEqual(['removing stale data dir lock']);
    expect(JSON.parse(readFileSync(lockFile(), 'utf8'))).toMatchObject({ pid: process.pid });
    lock.release();
  });

  it('takes over at once a lock whose process was killed but not yet reaped (a zombie)', async () => {
    if (process.platform !== 'linux') return;
    // The forked child exits at once and its parent never waits for it: a zombie as long as the
    // parent sleeps. (Perl is part of every Debian base system; a shell may reap its background child.)
    const parent = spawn('perl', ['-e', '$| = 1; my $pid = fork(); exit 0 unless $pid; print "$pid\\n"; sleep 30;'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const zombie = await new Promise<number>((resolve) => parent.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim()))));
      await expect.poll(() => isZombie(zombie), { timeout: 10_000 }).toBe(true);
      writeLock(zombie);
      const stale: string[] = [];
      const lock = acquireDataDirLock(dir, (msg) => stale.push(msg));
      expect(stale).toEqual(['removing stale data dir lock']);
      lock.release();
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it("keeps another host's lock while its heartbeat is fresh, and takes it over once it is old", () => {
    writeLock(1, 'another-host');
    expect(() => acquireDataDirLock(dir)).toThrow(DataDirLockedError);
    const old = new Date(Date.now() - 60_000);
    utimesSync(lockFile(), old, old);
    acquireDataDirLock(dir).release();
  });

  it('leaves a lock file that is no longer its own on release', () => {
    const lock = acquireDataDirLock(dir);
    writeLock(process.ppid); // someone else's now (removed and retaken)
    lock.release();
    expect(existsSync(lockFile())).toBe(true);
  });
});
