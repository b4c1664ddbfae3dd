import { describe, expect, it } from 'vitest';
import { exitCode, judge } from '../../scripts/audit-deps.mjs';

/** `npm audit --json` output as npm 11 prints it (report version 2). */
function report(vulnerabilities: Record<string, object>, counts: Partial<Record<'info' | 'low' | 'moderate' | 'high' | 'critical', number>>) {
  const all = { info: 0, low: 0, moderate: 0, high: 0, critical: 0, ...counts };
  return JSON.stringify({
    auditReportVersion: 2,
    vulnerabilities,
    metadata: { vulnerabilities: { ...all, total: Object.values(all).reduce((a, b) => a + b, 0) }, dependencies: { prod: 200, dev: 0, total: 200 } },
  });
}

const qsAdvisory = {
  name: 'qs',
  severity: 'high',
  isDirect: false,
  via: [{ source: 1, name: 'qs', dependency: 'qs', title: 'qs vulnerable to Prototype Pollution', url: 'https://github.com/advisories/GHSA-hrpp-h998-j3pp', severity: 'high', range: '<6.10.3' }],
  effects: ['express'],
  range: '<6.10.3',
  nodes: ['node_modules/qs'],
  fixAvailable: true,
};
const expressThroughQs = { name: 'express', severity: 'high', isDirect: true, via: ['qs'], effects: [], range: '<4.17.3', nodes: ['node_modules/express'], fixAvailable: { name: 'express', version: '4.22.3', isSemVerMajor: false } };

describe('scripts/audit-deps.mjs', () => {
  it('passes a clean report, and one with only moderate or lower advisories', () => {
    expect(judge({ status: 0, stdout: report({}, {}), stderr: '' })).toEqual({
      outcome: 'clean',
      lines: ['dependency advisories (production dependencies): none high or critical (0 critical, 0 high, 0 moderate, 0 low, 0 info)'],
    });
    const moderate = judge({ status: 0, stdout: report({ qs: { ...qsAdvisory, severity: 'moderate' } }, { moderate: 1 }), stderr: '' });
    expect(moderate.outcome).toBe('clean');
    expect(exitCode(moderate.outcome)).toBe(0);
  });

  it('fails on high or critical advisories, listing each package with its advisory and fix', () => {
    const judged = judge({ status: 1, stdout: report({ qs: qsAdvisory, express: expressThroughQs }, { high: 2 }), stderr: '' });
    expect(judged.outcome).toBe('advisories');
    expect(exitCode(judged.outcome)).toBe(1);
    expect(judged.lines).toEqual([
      'dependency advisories (production dependencies): 2 package(s) with high or critical advisories (0 critical, 2 high, 0 moderate, 0 low, 0 info):',
      '  qs (high, <6.10.3): qs vulnerable to Prototype Pollution https://github.com/advisories/GHSA-hrpp-h998-j3pp (npm audit fix)',
      '  express (high, direct, <4.17.3): through qs (fixed by express@4.22.3)',
      'Update them (npm audit fix, or a newer version of the package that depends on them), or see `npm audit --omit=dev` for details.',
    ]);
    expect(judge({ status: 1, stdout: report({ qs: { ...qsAdvisory, severity: 'critical', fixAvailable: false } }, { critical: 1 }), stderr: '' }).lines[1]).toMatch(/^ {2}qs \(critical, .*\(no fix available\)$/);
  });

  it('says it could not check when the registry refuses audit requests, and passes unless AUDIT_DEPS_REQUIRED', () => {
    // What this machine's registry answers (a proxy that allows only GET and HEAD).
    const refused = JSON.stringify({
      message: '405 Method Not Allowed - POST https://registry.example/-/npm/v1/security/advisories/bulk',
      method: 'POST',
      uri: 'https://registry.example/-/npm/v1/security/advisories/bulk',
      statusCode: 405,
      body: '',
      error: { summary: '', detail: '' },
    });
    const judged = judge({ status: 1, stdout: refused, stderr: 'npm error audit endpoint returned an error\n' });
    expect(judged).toEqual({
      outcome: 'unchecked',
      lines: [
        'dependency advisories: NOT CHECKED: the registry gave no advisories (405 Method Not Allowed - POST https://registry.example/-/npm/v1/security/advisories/bulk). Nothing is known about advisories for this install.',
      ],
    });
    expect(exitCode(judged.outcome)).toBe(0);
    expect(exitCode(judged.outcome, true)).toBe(1);
  });

  it('says it could not check when the registry cannot be reached or npm prints no report', () => {
    const unreachable = JSON.stringify({ message: 'request to http://127.0.0.1:9/-/npm/v1/security/advisories/bulk failed, reason: connect ECONNREFUSED 127.0.0.1:9', error: { summary: '', detail: '' } });
    expect(judge({ status: 1, stdout: unreachable, stderr: '' }).lines[0]).toContain('NOT CHECKED: the registry gave no advisories (request to http://127.0.0.1:9/');
    expect(judge({ status: 1, stdout: '', stderr: '\nnpm error code ENOLOCK\nnpm error audit This command requires an existing lockfile.\n' }).lines[0]).toBe(
      'dependency advisories: NOT CHECKED: npm audit printed no report (exit 1): npm error code ENOLOCK. Nothing is known about advisories for this install.',
    );
    expect(judge({ status: null, stdout: '', stderr: '', error: new Error('spawnSync npm ETIMEDOUT') }).outcome).toBe('unchecked');
  });
});
