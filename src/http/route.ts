import { AUTHORITY, fullURL, originOfURL } from './origin';

// A segment that names one resource among many (`/users/42`, `/orders/3f2a…`): every such path
// is the same route, so a route's state is not split across thousands of ids. A number, 16 hex
// digits or more, or 32 word characters or dashes (a UUID's 36 among them).
const ID = /^(?:\d+|[\da-f]{16,}|[\w-]{32,})$/i;

/**
 * The route of a request: its path (with `baseURL` applied, no query, no fragment), the segments
 * that look like ids replaced by `:id`. The method is not part of it: a route that fails, fails
 * for every method.
 */
export function routeOf(baseURL: string | undefined, url: string | undefined): string {
  return parse(fullURL(baseURL, url));
}

/**
 * The origin and the route of a request (`originOf`, `routeOf`). The success path asks for the
 * same few URLs again and again: each is read once.
 */
export function whereOf({ baseURL, url }: { baseURL?: string; url?: string }): Where {
  // By `baseURL`, then by `url`: a key made of both would be a new string, hashed at each call.
  const byURL = known.get(baseURL) ?? new Map<string | undefined, Where>();
  let where = byURL.get(url);
  if (where === undefined) {
    const full = fullURL(baseURL, url);
    where = [originOfURL(full), parse(full)];
    if (++size > 1000) {
      known.clear();
      size = 0;
    }
    known.set(baseURL, byURL.set(url, where));
  }
  return where;
}

export type Where = readonly [origin: string, route: string];

const known = new Map<string | undefined, Map<string | undefined, Where>>();
let size = 0;

const parse = (full: string): string =>
  full
    .replace(AUTHORITY, '')
    .replace(/[?#].*/s, '')
    .split('/')
    .filter(Boolean)
    .map((segment) => (ID.test(segment) ? ':id' : segment))
    .join('/');
