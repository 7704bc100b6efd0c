import type { BreakerState, PaceState, SharedScope } from '../contract/store';
import { isObject } from '../options/rules';

/**
 * A scope's shared state as JSON in Redis, and back. JSON has no ±Infinity: they travel as the
 * strings `"Infinity"` and `"-Infinity"`. NaN is never written (the state is not stored). What
 * comes back from Redis is checked field by field: a server is not trusted, and neither is a
 * store of another version, so anything malformed decodes to `undefined`, never to an error.
 */

type Field = 'number' | 'boolean';

// Typed against the state types, so that a field added there fails to compile here until the
// codec knows it (a store that dropped it would otherwise share a state without it).
const PACE_FIELDS: Readonly<Record<keyof PaceState, Field>> = {
  base: 'number',
  since: 'number',
  slowStart: 'boolean',
  growth: 'number',
  cap: 'number',
  decidedAt: 'number',
  cuts: 'number',
  holdUntil: 'number',
  heldAt: 'number',
  roundSum: 'number',
  roundReports: 'number',
  lastSignal: 'number',
  overloadSince: 'number',
  releasing: 'boolean',
  ignoreOverloadUntil: 'number',
};

const BREAKER_STATES: ReadonlySet<unknown> = new Set<BreakerState['state']>([
  'closed',
  'open',
  'half-open',
]);

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

function number(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (value === 'Infinity') return Infinity;
  if (value === '-Infinity') return -Infinity;
  return undefined;
}

function decodePace(value: unknown): PaceState | undefined {
  if (!isObject(value)) return undefined;
  const pace: Record<string, number | boolean> = {};
  for (const [name, kind] of Object.entries(PACE_FIELDS)) {
    const field = kind === 'number' ? number(value[name]) : value[name];
    if (typeof field !== kind) return undefined;
    pace[name] = field as number | boolean;
  }
  return pace as unknown as PaceState;
}

function decodeBreaker(value: unknown): BreakerState | undefined {
  if (!isObject(value) || !BREAKER_STATES.has(value.state)) return undefined;
  const openUntil = number(value.openUntil);
  const failedProbes = number(value.failedProbes);
  if (openUntil === undefined || failedProbes === undefined || failedProbes < 0) return undefined;
  return { state: value.state as BreakerState['state'], openUntil, failedProbes };
}

/** A state as stored (already parsed), or `undefined` when anything in it is malformed. */
export function decodeScope(value: unknown): SharedScope | undefined {
  if (!isObject(value)) return undefined;
  const { version } = value;
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 0) {
    return undefined;
  }
  const pace = decodePace(value.pace);
  const breaker = decodeBreaker(value.breaker);
  return pace && breaker ? { version, pace, breaker } : undefined;
}

/** `JSON.parse` that answers `undefined` instead of throwing. */
export function parseJson(text: unknown): unknown {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text);
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
