import { v4 as uuidv4 } from 'uuid';
import type { RetryBudgetSettings } from './budget';
import type { CircuitBreakerSettings } from './circuit-breaker';
import { isRepeatableStatus } from './classify';
import type { PacingSettings } from './pacer';
import type { LoadControlStore } from './store';
import type { RequestRetryOptions, RetryOptions } from './types';

export interface ResolvedIdempotencyKey {
  readonly header: string;
  /** Upper case. */
  readonly methods: readonly string[];
  readonly generate: () => string;
}

/** The options of one call, validated, with every default filled in. */
export interface ResolvedOptions {
  readonly retries: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly random: () => number;
  readonly statusCodes: readonly number[];
  /** Upper case. */
  readonly methods: readonly string[];
  readonly shouldRetry?: RequestRetryOptions['shouldRetry'];
  readonly maxRetryAfterMs: number;
  readonly deadlineMs?: number;
  readonly idempotencyKey: ResolvedIdempotencyKey | false;
  readonly onRetry?: RequestRetryOptions['onRetry'];
  readonly propagate?: boolean;
  readonly retryDelay?: RequestRetryOptions['retryDelay'];
}

/** The defaults, in one place; the README's options table lists the same values. Frozen. */
export const DEFAULT_OPTIONS = Object.freeze({
  retries: 3,
  baseDelayMs: 100,
  maxDelayMs: 20_000,
  // Looked up at each draw, so a test that stubs Math.random reaches it.
  random: (): number => Math.random(),
  statusCodes: Object.freeze([408, 429, 500, 502, 503, 504]),
  methods: Object.freeze(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']),
  maxRetryAfterMs: 60_000,
  idempotencyKey: false,
} as const);

export const DEFAULT_IDEMPOTENCY_KEY: ResolvedIdempotencyKey = Object.freeze({
  header: 'Idempotency-Key',
  methods: Object.freeze(['POST', 'PATCH']),
  generate: (): string => uuidv4(),
});

export const DEFAULT_RETRY_BUDGET: RetryBudgetSettings = Object.freeze({
  ratio: 0.1,
  minRetriesPerSecond: 10,
  windowMs: 10_000,
});

// The numbers are chosen with the benchmarks; the README says why.
export const DEFAULT_CIRCUIT_BREAKER: CircuitBreakerSettings = Object.freeze({
  failureRatio: 1,
  minimumThroughput: 10,
  windowMs: 1000,
  breakDurationMs: 500,
  maxBreakDurationMs: 2000,
});

export const DEFAULT_PACING: PacingSettings = Object.freeze({
  growthPerSecond: 0.05,
  healthyAfterMs: 5000,
  minRatePerSecond: 0.5,
});

/** A rule for one option: what it accepts, and how the error message says so. */
export type Rule = readonly [accepts: (value: unknown) => boolean, expected: string];
type Rules = Readonly<Record<string, Rule>>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isNumber = (value: unknown): value is number => typeof value === 'number';
const arrayOf =
  (accepts: (item: unknown) => boolean) =>
  (value: unknown): boolean =>
    Array.isArray(value) && value.every(accepts);

const isFiniteAtLeast0 = (v: unknown): boolean => isNumber(v) && v >= 0 && v < Infinity;

const FUNCTION: Rule = [(v) => typeof v === 'function', 'a function'];
export const MS: Rule = [isFiniteAtLeast0, 'a number of milliseconds ≥ 0'];
const POSITIVE_MS: Rule = [
  (v) => isNumber(v) && v > 0 && v < Infinity,
  'a number of milliseconds > 0',
];
const METHODS: Rule = [
  arrayOf((m) => typeof m === 'string' && m !== ''),
  'an array of HTTP method names',
];

const REQUEST_RULES: Rules = {
  retries: [
    (v) => v === Infinity || (Number.isInteger(v) && isNumber(v) && v >= 0),
    'a whole number ≥ 0, or Infinity',
  ],
  baseDelayMs: MS,
  maxDelayMs: MS,
  random: FUNCTION,
  statusCodes: [
    arrayOf((s) => Number.isInteger(s) && isRepeatableStatus(s as number)),
    'an array of 408, 429 and 5xx statuses',
  ],
  methods: METHODS,
  shouldRetry: FUNCTION,
  maxRetryAfterMs: [(v) => isNumber(v) && v >= 0, 'a number of milliseconds ≥ 0, or Infinity'],
  // Infinity: no deadline (a request turns the client's off).
  deadlineMs: [(v) => isNumber(v) && v > 0, 'a number of milliseconds > 0, or Infinity'],
  idempotencyKey: [(v) => typeof v === 'boolean' || isObject(v), 'true, false or an object'],
  onRetry: FUNCTION,
  propagate: [(v) => v === !!v, 'true or false'],
  retryDelay: FUNCTION,
};

const KEY_RULES: Rules = {
  header: [(v) => typeof v === 'string' && /^[\w!#$%&'*+.^`|~-]+$/.test(v), 'a header name'],
  methods: METHODS,
  generate: FUNCTION,
};

const BUDGET_RULES: Rules = {
  ratio: [(v) => isNumber(v) && v >= 0 && v <= 1, 'a number from 0 to 1'],
  minRetriesPerSecond: [isFiniteAtLeast0, 'a number ≥ 0'],
  windowMs: POSITIVE_MS,
};

const BREAKER_RULES: Rules = {
  failureRatio: [(v) => isNumber(v) && v > 0 && v <= 1, 'a number greater than 0, up to 1'],
  minimumThroughput: [(v) => Number.isInteger(v) && (v as number) >= 1, 'a whole number ≥ 1'],
  windowMs: POSITIVE_MS,
  breakDurationMs: POSITIVE_MS,
  maxBreakDurationMs: POSITIVE_MS,
  onStateChange: FUNCTION,
};

const PACING_RULES: Rules = {
  growthPerSecond: [isFiniteAtLeast0, 'a number ≥ 0'],
  healthyAfterMs: MS,
  minRatePerSecond: [
    (v) => isNumber(v) && v > 0 && v < Infinity,
    'a number of requests per second > 0',
  ],
};

const FALSE_OR_OBJECT: Rule = [(v) => v === false || isObject(v), 'false or an object'];

const CLIENT_RULES: Rules = {
  ...REQUEST_RULES,
  retryBudget: FALSE_OR_OBJECT,
  circuitBreaker: FALSE_OR_OBJECT,
  pacing: FALSE_OR_OBJECT,
  store: [
    (v) =>
      isObject(v) &&
      ['update', 'watch', 'lease', 'clients'].every((m) => typeof v[m] === 'function'),
    'a store (from createRedisStore)',
  ],
};

/** A client-level option group: `false`, or its defaults overridden by what was given. */
function group<T extends object>(
  given: object | false | undefined,
  defaults: T,
  rules: Rules,
  path: string,
): T | false {
  return given === false ? false : { ...defaults, ...checked(given ?? {}, rules, path) };
}

function shown(value: unknown): string {
  if (typeof value === 'function') return 'a function';
  return typeof value === 'string' || Array.isArray(value) ? JSON.stringify(value) : String(value);
}

export function optionError(message: string): TypeError {
  return new TypeError(`axios-safe-retry: ${message}.`);
}

/** `value` if `rule` accepts it, else a TypeError that names it (`name()` for a hook's answer). */
export function ruled<T>(name: string, [accepts, expected]: Rule, value: T): T {
  if (!accepts(value)) throw optionError(`\`${name}\` must be ${expected}; got ${shown(value)}`);
  return value;
}

/**
 * Checks each field of `given` against `rules`, naming a bad one by its full path (`path` is
 * e.g. `retry.` or `retryBudget.`); returns the fields that are set (an `undefined` field takes
 * the default, rather than overriding it).
 */
function checked(given: unknown, rules: Rules, path: string): Record<string, unknown> {
  const set: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(
    ruled(path.slice(0, -1) || 'options', [isObject, 'an object'], given) as object,
  )) {
    const rule = rules[name];
    if (!rule) {
      throw optionError(
        `unknown option \`${path}${name}\`; the options are ${Object.keys(rules).join(', ')}`,
      );
    }
    if (value !== undefined) set[name] = ruled(path + name, rule, value);
  }
  return set;
}

const upperCase = (methods: readonly string[]): string[] => methods.map((m) => m.toUpperCase());

/**
 * `random` as the code draws from it: a value outside [0, 1) (`NaN`, `Infinity`, `-1`) would
 * become a delay of `null`, a negative one or forever; it rejects the call instead.
 */
function checkedRandom(random: () => number, path: string): () => number {
  return () => {
    const value = random();
    if (value >= 0 && value < 1) return value;
    throw optionError(`\`${path}random\` must return a number in [0, 1); got ${shown(value)}`);
  };
}

/** Fills in the defaults of options that were checked already. */
function resolve(given: RequestRetryOptions, path: string): ResolvedOptions {
  const options = { ...DEFAULT_OPTIONS, ...given };
  const key = options.idempotencyKey;
  return {
    ...options,
    random: given.random ? checkedRandom(given.random, path) : options.random,
    methods: upperCase(options.methods),
    deadlineMs: options.deadlineMs === Infinity ? undefined : options.deadlineMs,
    idempotencyKey:
      key === true
        ? DEFAULT_IDEMPOTENCY_KEY
        : key && {
            ...DEFAULT_IDEMPOTENCY_KEY,
            ...checked(key, KEY_RULES, `${path}idempotencyKey.`),
            methods: upperCase(key.methods ?? DEFAULT_IDEMPOTENCY_KEY.methods),
          },
  };
}

export interface ClientSettings {
  /** What the client was given (checked), so a request's overrides are merged over it. */
  readonly given: RequestRetryOptions;
  readonly options: ResolvedOptions;
  readonly budget: RetryBudgetSettings | false;
  readonly circuitBreaker: CircuitBreakerSettings | false;
  readonly pacing: PacingSettings | false;
  readonly store: LoadControlStore | undefined;
}

/** Validates client options; throws a TypeError naming the first bad option. */
export function resolveClientOptions(options: RetryOptions = {}): ClientSettings {
  const { retryBudget, circuitBreaker, pacing, store, ...given } = checked(
    options,
    CLIENT_RULES,
    '',
  ) as RetryOptions;
  // The longest break follows a longer break given alone.
  const breaker = group(
    circuitBreaker,
    {
      ...DEFAULT_CIRCUIT_BREAKER,
      maxBreakDurationMs: Math.max(
        DEFAULT_CIRCUIT_BREAKER.maxBreakDurationMs,
        (circuitBreaker || undefined)?.breakDurationMs ?? 0,
      ),
    },
    BREAKER_RULES,
    'circuitBreaker.',
  );
  if (breaker && breaker.maxBreakDurationMs < breaker.breakDurationMs) {
    throw optionError(
      `\`circuitBreaker.maxBreakDurationMs\` must be ≥ \`circuitBreaker.breakDurationMs\` (${breaker.breakDurationMs}); got ${breaker.maxBreakDurationMs}`,
    );
  }
  return {
    given,
    options: resolve(given, ''),
    budget: group(retryBudget, DEFAULT_RETRY_BUDGET, BUDGET_RULES, 'retryBudget.'),
    circuitBreaker: breaker,
    pacing: group(pacing, DEFAULT_PACING, PACING_RULES, 'pacing.'),
    store,
  };
}

/**
 * The options of one request: the client's, overridden field by field by its `retry` config
 * (or `false` when the request turned retries off). Throws a TypeError naming a bad field.
 */
export function resolveRequestOptions(
  client: ClientSettings,
  perRequest: RequestRetryOptions | false | undefined,
): ResolvedOptions | false {
  if (perRequest === undefined) return client.options;
  if (perRequest === false) return false;
  // The client's own options (retryBudget, …) are unknown here, and named so.
  return resolve({ ...client.given, ...checked(perRequest, REQUEST_RULES, 'retry.') }, 'retry.');
}
