/**
 * One process of the eval-hooks bench's guard bar (eval-hooks.bench.ts guardBarInThisProcess):
 * prints its ratios as one JSON line.
 *
 *   node --conditions=@gradual/source --import tsx bench/lib/eval-hooks-paired.ts <runs>
 */
import { guardBarInThisProcess } from '../eval-hooks.bench.js';

const runs = Number(process.argv[2]);
if (!Number.isInteger(runs) || runs < 2) throw new Error('usage: eval-hooks-paired.ts <runs, an integer ≥ 2>');
process.stdout.write(`${JSON.stringify(await guardBarInThisProcess(runs))}\n`);
