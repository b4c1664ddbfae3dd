// @vitest-environment jsdom
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { BOOKKEEPING_FIELDS, Diff, diffValues } from './Diff';

afterEach(cleanup);

const rolloutBefore = {
  id: 'r1',
  status: 'active',
  percent: 25,
  lastAutoRollback: null,
  lastGuardStop: null,
  createdAt: '2026-11-01T00:00:00.000Z',
  updatedAt: '2026-11-01T00:00:00.000Z',
};
const rolloutAfter = {
  ...rolloutBefore,
  status: 'paused',
  percent: 0,
  lastAutoRollback: { secretName: 'alertmanager', firedAt: '2026-11-02T10:00:00.000Z', labels: { alertname: 'HighErrorRate' } },
  updatedAt: '2026-11-02T10:00:00.000Z',
};

function rows() {
  return screen.getAllByRole('row').slice(1).map((row) => within(row).getAllByRole('cell').map((c) => c.textContent));
}

describe('Diff', () => {
  it('leaves out bookkeeping fields and shows an object that appears field by field', () => {
    render(<Diff before={rolloutBefore} after={rolloutAfter} omit={BOOKKEEPING_FIELDS} />);
    expect(rows()).toEqual([
      ['status', '"active"', '"paused"'],
      ['percent', '25', '0'],
      ['lastAutoRollback.secretName', '', '"alertmanager"'],
      ['lastAutoRollback.firedAt', '', '"2026-11-02T10:00:00.000Z"'],
      ['lastAutoRollback.labels.alertname', '', '"HighErrorRate"'],
    ]);
    expect(screen.queryByText('updatedAt')).toBeNull();
    expect(screen.queryByText(/\{/)).toBeNull();
  });

  it('says so when only bookkeeping changed', () => {
    render(<Diff before={rolloutBefore} after={{ ...rolloutBefore, updatedAt: '2026-11-03T00:00:00.000Z' }} omit={BOOKKEEPING_FIELDS} />);
    expect(screen.getByText('No value change recorded.')).toBeTruthy();
  });

  it("keeps a flag's or config's own fields named like bookkeeping when not told to omit them", () => {
    render(<Diff before={{ version: 1 }} after={{ version: 2 }} />);
    expect(rows()).toEqual([['version', '1', '2']]);
  });

  it('lists a removed object by its fields, and a type change as one row', () => {
    expect(diffValues({ a: { b: 1 } }, { a: null })).toEqual([{ path: 'a.b', kind: 'removed', before: 1 }]);
    expect(diffValues('on', { b: 1 })).toEqual([{ path: '(value)', kind: 'changed', before: 'on', after: { b: 1 } }]);
    expect(diffValues(null, {})).toEqual([{ path: '(value)', kind: 'changed', before: null, after: {} }]);
  });
});
