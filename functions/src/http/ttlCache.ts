/**
 * A small in-memory cache whose entries expire `ttlMs` after they were set, holding at most
 * `maxEntries` (the oldest entry goes first). Per function instance: nothing is shared.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Sets `key`, to expire after `ttlMs` (at most the cache's own). */
  set(key: string, value: V, ttlMs = this.ttlMs): void {
    this.entries.delete(key); // re-inserting moves the key to the newest end
    this.entries.set(key, { value, expiresAt: this.now() + Math.min(ttlMs, this.ttlMs) });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
