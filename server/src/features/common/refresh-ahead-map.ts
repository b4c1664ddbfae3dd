export interface RefreshAheadOptions<V> {
  /** Re-reads an entry by its key (null: gone); absent: entries just expire. */
  load?: (key: string) => Promise<V | null>;
  /** How long an entry is trusted without being read again (ms). */
  ttlMs?: number;
  maxEntries?: number;
  /** Monotonic milliseconds (tests move it by hand). */
  now?: () => number;
}

/**
 * A bounded map whose entries are trusted for `ttlMs`, for the hot read paths' in-memory copies
 * of database rows (API keys, environments). Refresh-ahead: an entry used past half its TTL is
 * re-read in the background, once at a time, so an entry in steady use never expires under
 * load (without it every busy entry fell out once a TTL, and every request in flight at that
 * instant took the slow path together). An entry nobody uses simply goes stale.
 */
export class RefreshAheadMap<V> {
  private readonly entries = new Map<string, { value: V; at: number }>();
  private readonly refreshing = new Set<string>();
  /** Bumped by every eviction, so a refresh that raced it cannot bring the entry back. */
  private generation = 0;
  private readonly load: ((key: string) => Promise<V | null>) | null;
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(
    options: RefreshAheadOptions<V>,
    /** Combines a row just read with the entry already held (stale or not), e.g. to keep a newer version heard of meanwhile. */
    private readonly merge: (read: V, held: V | undefined) => V = (read) => read,
  ) {
    this.load = options.load ?? null;
    this.ttlMs = options.ttlMs ?? 1000;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? (() => performance.now());
  }

  /** The entry while it is trusted (and a background re-read once it is past half its TTL). */
  fresh(key: string): V | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    const age = this.now() - hit.at;
    if (age > this.ttlMs) return undefined;
    if (age > this.ttlMs / 2) this.refresh(key);
    return hit.value;
  }

  /** The entry held, however old. */
  held(key: string): V | undefined {
    return this.entries.get(key)?.value;
  }

  /** Stores a row just read (merged with what is held) as trusted from now. */
  set(key: string, read: V): V {
    const held = this.entries.get(key);
    const value = this.merge(read, held?.value);
    if (!held && this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, at: this.now() });
    return value;
  }

  /** Evicts every entry `matches` accepts. */
  evict(matches: (value: V) => boolean): void {
    this.generation++;
    for (const [key, { value }] of this.entries) if (matches(value)) this.entries.delete(key);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }

  private refresh(key: string): void {
    if (!this.load || this.refreshing.has(key)) return;
    this.refreshing.add(key);
    const generation = this.generation;
    this.load(key)
      .then(
        (read) => {
          if (generation !== this.generation) return;
          if (read) this.set(key, read);
          else this.entries.delete(key);
        },
        () => undefined, // the entry keeps its age and expires; the next use reads it afresh
      )
      .finally(() => this.refreshing.delete(key));
  }
}
