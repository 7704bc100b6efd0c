/**
 * The most recently used entries, up to `max`, oldest forgotten first, but never one that is
 * `busy`: an origin with an open breaker, a hold, calls waiting or in flight is kept, however
 * many others are touched after it (forgetting it would send its waiting calls into a dead
 * origin). Past `max` with every entry busy, the cache grows until some are idle again.
 */
export interface ScopeCache<T> {
  get(key: string): T | undefined;
  /** The entry of `key`, made by `create` if there is none; marks it the most recently used. */
  use(key: string, create: () => T): T;
  values(): IterableIterator<T>;
}

export function createScopeCache<T>(max: number, busy: (entry: T) => boolean): ScopeCache<T> {
  const entries = new Map<string, T>();
  let lastKey: string | undefined;
  // The map itself answers `get` and `values`.
  return Object.assign(entries, {
    use(key: string, create: () => T): T {
      let entry = entries.get(key);
      // Recency matters only once the cache is half full (before, nothing is forgotten): the
      // success path, which asks for the same few keys, reorders nothing until then.
      if (entry !== undefined && (key === lastKey || entries.size < max / 2)) return entry;
      if (entry === undefined) {
        entry = create();
        if (entries.size >= max) {
          for (const [oldKey, old] of entries) {
            if (!busy(old)) {
              entries.delete(oldKey);
              break;
            }
          }
        }
      } else entries.delete(key);
      entries.set(key, entry);
      lastKey = key;
      return entry;
    },
  });
}

/**
 * `f`, remembering its last answer: the success path asks for the same one again and again (and
 * a string made afresh would be hashed afresh at each lookup).
 */
export function lastOf<A, B, R>(f: (a: A, b: B) => R): (a: A, b: B) => R {
  let last: readonly [A, B, R] | undefined;
  return (a, b) => {
    if (!last || last[0] !== a || last[1] !== b) last = [a, b, f(a, b)];
    return last[2];
  };
}
