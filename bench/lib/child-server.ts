/**
 * A baseline server in its own process (bench/lib/bare-*.mjs): started with its arguments, ready
 * once it prints its port on stdout. Baselines run out of the bench process for the same reason
 * the server under test does: a load generator or client loop must not share their event loop.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface ChildServer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

export async function startChildServer(script: string, args: string[]): Promise<ChildServer> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${script} exited (${code})`)));
  });
  return {
    url: `http://127.0.0.1:${line.trim()}`,
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
