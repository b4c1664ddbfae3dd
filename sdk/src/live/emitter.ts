/**
 * A tiny typed event emitter with no Node-only API, so the live client runs in
 * browsers too (the dashboard). Unlike Node's EventEmitter, an `error` event
 * with no listener does not throw, and a listener that throws does not stop
 * the others or the emitter's caller: the exception goes to `onListenerError`.
 */
export type Listener<T> = (payload: T) => void;

export class TypedEmitter<Events extends object> {
  private readonly listeners = new Map<keyof Events, Set<Listener<never>>>();

  constructor(private readonly onListenerError: (err: unknown, event: keyof Events) => void) {}

  /** Adds a listener; returns a function that removes it. */
  on<K extends keyof Events>(event: K, listener: Listener<Events[K]>): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener);
    return () => this.off(event, listener);
  }

  off<K extends keyof Events>(event: K, listener: Listener<Events[K]>): void {
    this.listeners.get(event)?.delete(listener);
  }

  listenerCount(event: keyof Events): number {
    return this.listeners.get(event)?.size ?? 0;
  }

  emit<K extends keyof Events>(event: K, payload: Events[K]): void {
    const set = this.listeners.get(event);
    if (!set || set.size === 0) return;
    // A copy: listeners may add or remove listeners while we iterate.
    for (const listener of [...set] as Listener<Events[K]>[]) {
      try {
        listener(payload);
      } catch (err) {
        this.onListenerError(err, event);
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}
