/**
 * Checks, extends or adds to the bucketing reference vectors in
 * sdk/fixtures/bucketing.json, computing every hash with an independent
 * MurmurHash3 x86 32-bit implementation (the `murmurhash3js-revisited` npm
 * package), never with the SDK's own `murmur3.ts`.
 *
 *     node --import tsx sdk/scripts/bucketing-vectors.ts [--check]     recompute every vector, exit 1 on any difference
 *     node --import tsx sdk/scripts/bucketing-vectors.ts --extend 100  append 100 generated vectors (deterministic)
 *     node --import tsx sdk/scripts/bucketing-vectors.ts --add SEED ID append the vector for one seed and id
 *
 * Each vector is `{ seed, id, hash, bucket }` with
 *
 *     hash   = MurmurHash3_x86_32(UTF-8 bytes of seed + ":" + id, seed 0)
 *     bucket = (hash / 4294967296) * 100
 *
 * UTF-8 bytes come from TextEncoder, which writes a lone surrogate as U+FFFD.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { prng } from '../../tests/support/random.js';

/** One reference vector: the seed, the id, the 32-bit hash of `seed:id` and its bucket. */
export interface Vector {
  seed: string;
  id: string;
  hash: number;
  bucket: number;
}
export interface VectorFile {
  algorithm: string;
  vectors: Vector[];
}

// The package ships CommonJS without type declarations; this is the one function used.
const murmurhash3 = createRequire(import.meta.url)('murmurhash3js-revisited') as {
  x86: { hash32(bytes: Uint8Array, seed?: number): number };
};

export const fixturePath = fileURLToPath(new URL('../fixtures/bucketing.json', import.meta.url));
const ALGORITHM = "MurmurHash3_x86_32(utf8(seed + ':' + id), 0) -> bucket = hash / 2^32 * 100";
const encoder = new TextEncoder();

/** The reference vector for one seed and id. */
export function referenceVector(seed: string, id: string): Vector {
  const hash = murmurhash3.x86.hash32(encoder.encode(seed + ':' + id), 0) >>> 0;
  return { seed, id, hash, bucket: (hash / 4294967296) * 100 };
}

/** Differences between the stored vectors and the independent implementation's, one line each. */
export function checkVectors(file: VectorFile): string[] {
  const problems: string[] = [];
  if (file.algorithm !== ALGORITHM) problems.push(`algorithm is ${JSON.stringify(file.algorithm)}, expected ${JSON.stringify(ALGORITHM)}`);
  for (const [i, v] of file.vectors.entries()) {
    const want = referenceVector(v.seed, v.id);
    if (v.hash !== want.hash || v.bucket !== want.bucket) {
      problems.push(`#${i} ${JSON.stringify(v.seed)} ${JSON.stringify(v.id)}: stored ${v.hash}/${v.bucket}, computed ${want.hash}/${want.bucket}`);
    }
  }
  return problems;
}


/** Generated ids of several shapes: numeric, UUID-like, e-mail, any UTF-16 (astral and lone surrogates included), long. */
function generate(count: number, existing: Vector[]): Vector[] {
  const random = prng(existing.length * 2654435761);
  const int = (n: number) => Math.floor(random() * n);
  const seeds = [...new Set(existing.map((v) => v.seed))];
  const hex = (n: number) => Array.from({ length: n }, () => '0123456789abcdef'[int(16)]).join('');
  const anyUnit = () => String.fromCharCode(random() < 0.2 ? 0xd800 + int(0x800) : int(0x10000));
  const shapes: Array<() => string> = [
    () => `u${int(1e9)}`,
    () => String(int(1e6)),
    () => `${hex(8)}-${hex(4)}-4${hex(3)}-${'89ab'[int(4)]}${hex(3)}-${hex(12)}`,
    () => `user${int(1e5)}@example.${['com', 'org', 'test'][int(3)]}`,
    () => Array.from({ length: 1 + int(12) }, anyUnit).join(''),
    () => String.fromCodePoint(0x1f300 + int(0x300)).repeat(1 + int(4)),
    () => 'x'.repeat(int(600)),
  ];
  const seen = new Set(existing.map((v) => `${v.seed}\u0000${v.id}`));
  const out: Vector[] = [];
  while (out.length < count) {
    const seed = random() < 0.8 && seeds.length > 0 ? seeds[int(seeds.length)]! : `seed-${int(1e6)}`;
    const id = shapes[int(shapes.length)]!();
    const key = `${seed}\u0000${id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(referenceVector(seed, id));
  }
  return out;
}

function read(): VectorFile {
  return JSON.parse(readFileSync(fixturePath, 'utf8')) as VectorFile;
}

/** One space of indentation and a final newline, the format the file has always had. */
function write(file: VectorFile): void {
  writeFileSync(fixturePath, JSON.stringify(file, null, 1) + '\n');
}

function main(args: string[]): number {
  const [command = '--check', ...rest] = args;
  const file = read();
  const problems = checkVectors(file);
  if (problems.length > 0) {
    for (const p of problems) console.error(p);
    console.error(`${problems.length} of ${file.vectors.length} vectors differ from murmurhash3js-revisited`);
    return 1;
  }
  if (command === '--check') {
    console.log(`${file.vectors.length} vectors match murmurhash3js-revisited`);
    return 0;
  }
  if (command === '--extend') {
    const count = Number(rest[0] ?? 100);
    if (!Number.isInteger(count) || count < 1) throw new Error('--extend takes a positive whole number of vectors');
    file.vectors.push(...generate(count, file.vectors));
  } else if (command === '--add' && rest.length === 2) {
    const [seed, id] = rest as [string, string];
    if (file.vectors.some((v) => v.seed === seed && v.id === id)) {
      console.log('that vector is already there');
      return 0;
    }
    file.vectors.push(referenceVector(seed, id));
  } else {
    console.error('usage: bucketing-vectors.ts [--check | --extend [N] | --add SEED ID]');
    return 2;
  }
  write(file);
  console.log(`wrote ${file.vectors.length} vectors to ${fixturePath}`);
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = main(process.argv.slice(2));
}
