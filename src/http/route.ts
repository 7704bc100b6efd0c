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
  const key = `${baseURL ?? ''}\0${url ?? ''}`;
  let where = known.get(key);
  if (where === undefined) {
    const full = fullURL(baseURL, url);
    where = [originOfURL(full), parse(full)];
    if (known.size >= 1000) known.clear();
    known.set(key, where);
  }
  return where;
}

export type Where = readonly [origin: string, route: string];

const known = new Map<string, Where>();

const parse = (full: string): string =>
  full
    .replace(AUTHORITY, '')
    .replace(/[?#].*/s, '')
    .split('/')
    .filter(Boolean)
    .map((segment) => (ID.test(segment) ? ':id' : segment))
    .join('/');
