import { readHeader } from '../http/read-header';
import type { ResolvedOptions } from '../options/options';
import { DEFAULT_IDEMPOTENCY_KEY, NON_EMPTY } from '../options/options';
import { ruled } from '../options/rules';

/** axios's headers or a plain object. */
type Headers = Record<string, unknown>;

/** The header that carries a call's idempotency key under these options. */
export const idempotencyHeader = (options: ResolvedOptions): string =>
  (options.idempotencyKey || DEFAULT_IDEMPOTENCY_KEY).header;

/**
 * Sets a header as axios's `headers.set(name, value)` does: over any spelling of it already
 * there, unless that one is `false` (the caller suppressed it). Without `set`'s checks of the
 * name and value, which the success path would pay on every call: the names are valid tokens
 * (ours, or checked as options), and the values numbers or keys.
 */
export function putHeader(headers: Headers, name: string, value: unknown): void {
  const lower = name.toLowerCase();
  let key = name;
  for (const k of Object.keys(headers)) if (k.toLowerCase() === lower) key = k;
  if (headers[key] !== false) headers[key] = `${value}`;
}

/**
 * The idempotency key of a call's first attempt: the caller's own header if it set one (kept
 * as it is, whatever the options), else a new key when the options ask for one for this method.
 * A new key is written to `headers`; the key is returned either way.
 */
export function stampIdempotencyKey(
  headers: Headers,
  method: string | undefined,
  options: ResolvedOptions,
): string | undefined {
  const header = idempotencyHeader(options);
  const existing = readHeader(headers, header);
  if (existing !== undefined) return existing;
  const keyOptions = options.idempotencyKey || undefined;
  // No method (never one from axios, which sets it on every request): no key.
  if (!keyOptions?.methods.includes(method?.toUpperCase() as string)) return undefined;
  const key = ruled('idempotencyKey.generate()', NON_EMPTY, keyOptions.generate());
  putHeader(headers, header, key);
  return key;
}
