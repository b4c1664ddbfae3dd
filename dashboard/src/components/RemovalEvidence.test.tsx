// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import type { PrimitiveInsight } from '@gradual/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { RemovalEvidence } from './RemovalEvidence';

afterEach(cleanup);

const insight = (over: Partial<PrimitiveInsight>): PrimitiveInsight => ({
  kind: 'flag',
  key: 'old-banner',
  name: 'Old banner',
  status: 'not_evaluated',
  createdAt: '2026-09-01T10:00:00.000Z',
  lastChangedAt: '2026-09-01T10:00:00.000Z',
  lastEvaluatedAt: null,
  evaluations: 0,
  environments: [],
  codeReferences: [],
  safeToRemove: false,
  ...over,
});
const check = { repository: 'acme/web', commit: 'abc123def4567890', checkedAt: '2026-12-01T09:00:00.000Z', references: 0, locations: [] };
const show = (i: PrimitiveInsight | null, kind: 'flag' | 'config' = 'flag') =>
  render(<RemovalEvidence ops={{ insight: () => Promise.resolve(i) }} kind={kind} primitiveKey={i?.key ?? 'x'} />);

describe('removal evidence', () => {
  it('says a flag is safe to remove with the evidence: no evaluation, and each repository\'s type check without a use', async () => {
    show(insight({ safeToRemove: true, codeReferences: [check] }));
    const note = await screen.findByTestId('removal-evidence');
    expect(note.textContent).toContain('Safe to remove.');
    expect(note.textContent).toContain('No evaluation in any environment for 30 days');
    expect(note.textContent).toMatch(/acme\/web at abc123def456, type-checked .+: no use/);
    expect(note.textContent).toContain('gradual flags archive old-banner');
  });

  it('names the uses a repository still has, and asks for a check when none was reported', async () => {
    show(insight({ codeReferences: [{ ...check, repository: 'acme/api', commit: null, references: 2, locations: ['lib/a.ts:3', 'lib/b.ts:9'] }, check] }), 'config');
    const note = await screen.findByTestId('removal-evidence');
    expect(note.textContent).toContain('Not evaluated, but not proven unused.');
    expect(note.textContent).toContain('2 uses (lib/a.ts:3, lib/b.ts:9)');
    expect(note.textContent).toContain('Remove its uses first.');
    cleanup();
    show(insight({}));
    expect((await screen.findByTestId('removal-evidence')).textContent).toContain('No code check reported yet');
  });

  it('says nothing about a flag in use, a new one, or an archived one', async () => {
    for (const i of [insight({ status: 'in_use', evaluations: 5 }), insight({ status: 'new' }), null]) {
      const { container } = show(i);
      await new Promise((r) => setTimeout(r, 0));
      expect(container.textContent).toBe('');
      cleanup();
    }
  });
});
