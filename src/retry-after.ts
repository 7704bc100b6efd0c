// Retry-After (RFC 9110 §10.2.3) is either delay-seconds or an HTTP-date (§5.6.7).

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

// The three HTTP-date forms: IMF-fixdate, and the obsolete RFC 850 and asctime forms.
const TIME = '(?<hour>\\d{2}):(?<minute>\\d{2}):(?<second>\\d{2})';
const HTTP_DATE_FORMS = [
  new RegExp(`^[a-z]{3}, (?<day>\\d{2}) (?<month>[a-z]{3}) (?<year>\\d{4}) ${TIME} gmt$`, 'i'),
  new RegExp(`^[a-z]{6,9}, (?<day>\\d{2})-(?<month>[a-z]{3})-(?<year>\\d{2}) ${TIME} gmt$`, 'i'),
  new RegExp(`^[a-z]{3} (?<month>[a-z]{3}) (?<day>[ \\d]\\d) ${TIME} (?<year>\\d{4})$`, 'i'),
];

/** RFC 850's two-digit year: a date more than 50 years ahead of `now` is from the century before. */
function fullYear(digits: string, now: number): number {
  if (digits.length === 4) return Number(digits);
  const thisYear = new Date(now).getUTCFullYear();
  const year = Math.floor(thisYear / 100) * 100 + Number(digits);
  return year > thisYear + 50 ? year - 100 : year;
}

/** Parses an HTTP-date to epoch milliseconds, or `undefined` if it is not one. */
export function parseHttpDate(value: string, now: number): number | undefined {
  const text = value.trim();
  for (const form of HTTP_DATE_FORMS) {
    const parts = form.exec(text)?.groups;
    if (!parts) continue;
    const month = MONTHS.indexOf(String(parts.month).toLowerCase());
    if (month < 0) return undefined;
    const fields = [parts.day, parts.hour, parts.minute, parts.second].map(Number);
    const [day = 0, hour = 0, minute = 0, second = 0] = fields;
    const time = Date.UTC(fullYear(String(parts.year), now), month, day, hour, minute, second);
    // Date.UTC rolls "31 Feb" over into March: a date that does not round-trip is not valid.
    const date = new Date(time);
    const valid =
      date.getUTCDate() === day &&
      date.getUTCMonth() === month &&
      hour < 24 &&
      minute < 60 &&
      second < 61;
    return valid ? time : undefined;
  }
  return undefined;
}

/**
 * How long a `Retry-After` value asks to wait, in milliseconds; `undefined` when the value is
 * absent or not valid, so the caller falls back to plain backoff.
 *
 * An HTTP-date is measured against the response's `Date` header when it has a valid one (the
 * server's clock, immune to skew of the local clock), else against `now`. A date in the past
 * asks for no wait.
 */
export function retryAfterMs(
  retryAfter: string | undefined,
  responseDate: string | undefined,
  now: number,
): number | undefined {
  if (retryAfter === undefined) return undefined;
  const text = retryAfter.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const until = parseHttpDate(text, now);
  if (until === undefined) return undefined;
  const serverNow = responseDate === undefined ? undefined : parseHttpDate(responseDate, now);
  return Math.max(0, until - (serverNow ?? now));
}
