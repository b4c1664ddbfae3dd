// @vitest-environment jsdom
import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import { useLayoutEffect } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useReloadOn, useResource } from './hooks';

afterEach(cleanup);

/** A promise and the functions that settle it. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('useResource', () => {
  it('loads on mount, not again on a re-render with the same deps, and again when a dep changes', async () => {
    const load = vi.fn((id: string) => Promise.resolve(`data of ${id}`));
    // What each committed render showed (before the browser paints it).
    const shown: Array<[string, string | undefined]> = [];
    const { result, rerender } = renderHook(
      ({ id }) => {
        const resource = useResource(() => load(id), [id]);
        useLayoutEffect(() => {
          shown.push([id, resource.data]);
        });
        return resource;
      },
      { initialProps: { id: 'a' } },
    );
    expect(result.current.loading).toBe(true);
    await waitFor(() => expect(result.current.data).toBe('data of a'));
    rerender({ id: 'a' });
    rerender({ id: 'a' });
    expect(load).toHaveBeenCalledTimes(1);

    rerender({ id: 'b' });
    expect(result.current).toMatchObject({ data: undefined, loading: true });
    await waitFor(() => expect(result.current.data).toBe('data of b'));
    expect(load.mock.calls).toEqual([['a'], ['b']]);
    // No frame showed the old deps' data with the new deps, not even the first one.
    expect(shown.filter(([id, data]) => id === 'b' && data === 'data of a')).toEqual([]);
  });

  it('drops an answer for deps that moved on, even when it arrives last', async () => {
    const answers: Record<string, ReturnType<typeof deferred<string>>> = { a: deferred(), b: deferred() };
    const { result, rerender } = renderHook(({ id }) => useResource(() => answers[id]!.promise, [id]), { initialProps: { id: 'a' } });
    rerender({ id: 'b' });
    await act(async () => {
      answers.b!.resolve('b');
      await answers.b!.promise;
    });
    expect(result.current.data).toBe('b');
    await act(async () => {
      answers.a!.resolve('a');
      await answers.a!.promise;
    });
    expect(result.current).toMatchObject({ data: 'b', loading: false });
  });

  it('reloads on request, keeping the data on screen meanwhile, and keeps the data on an error', async () => {
    let version = 1;
    const { result, rerender } = renderHook(() => useResource(() => Promise.resolve(`v${version}`), []));
    await waitFor(() => expect(result.current.data).toBe('v1'));
    version = 2;
    rerender(); // a new closure, same deps: no load
    expect(result.current.data).toBe('v1');

    let reloaded!: Promise<void>;
    act(() => {
      reloaded = result.current.reload();
    });
    expect(result.current).toMatchObject({ data: 'v1', loading: true });
    await act(() => reloaded);
    expect(result.current).toMatchObject({ data: 'v2', loading: false });

    const failing = new Error('down');
    const { result: broken } = renderHook(() => useResource(() => Promise.reject(failing), []));
    await waitFor(() => expect(broken.current).toMatchObject({ data: undefined, error: failing, loading: false }));
  });

  it('keeps a mutation’s answer over a load that was under way when it arrived', async () => {
    const answers = [deferred<string>(), deferred<string>()];
    let calls = 0;
    const { result } = renderHook(() => useResource(() => answers[calls++]!.promise, []));
    await act(async () => {
      answers[0]!.resolve('before');
      await answers[0]!.promise;
    });
    let reloaded!: Promise<void>;
    act(() => {
      reloaded = result.current.reload(); // e.g. a live event of an earlier write
    });
    act(() => result.current.setData('after the mutation'));
    await act(async () => {
      answers[1]!.resolve('before the mutation');
      await reloaded;
    });
    expect(result.current).toMatchObject({ data: 'after the mutation', loading: false });
  });

  it('replaces the data with setData, from a value or from the previous data', async () => {
    const { result } = renderHook(() => useResource(() => Promise.resolve(1), []));
    await waitFor(() => expect(result.current.data).toBe(1));
    act(() => result.current.setData((n) => (n ?? 0) + 10));
    expect(result.current.data).toBe(11);
    act(() => result.current.setData(5));
    expect(result.current.data).toBe(5);
  });
});

describe('useReloadOn', () => {
  it('reloads when the trigger changes, not on mount nor on a re-render with the same trigger, keeping the data meanwhile', async () => {
    let version = 1;
    const load = vi.fn(() => Promise.resolve(`v${version}`));
    const { result, rerender } = renderHook(
      ({ trigger }) => {
        const resource = useResource(load, []);
        useReloadOn(trigger, resource.reload);
        return resource;
      },
      { initialProps: { trigger: 1 } },
    );
    await waitFor(() => expect(result.current.data).toBe('v1'));
    rerender({ trigger: 1 });
    expect(load).toHaveBeenCalledTimes(1);

    version = 2;
    rerender({ trigger: 2 });
    expect(result.current).toMatchObject({ data: 'v1', loading: true });
    await waitFor(() => expect(result.current).toMatchObject({ data: 'v2', loading: false }));
    expect(load).toHaveBeenCalledTimes(2);
  });
});
