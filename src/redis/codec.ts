import type { SharedScope } from '../load-control/store';
import { isVersion } from '../load-control/version';

/**
 * A scope's shared state as JSON in Redis, and back. JSON has no ±Infinity: they travel as the
 * strings `"Infinity"` and `"-Infinity"`. NaN is never written (the state is not stored). What
 * comes back from Redis is checked for its shape: a server is not trusted, and neither is a
 * store of another version, so anything malformed decodes to `undefined`, never to an error; and
 * a text over `MAX_TEXT` is not even parsed. (What the fields say is bounded by load control
 * itself, for any store: store-guard.ts.)
 */

/** The longest value or message read (bytes of UTF-16, about): a state takes some 500. */
export const MAX_TEXT = 4096;

/** The JSON of a state, or `undefined` when it holds a NaN (which must never be shared). */
export function encodeScope(state: SharedScope): string | undefined {
  let nan = false;
  const json = JSON.stringify(state, (_key, value: unknown) => {
    if (typeof value !== 'number' || Number.isFinite(value)) return value;
    if (Number.isNaN(value)) nan = true;
    return value > 0 ? 'Infinity' : '-Infinity';
  });
  return nan ? undefined : json;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An object whose fields are all of the kinds given (a state's are numbers and booleans or strings). */
const isFlat = (value: unknown, kinds: string): value is Record<string, unknown> =>
  isObject(value) && Object.values(value).every((field) => kinds.includes(typeof field));

/**
 * A state as stored (already parsed), or `undefined` when its shape is not one: a version, a pace
 * of numbers and booleans, a breaker of numbers and a string. The bounds of each field are load
 * control's (store-guard.ts), typed against the state types there: not checked twice.
 */
export function decodeScope(value: unknown): SharedScope | undefined {
  if (!isObject(value) || !isVersion(value.version)) return undefined;
  const { pace, breaker } = value;
  return isFlat(pace, 'numberboolean') && isFlat(breaker, 'numberstring')
    ? (value as unknown as SharedScope)
    : undefined;
}

/** ±Infinity back from their strings. */
const revive = (_key: string, value: unknown): unknown =>
  value === 'Infinity' ? Infinity : value === '-Infinity' ? -Infinity : value;

/** `JSON.parse` that answers `undefined` instead of throwing, and for a text over `MAX_TEXT`. */
export function parseJson(text: unknown): unknown {
  if (typeof text !== 'string' || text.length > MAX_TEXT) return undefined;
  try {
    return JSON.parse(text, revive);
  } catch {
    return undefined;
  }
}

/** What a store publishes when it changed a scope: who (to skip our own), which scope, the state. */
export interface ChangeMessage {
  readonly client: string;
  readonly key: string;
  readonly state: SharedScope;
}

/** The message for a change, the state already encoded (so that it is not encoded twice). */
export function encodeMessage(client: string, key: string, stateJson: string): string {
  return `{"client":${JSON.stringify(client)},"key":${JSON.stringify(key)},"state":${stateJson}}`;
}

export function decodeMessage(text: unknown): ChangeMessage | undefined {
  const message = parseJson(text);
  if (!isObject(message)) return undefined;
  const { client, key } = message;
  if (typeof client !== 'string' || typeof key !== 'string') return undefined;
  const state = decodeScope(message.state);
  return state && { client, key, state };
}
