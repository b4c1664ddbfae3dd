// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { setApi } from '../api';
import { fakeApi } from '../test/fake-api';
import { DeliveryLog } from './Webhooks';

const T = '2026-11-23T10:00:00.000Z';
const PROJECT = '00000000-0000-4000-8000-0000000000a1';
const SUB = '00000000-0000-4000-8000-0000000000b1';

const delivery = (n: number, status: 'pending' | 'succeeded' | 'failed' | 'dropped', lastError: string | null) => ({
  id: `msg_${String(n).padStart(32, '0')}`,
  subscriptionId: SUB,
  eventType: 'webhook.test',
  payload: { type: 'webhook.test' },
  status,
  attempts: status === 'dropped' ? 0 : 1,
  nextAttemptAt: null,
  lastAttemptAt: status === 'dropped' ? null : T,
  responseStatus: status === 'succeeded' ? 200 : null,
  lastError,
  createdAt: T,
});

afterEach(() => {
  cleanup();
  setApi(undefined);
});

describe('DeliveryLog', () => {
  it('shows dropped deliveries with their reason, and filters by the dropped status', async () => {
    const reason = 'dropped: more than 1,000 deliveries were pending for this subscription; the oldest are dropped';
    const { client, requests } = fakeApi(({ query }) => {
      const items = [delivery(2, 'succeeded', null), delivery(1, 'dropped', reason)].filter((d) => !query.get('status') || d.status === query.get('status'));
      return { status: 200, body: { items } };
    });
    setApi(client);
    render(<DeliveryLog projectId={PROJECT} subscriptionId={SUB} version={0} />);

    const table = await screen.findByTestId('deliveries');
    expect(within(table).getByText('Dropped')).toBeTruthy();
    expect(within(table).getByText(reason)).toBeTruthy();
    expect(within(table).getByText('Delivered')).toBeTruthy();

    fireEvent.change(screen.getByLabelText('Status'), { target: { value: 'dropped' } });
    await screen.findByText(reason);
    expect(requests.at(-1)?.query.get('status')).toBe('dropped');
    expect(within(screen.getByTestId('deliveries')).queryByText('Delivered')).toBeNull();
  });
});
