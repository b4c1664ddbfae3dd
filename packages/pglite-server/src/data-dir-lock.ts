import { closeSync, openSync, readFileSync, statSync, unlinkSync, utimesSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/**
 * A lock file that keeps two servers off one embedded data directory.
 *
 * Why our own and not proper-lockfile: after a crash (kill -9, OOM, power loss) the
 * server must restart at once. proper-lockfile only treats a lock as stale once its
 * mtime is older than `stale` (≥ 2 s, 10 s by default), so a quick restart fails; we
 * record the holder's pid and hostname instead and check whether that process still
 * lives. A heartbeat keeps the mtime fresh for locks written by another host (a new
 * container on the same volume), whose pid we cannot check.
 */

export const LOCK_FILE_NAME = 'gradual.lock';
const HEARTBEAT_MS = 10_000;
/** A lock from another host is stale once its heartbeat is this old. */
const FOREIGN_STALE_MS = 30_000;
/** A lock file with no readable content yet may be mid-write by another opener. */
const EMPTY_STALE_MS = 5_000;

export class DataDirLockedError extends Error {
  readonly code = 'DATA_DIR_LOCKED';
  constructor(
    readonly dataDir: string,
    detail: string,
  ) {
    super(`Data directory ${dataDir} is already in use (${detail}). Stop the other server or use another data directory.`);
    this.name = 'DataDirLockedError';
  }
}

interface LockInfo {
  pid: number;
  hostname: string;
  createdAt: string;
}

/** Directories locked by this process: a second start() on the same dir must fail too. */
const heldHere = new Set<string>();

export interface DataDirLock {
  readonly path: string;
  release(): void;
}

/** `dataDir` must exist and be absolute. Throws DataDirLockedError when someone else holds it. */
export function acquireDataDirLock(dataDir: string, log?: (msg: string, extra?: object) => void): DataDirLock {
  const path = join(dataDir, LOCK_FILE_NAME);
  if (heldHere.has(path)) throw new DataDirLockedError(dataDir, `already opened by this process, pid ${process.pid}`);

  // Two rounds: the second runs after removing a stale lock.
  for (let attempt = 0; attempt < 2; attempt++) {
    const info: LockInfo = { pid: process.pid, hostname: hostname(), createdAt: new Date().toISOString() };
    let fd: number;
    try {
      fd = openSync(path, 'wx', 0o600); // O_EXCL: the file system arbitrates between racing openers
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const stale = staleReason(path);
      if (!stale.stale) throw new DataDirLockedError(dataDir, stale.holder);
      log?.('removing stale data dir lock', { lockFile: path, reason: stale.holder });
      try {
        unlinkSync(path);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
      continue;
    }
    try {
      writeSync(fd, JSON.stringify(info));
    } finally {
      closeSync(fd);
    }
    heldHere.add(path);
    const heartbeat = setInterval(() => {
      try {
        const now = new Date();
        utimesSync(path, now, now);
      } catch {
        // lock file removed under us; nothing useful to do here
      }
    }, HEARTBEAT_MS);
    heartbeat.unref(); // never keeps the process alive
    let released = false;
    return {
      path,
      release() {
        if (released) return;
        released = true;
        clearInterval(heartbeat);
        heldHere.delete(path);
        try {
          // Only remove the file if it is still ours.
          const current = JSON.parse(readFileSync(path, 'utf8')) as LockInfo;
          if (current.pid === info.pid && current.createdAt === info.createdAt) unlinkSync(path);
        } catch {
          // already gone
        }
      },
    };
  }
  throw new DataDirLockedError(dataDir, 'lock file keeps reappearing');
}

function staleReason(path: string): { stale: boolean; holder: string } {
  let raw: string;
  let ageMs: number;
  try {
    raw = readFileSync(path, 'utf8');
    ageMs = Date.now() - statSync(path).mtimeMs;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { stale: true, holder: 'lock vanished' };
    throw err;
  }
  let info: LockInfo;
  try {
    info = JSON.parse(raw) as LockInfo;
  } catch {
    return { stale: ageMs > EMPTY_STALE_MS, holder: `unreadable lock file ${path}` };
  }
  const holder = `locked by pid ${info.pid} on ${info.hostname} since ${info.createdAt}; lock file ${path}`;
  if (info.hostname !== hostname()) return { stale: ageMs > FOREIGN_STALE_MS, holder };
  // Same pid as ours but not in heldHere: an earlier incarnation (containers reuse pids).
  if (info.pid === process.pid) return { stale: true, holder };
  return { stale: !isAlive(info.pid), holder };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM' && !isZombie(pid); // EPERM: exists, owned by someone else
  }
  // A process killed (kill -9) but not yet reaped by its parent still answers signal 0: a zombie
  // holds no files and runs nothing, so its lock is stale.
  return !isZombie(pid);
}

/** Whether `pid` has exited and waits for its parent to reap it (Linux: state Z in /proc/<pid>/stat). */
export function isZombie(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false; // no /proc (macOS) or already reaped
  }
  // "pid (comm) state …": comm may hold spaces and parentheses, the state follows the last ')'.
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state === 'Z' || state === 'X';
}
