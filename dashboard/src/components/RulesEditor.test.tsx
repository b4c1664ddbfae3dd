// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import type { Rule, Segment } from '@gradual/sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { descriptionOf, envelope, fakeApi } from '../test/fake-api';
import { RulesEditor } from './RulesEditor';

afterEach(cleanup);

function segment(key: string, name: string): Segment {
  return {
    id: `00000000-0000-4000-8000-0000000000${key.length.toString().padStart(2, '0')}`,
    projectId: '00000000-0000-4000-8000-000000000001',
    key,
    name,
    description: null,
    rules: [],
    includedCount: 2,
    excludedCount: 0,
    createdAt: '2026-11-20T10:00:00.000Z',
    updatedAt: '2026-11-20T10:00:00.000Z',
  };
}
const SEGMENTS = [segment('beta-testers', 'Beta testers'), segment('staff', 'Staff')];

function renderEditor(props: { mode: 'flag' | 'segment'; rules?: Rule[]; save?: (rules: Rule[]) => Promise<void>; selfKey?: string }) {
  const save = vi.fn(props.save ?? (() => Promise.resolve()));
  render(<RulesEditor mode={props.mode} rules={props.rules ?? []} segments={SEGMENTS} selfKey={props.selfKey} defaultAttribute="accountId" save={save} />);
  fireEvent.click(screen.getByRole('button', { name: 'Edit rules' }));
  return save;
}

describe('RulesEditor', () => {
  it('builds an "in segment" condition with the picker, its attribute defaulting to the target-ID field', async () => {
    const save = renderEditor({ mode: 'flag' });
    fireEvent.click(screen.getByRole('button', { name: 'Add rule' }));
    const rule = screen.getByRole('group', { name: 'Rule 1' });
    fireEvent.click(within(rule).getByRole('button', { name: 'Add condition' }));
    fireEvent.change(within(rule).getByLabelText('Operator'), { target: { value: 'in_segment' } });
    expect(within(rule).getByLabelText<HTMLInputElement>('Attribute').value).toBe('accountId');
    const picker = within(rule).getByLabelText<HTMLSelectElement>('Segments');
    expect([...picker.options].map((o) => o.value)).toEqual(['beta-testers', 'staff']);
    picker.options[1]!.selected = true;
    fireEvent.change(picker);
    fireEvent.change(within(rule).getByLabelText('Value (JSON)'), { target: { value: '"dark"' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save rules' }));
    await waitFor(() => expect(save).toHaveBeenCalledTimes(1));
    expect(save.mock.calls[0]![0]).toEqual([{ conditions: [{ attribute: 'accountId', operator: 'in_segment', values: ['staff'] }], value: 'dark' }]);
    // Saved: the editor closes (the page shows the rules it gets back).
    await screen.findByRole('button', { name: 'Edit rules' });
  });

  it('saves against the version it was opened on, not a newer one the page has read since', async () => {
    const save = vi.fn((_rules: Rule[], _reason: string, _openedOn: string | undefined) => Promise.resolve());
    const editor = (etag: string) => (
      <RulesEditor mode="segment" rules={[]} segments={SEGMENTS} defaultAttribute="accountId" etag={etag} save={save} />
    );
    const { rerender } = render(editor('"v1"'));
    fireEvent.click(screen.getByRole('button', { name: 'Edit rules' }));
    rerender(editor('"v2"'));
    fireEvent.click(screen.getByRole('button', { name: 'Save rules' }));
    await waitFor(() => expect(save).toHaveBeenCalledTimes(1));
    expect(save.mock.calls[0]![2]).toBe('"v1"');
  });

  it('leaves a segment out of its own picker', () => {
    renderEditor({ mode: 'segment', selfKey: 'staff' });
    fireEvent.click(screen.getByRole('button', { name: 'Add rule' }));
    const rule = screen.getByRole('group', { name: 'Rule 1' });
    fireEvent.change(within(rule).getByLabelText('Operator'), { target: { value: 'not_in_segment' } });
    expect([...within(rule).getByLabelText<HTMLSelectElement>('Segments').options].map((o) => o.value)).toEqual(['beta-testers']);
  });

  it('marks problems beside their fields without calling the server', () => {
    const save = renderEditor({ mode: 'segment' });
    fireEvent.click(screen.getByRole('button', { name: 'Add rule' }));
    fireEvent.click(screen.getByRole('button', { name: 'Save rules' }));
    const rule = screen.getByRole('group', { name: 'Rule 1' });
    expect(descriptionOf(within(rule).getByLabelText('Attribute'))).toBe('Enter the context attribute to test.');
    expect(descriptionOf(within(rule).getByLabelText('Values'))).toContain('Enter at least one value.');
    expect(save).not.toHaveBeenCalled();
  });

  it('shows the server’s field message at the field and its segment cycle', async () => {
    const answers = [
      { status: 400, body: envelope('invalid_request', 'Invalid rules', { 'rules.0.conditions.0.values': 'segment "gone" does not exist' }) },
      { status: 409, body: envelope('segment_cycle', 'These rules would make segment "staff" reference itself.', undefined, { cycle: ['staff', 'beta-testers', 'staff'] }) },
    ];
    const { client } = fakeApi(() => answers.shift()!);
    const rules: Rule[] = [{ conditions: [{ attribute: 'userId', operator: 'in_segment', values: ['beta-testers'] }] }];
    renderEditor({
      mode: 'segment',
      rules,
      save: async (next) => {
        await client.updateSegment({ path: { id: 'p', key: 'staff' }, body: { rules: next } });
      },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Save rules' }));
    const rule = screen.getByRole('group', { name: 'Rule 1' });
    await waitFor(() => expect(descriptionOf(within(rule).getByLabelText('Segments'))).toContain('segment "gone" does not exist'));

    fireEvent.click(screen.getByRole('button', { name: 'Save rules' }));
    const alert = await screen.findByText(/The cycle:/);
    expect(alert.textContent).toContain('staff → beta-testers → staff');
  });
});
