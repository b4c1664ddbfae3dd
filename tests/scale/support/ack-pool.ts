// A lean pool of simulated SDK instances for the convergence ledger's accuracy test: one process
// stands for INSTANCES instances. It follows the environment's ruleset version with conditional
// GETs every 100 ms (one poller for all its instances) and, on each new version, has every
// instance acknowledge it, but for the FROZEN ones, which keep acknowledging the version they
// started on. Acknowledgements alternate between the servers in URLS. Prints "ready <version>"
// once every instance acknowledged its first version.
const setting = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`ack pool: ${name} is not set`);
  return value;
};
const urls = setting('URLS').split(',');
const TOKEN = setting('TOKEN');
const ENV_ID = setting('ENV_ID');
const POOL = setting('POOL');
const INSTANCES = setting('INSTANCES');
const FROZEN = process.env.FROZEN ?? '';
const instances = Number(INSTANCES);
const frozen = new Set(FROZEN ? FROZEN.split(',').map(Number) : []);
const auth = { authorization: `Bearer ${TOKEN}` };
let etag: string | null = null;
let version = -1;
let started = -1;

async function ack(i: number, v: number): Promise<void> {
  const url = urls[i % urls.length]!;
  const body = { instanceId: `sim-${POOL}-${i}`, sdk: { name: 'sim-sdk', version: '1.0.0' }, service: `pool-${POOL}`, version: v, mode: 'poll' };
  let last = '';
  for (let attempt = 0; attempt < 5; attempt++) {
    const res = await fetch(`${url}/api/v1/envs/${ENV_ID}/ruleset-acks`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (res.status === 204) return;
    last = `${res.status} ${await res.text()}`;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`ack of sim-${POOL}-${i} failed: ${last}`);
}

async function poll(): Promise<void> {
  const res = await fetch(`${urls[0]}/api/v1/envs/${ENV_ID}/ruleset`, { headers: { ...auth, ...(etag ? { 'if-none-match': etag } : {}) } });
  if (res.status !== 200) return;
  etag = res.headers.get('etag');
  const next = ((await res.json()) as { version: number }).version;
  if (next === version) return;
  version = next;
  if (started < 0) started = next;
  await Promise.all(Array.from({ length: instances }, (_, i) => ack(i, frozen.has(i) ? started : version)));
  if (started === version) process.stdout.write(`ready ${version}\n`);
}

for (;;) {
  await poll().catch((err: unknown) => process.stderr.write(`${String(err)}\n`));
  await new Promise((r) => setTimeout(r, 100));
}

export {};
