/**
 * A URL's scheme and authority: a URL it matches is absolute (axios's own test: a scheme, or
 * none for `//host`, followed by `//`).
 */
export const AUTHORITY = /^([a-z][a-z\d+\-.]*:)?\/\/(?:[^@/?#]*@)?([^/?#]*)/i;

/** Where a relative URL with no `baseURL` goes: the page's origin, or axios's Node default. */
function hereOrigin(): string {
  const here = (globalThis as { location?: { origin?: string } }).location?.origin;
  return here && here !== 'null' ? here : 'http://localhost';
}

/** The URL a request goes to: `url` under `baseURL`, unless `url` is absolute (as axios does). */
export const fullURL = (baseURL: string | undefined, url = ''): string =>
  baseURL && !AUTHORITY.test(url) ? `${baseURL}/${url}` : url;

/**
 * The origin (`protocol//host:port`, the default port left out) that a request goes to, with
 * `baseURL` applied as axios applies it.
 */
export function originOf(baseURL: string | undefined, url: string | undefined): string {
  return originOfURL(fullURL(baseURL, url));
}

/** The origin of a full URL (`fullURL`), or of an origin itself (`protocol//host:port`). */
export function originOfURL(full: string): string {
  const match = AUTHORITY.exec(full);
  if (!match) return hereOrigin();
  // Lower case, the default port left out.
  return `${match[1] ?? hereOrigin().split('//')[0]}//${match[2]}`
    .toLowerCase()
    .replace(/^(http:.*):80$|^(https:.*):443$/s, '$1$2');
}
