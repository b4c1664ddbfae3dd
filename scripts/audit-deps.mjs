#!/usr/bin/env node
/**
 * CI's dependency-advisory check: `npm audit --omit=dev` (the packages a production install
 * runs), failing on high or critical advisories.
 *
 * Three outcomes, told apart on the JSON npm prints:
 * - checked, nothing high or critical: a summary line, exit 0;
 * - checked, high or critical advisories: each one listed (package, severity, title, link), exit 1;
 * - not checked: the registry could not be reached, or it does not answer audit requests (some
 *   mirrors and proxies refuse npm's bulk advisory endpoint with 404/405): one line saying that
 *   nothing was checked and why, exit 0, so a registry without audit does not block CI.
 *   AUDIT_DEPS_REQUIRED=1 makes that exit 1 instead.
 *
 * `node scripts/audit-deps.mjs`; judge() is exported for tests.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BLOCKING = ['high', 'critical'];
const TIMEOUT_MS = 120_000;

/**
 * What an `npm audit --json` run means: `{ outcome: 'clean' | 'advisories' | 'unchecked', lines }`.
 * `run` is what spawnSync returned: status, stdout, stderr, and error when npm could not be run.
 */
export function judge(run) {
  if (run.error) return unchecked(`npm audit could not run: ${run.error.message}`);
  let report;
  try {
    report = JSON.parse(run.stdout || '');
  } catch {
    return unchecked(`npm audit printed no report (exit ${run.status}): ${firstLine(run.stderr) || 'no output'}`);
  }
  const counts = report?.metadata?.vulnerabilities;
  if (!counts || typeof counts !== 'object') {
    const why = [report?.message, report?.error?.summary, firstLine(run.stderr)].find(Boolean) ?? 'no advisory data in the report';
    return unchecked(`the registry gave no advisories (${why})`);
  }
  const blocking = Object.values(report.vulnerabilities ?? {}).filter((v) => BLOCKING.includes(v.severity));
  const summary = ['critical', 'high', 'moderate', 'low', 'info'].map((s) => `${counts[s] ?? 0} ${s}`).join(', ');
  if (blocking.length === 0) return { outcome: 'clean', lines: [`dependency advisories (production dependencies): none high or critical (${summary})`] };
  return {
    outcome: 'advisories',
    lines: [
      `dependency advisories (production dependencies): ${blocking.length} package(s) with high or critical advisories (${summary}):`,
      ...blocking.map((v) => `  ${v.name} (${v.severity}${v.isDirect ? ', direct' : ''}, ${v.range ?? 'any version'}): ${advisories(v)}${fix(v)}`),
      'Update them (npm audit fix, or a newer version of the package that depends on them), or see `npm audit --omit=dev` for details.',
    ],
  };
}

function unchecked(reason) {
  return { outcome: 'unchecked', lines: [`dependency advisories: NOT CHECKED: ${reason}. Nothing is known about advisories for this install.`] };
}

function firstLine(text) {
  return (text ?? '').split('\n').map((l) => l.trim()).find(Boolean) ?? '';
}

/** An advisory's titles and links, or the packages it comes through. */
function advisories(v) {
  const via = (v.via ?? []).map((x) => (typeof x === 'string' ? `through ${x}` : `${x.title ?? 'advisory'}${x.url ? ` ${x.url}` : ''}`));
  return [...new Set(via)].join('; ') || 'see npm audit';
}

function fix(v) {
  if (v.fixAvailable === true) return ' (npm audit fix)';
  if (v.fixAvailable && typeof v.fixAvailable === 'object') return ` (fixed by ${v.fixAvailable.name}@${v.fixAvailable.version}${v.fixAvailable.isSemVerMajor ? ', a major version' : ''})`;
  return ' (no fix available)';
}

/** The exit code for an outcome. */
export function exitCode(outcome, required = false) {
  if (outcome === 'advisories') return 1;
  if (outcome === 'unchecked') return required ? 1 : 0;
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const run = spawnSync('npm', ['audit', '--omit=dev', '--audit-level=high', '--json'], {
    encoding: 'utf8',
    timeout: TIMEOUT_MS,
    maxBuffer: 64 * 1024 * 1024,
    // The CI exports npm_config_audit=false to keep installs quiet; the audit command itself ignores it.
    env: process.env,
  });
  const { outcome, lines } = judge(run);
  for (const line of lines) (outcome === 'clean' ? console.log : console.error)(line);
  process.exit(exitCode(outcome, process.env.AUDIT_DEPS_REQUIRED === '1'));
}
