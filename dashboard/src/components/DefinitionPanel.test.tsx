// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import type { Flag } from '@gradual/sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setApi } from '../api';
import { useResource } from '../hooks';
import { definitionApi } from '../primitive-api';
import { envelope, fakeApi, type Recorded } from '../test/fake-api';
import { flagDefinition } from '../test/fixtures';
import { definitionChanges, DefinitionPanel } from './DefinitionPanel';

afterEach(() => {
  cleanup();
  setApi(undefined);
});

const PROJECT = '00000000-0000-4000-8000-000000000001';
const FLAG: Flag = flagDefinition({ projectId: PROJECT, tags: ['team:checkout'] });

type Answer = { status: number; body?: unknown; headers?: Record<string, string> };

/** The panel over a fake API: GETs answer `current` with an ETag of its version; writes answer `write(req)`. */
function renderPanel(write: (req: Recorded) => Answer, start: Flag = FLAG) {
  let current = start;
  let version = 1;
  const { client, requests } = fakeApi((req) => {
    if (req.method === 'GET') return { status: 200, body: current, headers: { etag: `"v${version}"` } };
    const answer = write(req);
    if (answer.status === 200 && answer.body) {
      current = answer.body as Flag;
      version++;
    }
    return answer;
  });
  setApi(client);
  const onDeleted = vi.fn();
  const ops = definitionApi('flag', PROJECT, 'new-checkout');
  function Page() {
    const def = useResource(() => ops.get(), []);
    return <DefinitionPanel kind="flag" primitiveKey="new-checkout" ops={ops} def={def} onChanged={() => {}} onDeleted={onDeleted} />;
  }
  render(<Page />);
  return { requests, onDeleted, bump: () => version++ };
}

describe('DefinitionPanel', () => {
  it('shows the declared variants and the custom metadata', async () => {
    renderPanel(() => ({ status: 500 }), { ...FLAG, variants: { on: true, off: false }, metadata: { owner: 'checkout', tier: 2 } });
    const variants = await screen.findByRole('list', { name: 'Variants' });
    expect(variants.textContent).toBe('on = trueoff = false');
    expect(screen.getByRole('list', { name: 'Metadata' }).textContent).toBe('owner: checkouttier: 2');
    expect(screen.queryByTestId('config-schema')).toBeNull(); // a flag has no schema
  });


  it('keeps what the form was opened on when the page reloads the definition meanwhile: the save answers 412 instead of undoing the other change', async () => {
    let current: Flag = FLAG;
    let version = 1;
    const { client, requests } = fakeApi((req) =>
      req.method === 'GET' ? { status: 200, body: current, headers: { etag: `"v${version}"` } } : { status: 412, body: envelope('precondition_failed', 'ETag mismatch') },
    );
    setApi(client);
    let reload = () => Promise.resolve();
    const ops = definitionApi('flag', PROJECT, 'new-checkout');
    function Page() {
      const def = useResource(() => ops.get(), []);
      reload = def.reload;
      return <DefinitionPanel kind="flag" primitiveKey="new-checkout" ops={ops} def={def} onChanged={() => {}} onDeleted={() => {}} />;
    }
    render(<Page />);
    fireEvent.click(await screen.findByRole('button', { name: 'Edit details' }));
    current = { ...FLAG, name: 'Checkout v2' }; // renamed elsewhere; a live page reloads it
    version = 2;
    await act(() => reload());
    fireEvent.change(screen.getByLabelText('Maintainer'), { target: { value: 'ann@example.com' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save details' }));
    await screen.findByText(/Someone else changed this flag since you opened it/);
    const patch = requests.find((r) => r.method === 'PATCH')!;
    expect(patch.headers.get('if-match')).toBe('"v1"');
    expect(patch.body).toEqual({ maintainer: 'ann@example.com' });
  });

  it('sends only the changed fields with If-Match; a 412 asks for a reload, and the reloaded ETag saves', async () => {
    const { requests, bump } = renderPanel((req) =>
      req.headers.get('if-match') === '"v2"' ? { status: 200, body: { ...FLAG, tags: ['team:checkout', 'beta'], maintainer: 'ann@example.com' } } : { status: 412, body: envelope('precondition_failed', 'ETag mismatch') },
    );
    fireEvent.click(await screen.findByRole('button', { name: 'Edit details' }));
    bump(); // someone else changed it meanwhile
    fireEvent.change(screen.getByLabelText('Tags'), { target: { value: 'team:checkout, beta beta' } });
    fireEvent.change(screen.getByLabelText('Maintainer'), { target: { value: 'ann@example.com' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save details' }));
    await screen.findByText(/Someone else changed this flag since you opened it/);
    const patch = requests.find((r) => r.method === 'PATCH')!;
    expect(patch.headers.get('if-match')).toBe('"v1"');
    expect(patch.body).toEqual({ tags: ['team:checkout', 'beta'], maintainer: 'ann@example.com' });

    fireEvent.click(screen.getByRole('button', { name: 'Reload it' }));
    fireEvent.click(await screen.findByRole('button', { name: 'Edit details' }));
    fireEvent.change(screen.getByLabelText('Tags'), { target: { value: 'team:checkout, beta' } });
    fireEvent.change(screen.getByLabelText('Maintainer'), { target: { value: 'ann@example.com' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save details' }));
    await screen.findByText('ann@example.com');
    expect(screen.getByRole('list', { name: 'Tags' }).textContent).toBe('team:checkoutbeta');
  });

  it('shows why archiving is refused and disables it until checked again', async () => {
    renderPanel(() => ({ status: 409, body: envelope('in_use', 'A live rollout or proposal uses it.', { 'rollout.production': 'active', 'proposal.9f8e7d6c-0000': 'pending' }) }));
    fireEvent.click(await screen.findByRole('button', { name: 'Archive flag' }));
    const alert = await screen.findByText(/Still in use by/);
    expect(alert.textContent).toContain('a live rollout in production');
    expect(alert.textContent).toContain('pending proposal 9f8e7d6c');
    expect(screen.getByRole('button', { name: 'Archive flag' }).hasAttribute('disabled')).toBe(true);
  });

  it('deletes an archived flag only with its key typed, sending confirm and If-Match', async () => {
    const { requests, onDeleted } = renderPanel(() => ({ status: 204 }), { ...FLAG, archivedAt: '2026-11-21T10:00:00.000Z' });
    fireEvent.click(await screen.findByRole('button', { name: 'Delete flag…' }));
    const confirm = screen.getByLabelText(/to confirm/);
    const go = screen.getByRole('button', { name: 'Delete flag for good' });
    fireEvent.change(confirm, { target: { value: 'new-checkou' } });
    expect(go.hasAttribute('disabled')).toBe(true);
    fireEvent.change(confirm, { target: { value: 'new-checkout' } });
    fireEvent.click(go);
    await waitFor(() => expect(onDeleted).toHaveBeenCalled());
    const del = requests.find((r) => r.method === 'DELETE')!;
    expect(del.body).toEqual({ confirm: 'new-checkout' });
    expect(del.headers.get('if-match')).toBe('"v1"');
  });

  it('restores an archived flag with If-Match and shows it live again', async () => {
    const { requests } = renderPanel((req) => ({ status: 200, body: { ...FLAG, archivedAt: null, updatedAt: req.path.endsWith('/restore') ? '2026-11-22T10:00:00.000Z' : FLAG.updatedAt } }), {
      ...FLAG,
      archivedAt: '2026-11-21T10:00:00.000Z',
    });
    fireEvent.click(await screen.findByRole('button', { name: 'Restore flag' }));
    await screen.findByRole('button', { name: 'Archive flag' });
    expect(screen.getByText('Live')).toBeTruthy();
    const restore = requests.find((r) => r.method === 'POST')!;
    expect(restore.path).toBe(`/api/v1/projects/${PROJECT}/flags/new-checkout/restore`);
    expect(restore.headers.get('if-match')).toBe('"v1"');
  });

  it('clears an emptied description or maintainer with null and leaves unchanged fields out', () => {
    const before = { ...FLAG, description: 'Old', maintainer: 'ann@example.com' };
    expect(definitionChanges(before, { name: 'New checkout', description: ' ', tags: 'team:checkout', maintainer: '' })).toEqual({ description: null, maintainer: null });
    expect(definitionChanges(before, { name: ' Checkout v2 ', description: 'Old', tags: '', maintainer: 'ann@example.com' })).toEqual({ name: 'Checkout v2', tags: [] });
  });
});
