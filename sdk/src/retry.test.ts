/**
 * The REST client's retries (retryingFetch) with a scripted fetch: what is retried for which
 * method, how long each wait is, and what the caller gets when the retries run out.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { retryingFetch } from './retry.js';

type Step = number | Error | { status: number; retryAfter: string };

/** A fetch answering `steps` in order, recording each request's method and body. */
function scripted(steps: Step[]) {
  const calls: Array<{ method: string; body: string }> = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    calls.push({ method: request.method, body: await request.text() });
    const step = steps[calls.length - 1];
    if (step === undefined) throw new Error('no more steps');
    if (step instanceof Error) throw step;
    const { status, retryAfter } = typeof step === 'number' ? { status: step, retryAfter: undefined } : step;
    return new Response(status === 204 ? null : `{"status":${status}}`, { status, headers: retryAfter ? { 'retry-after': retryAfter } : {} });
  };
  return { fetch, calls };
}

const URL_ = 'http://gradual.test/api/v1/envs/e';
const fast = { initialMs: 1, maxMs: 5 };

describe('retryingFetch', () => {
  afterEach(() => vi.useRealTimers());

  it.each([
    ['GET', [503, 200], 200, 2],
    ['GET', [502, 504, 200], 200, 3],
    ['GET', [500, 500, 500], 500, 3],
    ['GET', [501], 501, 1],
    ['GET', [404], 404, 1],
    ['HEAD', [503, 200], 200, 2],
    ['POST', [503], 503, 1],
    ['PUT', [500], 500, 1],
    ['POST', [429, 429, 201], 201, 3],
    ['DELETE', [429, 204], 204, 2],
    ['PATCH', [429, 429, 429], 429, 3],
  ] as const)('%s answered %j: resolves %i after %i attempts', async (method, steps, status, attempts) => {
    const { fetch, calls } = scripted([...steps]);
    const response = await retryingFetch(fetch, fast)(URL_, { method, ...(method === 'GET' || method === 'HEAD' ? {} : { body: '{"a":1}' }) });
    expect(response.status).toBe(status);
    expect(calls).toHaveLength(attempts);
  });

  it('sends the body again on every attempt', async () => {
    const { fetch, calls } = scripted([429, 429, 200]);
    await retryingFetch(fetch, fast)(URL_, { method: 'POST', body: '{"percent":5}' });
    expect(calls.map((c) => c.body)).toEqual(['{"percent":5}', '{"percent":5}', '{"percent":5}']);
  });

  it('retries no answer for reads only, and rejects with the last error', async () => {
    const down = () => new TypeError('fetch failed');
    const read = scripted([down(), 200]);
    expect((await retryingFetch(read.fetch, fast)(URL_)).status).toBe(200);
    const write = scripted([down(), 200]);
    await expect(retryingFetch(write.fetch, fast)(URL_, { method: 'POST', body: '{}' })).rejects.toThrow('fetch failed');
    expect(write.calls).toHaveLength(1);
    const gone = scripted([down(), down(), down()]);
    await expect(retryingFetch(gone.fetch, { ...fast, retries: 2 })(URL_)).rejects.toThrow('fetch failed');
    expect(gone.calls).toHaveLength(3);
  });

  it('waits at least Retry-After (seconds or a date), capped at maxMs, and the jitter otherwise', async () => {
    vi.useFakeTimers({ now: Date.parse('2026-01-01T00:00:00Z') });
    const { fetch, calls } = scripted([{ status: 429, retryAfter: '3' }, { status: 503, retryAfter: 'Thu, 01 Jan 2026 00:00:10 GMT' }, 503, 200]);
    const pending = retryingFetch(fetch, { retries: 3, initialMs: 1000, maxMs: 20_000 }, () => 0.5)(URL_);
    await vi.advanceTimersByTimeAsync(2999);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(2);
    // The date is 7 s after the second attempt; the jitter (half of 2 s) is shorter.
    await vi.advanceTimersByTimeAsync(6999);
    expect(calls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(3);
    // No Retry-After: half the third ceiling (4 s).
    await vi.advanceTimersByTimeAsync(1999);
    expect(calls).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1);
    expect((await pending).status).toBe(200);

    const capped = scripted([{ status: 429, retryAfter: '3600' }, 200]);
    const soon = retryingFetch(capped.fetch, { initialMs: 1, maxMs: 5000 }, () => 0)(URL_);
    await vi.advanceTimersByTimeAsync(5000);
    expect((await soon).status).toBe(200);
  });

  it('ends the wait when the request is aborted', async () => {
    vi.useFakeTimers();
    const { fetch, calls } = scripted([{ status: 429, retryAfter: '10' }, 200]);
    const controller = new AbortController();
    const pending = retryingFetch(fetch, fast)(URL_, { signal: controller.signal });
    const settled = expect(pending).rejects.toThrow('stop');
    await vi.advanceTimersByTimeAsync(1);
    controller.abort(new Error('stop'));
    await settled;
    expect(calls).toHaveLength(1);
  });

  it('tries once with retries: 0', async () => {
    const { fetch, calls } = scripted([503, 200]);
    expect((await retryingFetch(fetch, { retries: 0 })(URL_)).status).toBe(503);
    expect(calls).toHaveLength(1);
  });
});
