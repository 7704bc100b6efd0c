/**
 * The most recently used entries, up to `max`, oldest forgotten first, an entry in `trouble`
 * (an open breaker, a hold) only when none is out of trouble, and never one `inUse` (calls
 * waiting or in flight: forgetting it would send them into a dead origin). Past `max` with every
 * entry in use, the cache grows until some are idle again. And an entry nobody used for
 * `idleMs` and not in use is forgotten, in trouble or not (a dead origin nobody calls any more
 * costs nothing): at most every `idleMs / 2`, at a `use`.
 */
export interface ScopeCache<T> {
  get(key: string): T | undefined;
  /** The entry of `key`, made by `create` if there is none; marks it the most recently used at `now`. */
  use(key: string, now: number, create: () => T): T;
  values(): IterableIterator<T>;
}

export interface ScopeCacheSettings<T> {
  readonly max: number;
  readonly idleMs: number;
  readonly inUse: (entry: T) => boolean;
  readonly trouble: (entry: T) => boolean;
}

/** Forgets the oldest entry that `spare` allows, if any. */
function forgetOne<T>(entries: Map<string, T>, spare: (entry: T) => boolean): boolean {
  for (const [key, entry] of entries) {
    if (spare(entry)) continue;
    entries.delete(key);
    return true;
  }
  return false;
}

export function createScopeCache<T extends { usedAt: number }>({
  max,
  idleMs,
  inUse,
  trouble,
}: ScopeCacheSettings<T>): ScopeCache<T> {
  const entries = new Map<string, T>();
  let lastKey: string | undefined;
  let sweptAt = -Infinity;
  const sweep = (now: number) => {
    sweptAt = now;
    for (const [key, entry] of entries) {
      if (now - entry.usedAt >= idleMs && !inUse(entry)) entries.delete(key);
    }
  };
  return {
    get: (key) => entries.get(key),
    values: () => entries.values(),
    use(key, now, create) {
      if (now - sweptAt >= idleMs / 2) sweep(now);
      let entry = entries.get(key);
      // Recency matters only once the cache is half full (before, nothing is forgotten): the
      // success path, which asks for the same few keys, reorders nothing until then.
      if (entry !== undefined && (key === lastKey || entries.size < max / 2)) {
        entry.usedAt = now;
        return entry;
      }
      if (entry === undefined) {
        entry = create();
        if (entries.size >= max && !forgetOne(entries, trouble)) forgetOne(entries, inUse);
      } else entries.delete(key);
      entry.usedAt = now;
      entries.set(key, entry);
      lastKey = key;
      return entry;
    },
  };
}
