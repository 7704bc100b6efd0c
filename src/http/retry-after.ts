// Retry-After (RFC 9110 §10.2.3) is either delay-seconds or an HTTP-date (§5.6.7).

/**
 * The longest wait a server can ask for. A number read from a header (a `Retry-After`, a reset)
 * past it is not a wait but garbage (a year, epoch milliseconds taken for seconds, digits past
 * what a double holds): no reading holds an origin for longer than a day, nor reaches a timer as
 * `Infinity`. A call asked to wait longer does not retry sooner: it stops (`retry-after-too-long`).
 */
export const MAX_SERVER_WAIT_MS = 86_400_000;

/**
 * A wait a server asked for, in milliseconds: never negative; `undefined` past `max`, or NaN, or
 * when there is none (`undefined <= max` is false).
 */
export const serverWait = (ms: number | undefined, max = MAX_SERVER_WAIT_MS): number | undefined =>
  (ms as number) <= max ? Math.max(0, ms as number) : undefined;

/**
 * A number of seconds, fractions allowed (Discord's and Shopify's form): a number, or `undefined`.
 * (No text is tested as the text "undefined": no number.)
 */
export const decimal = (text: string | undefined): number | undefined =>
  /^\s*\d+(\.\d+)?\s*$/.test(text as string) ? Number(text) : undefined;

// One of the three forms: IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT") or the obsolete RFC 850
// form ("Sunday, 06-Nov-94 08:49:37 GMT"), groups 1-6: day, month, year, hour, minute, second
// (`UTC` in place of `GMT` is not RFC 9110, but servers send it and it names the same clock: it
// is accepted); or the obsolete asctime form ("Sun Nov  6 08:49:37 1994"), groups 7-12: month,
// day, hour, minute, second, year. White space around it is ignored.
const HTTP_DATE =
  /^\s*(?:[a-z]+, (\d\d)[ -]([a-z]{3})[ -](\d\d|\d{4}) (\d\d):(\d\d):(\d\d) (?:gmt|utc)|[a-z]{3} ([a-z]{3}) ([ \d]\d) (\d\d):(\d\d):(\d\d) (\d{4}))\s*$/i;

/** An HTTP-date's groups, in that order: day, month, year, hour, minute, second. */
type DateParts = [string, string, string, string, string, string];

/** Parses an HTTP-date (RFC 9110 §5.6.7, any of its three forms) to epoch milliseconds. */
export function parseHttpDate(value: string | undefined, now: number): number | undefined {
  // (No value is tested as the text "undefined": no date.)
  const m = HTTP_DATE.exec(value as string);
  if (!m) return undefined;
  const [day, month, year, h, min, s] = (m[1]
    ? m.slice(1, 7)
    : [m[8], m[7], m[12], m[9], m[10], m[11]]) as string[] as DateParts;
  const monthIndex = 'janfebmaraprmayjunjulaugsepoctnovdec'.indexOf(month.toLowerCase()) / 3;
  // RFC 850's two-digit year: a date more than 50 years ahead of `now` is from the century before.
  const thisYear = new Date(now).getUTCFullYear();
  let y = +year;
  if (year.length < 4) {
    y += thisYear - (thisYear % 100);
    if (y > thisYear + 50) y -= 100;
  }
  const time = Date.UTC(y, monthIndex, +day, +h, +min, +s);
  // Date.UTC rolls "31 Feb" over into March: a date that does not round-trip is not valid. So
  // does an hour past 23 (to a later day: at most 99 hours, never a month on).
  return Number.isInteger(monthIndex) &&
    new Date(time).getUTCDate() === +day &&
    +min < 60 &&
    +s < 61
    ? time
    : undefined;
}

/**
 * The server's clock: its `Date` header when that is valid and within a day of `now` (a `Date`
 * from 2001 is a broken clock, not skew); else `now`. With `finer`, `now` also when the `Date`
 * is within the second it is truncated to: a quota's reset is then measured to the millisecond,
 * not up to a second long (a `Retry-After` date is measured against the `Date` as it is, so
 * that the wait never ends before the date the server named, by its clock).
 */
export function serverNowOf(
  responseDate: string | undefined,
  now: number,
  finer?: boolean,
): number {
  const date = parseHttpDate(responseDate, now) as number;
  // No date (`undefined`) is a skew of NaN: within no bound.
  const skew = Math.abs(date - now);
  return skew <= MAX_SERVER_WAIT_MS && !(finer && skew <= 1000) ? date : now;
}

/**
 * How long a `Retry-After` value asks to wait, in milliseconds; `undefined` when the value is
 * absent or not valid, so the caller falls back to plain backoff.
 *
 * Delay-seconds may have a fraction (`2.0`, as Shopify and Discord send). An HTTP-date is
 * measured against the response's `Date` header when it has a valid one (the server's clock,
 * immune to skew of the local clock), else against `now`; a date in the past asks for no wait.
 * The wait is not bounded here: past a day (`MAX_SERVER_WAIT_MS`) it is absurd, and may be
 * `Infinity` (400 digits). `serverWait` bounds it for a hold; a call stops on it.
 */
export function retryAfterMs(
  retryAfter: string | undefined,
  responseDate: string | undefined,
  now: number,
): number | undefined {
  const seconds = decimal(retryAfter);
  // Rounded up: `1.234` is not 1233.9999999999998 ms.
  if (seconds !== undefined) return Math.ceil(seconds * 1000);
  // Not a date (`undefined`): NaN, which `serverWait` reads as no wait; a date past, a wait of 0.
  const until = parseHttpDate(retryAfter, now) as number;
  return serverWait(until - serverNowOf(responseDate, now), Infinity);
}

/**
 * The wait a response asks for, in milliseconds (unbounded, as `retryAfterMs`): the first valid
 * of the headers it is read from, in the order they are believed: the milliseconds of OpenAI and
 * Azure (their SDKs prefer them to `Retry-After`), then `Retry-After` and its `X-RateLimit-`
 * form; `undefined` when none is. `header` reads a header by its lower-case name.
 */
export function askedWaitMs(
  header: (name: string) => string | undefined,
  now: number,
): number | undefined {
  for (const name of [
    'retry-after-ms',
    'x-ms-retry-after-ms',
    'retry-after',
    'x-ratelimit-retry-after',
  ]) {
    const text = header(name);
    const ms = name.endsWith('ms') ? decimal(text) : retryAfterMs(text, header('date'), now);
    if (ms !== undefined) return ms;
  }
  return undefined;
}
