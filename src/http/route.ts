// A segment that names one resource among many (`/users/42`, `/orders/3f2a…`): every such path
// is the same route, so a route's state is not split across thousands of ids.
const ID =
  /^(?:\d+|[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}|[\da-f]{16,}|[\w-]{32,})$/i;
const SCHEME_AND_AUTHORITY = /^(?:[a-z][a-z\d+\-.]*:)?\/\/[^/?#]*/i;

/**
 * The route of a request: its path (with `baseURL` applied, no query, no fragment), the segments
 * that look like ids replaced by `:id`. The method is not part of it: a route that fails, fails
 * for every method.
 */
export function routeOf(baseURL: string | undefined, url: string | undefined): string {
  // The success path asks for the same few URLs again and again: each is parsed once.
  let ofBase = known.get(baseURL ?? '');
  if (!ofBase || ofBase.size >= 1000) {
    ofBase = new Map();
    known.set(baseURL ?? '', ofBase);
  }
  let route = ofBase.get(url ?? '');
  if (route === undefined) {
    const path = url ?? '';
    route = parse(baseURL && !SCHEME_AND_AUTHORITY.test(path) ? `${baseURL}/${path}` : path);
    ofBase.set(path, route);
    if (known.size > 100) known.clear();
  }
  return route;
}

const known = new Map<string, Map<string, string>>();

function parse(full: string): string {
  return full
    .replace(SCHEME_AND_AUTHORITY, '')
    .replace(/[?#].*/s, '')
    .split('/')
    .filter(Boolean)
    .map((segment) => (ID.test(segment) ? ':id' : segment))
    .join('/');
}
