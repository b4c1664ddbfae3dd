/**
 * Prints the summary of a V8 CPU profile file, e.g. a server's under BENCH_SERVER_CPU_PROF:
 *
 *   node --import tsx bench/lib/show-cpu-profile.ts <file.cpuprofile> [top]
 */
import { readFileSync } from 'node:fs';
import { renderCpu, summarizeProfile, type Profile } from './cpu-profile.js';

const [file, top] = process.argv.slice(2);
if (!file) throw new Error('usage: show-cpu-profile.ts <file.cpuprofile> [top]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
for (const line of renderCpu(summarizeProfile(profile), Number(top ?? 25))) console.log(line);
