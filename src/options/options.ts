import { v4 as uuidv4 } from 'uuid';
import type { LoadControlStore } from '../contract/store';
import type {
  CircuitBreakerOptions,
  CircuitBreakerSettings,
  IdempotencyKeyOptions,
  PacingOptions,
  PacingSettings,
  RequestRetryOptions,
  ResolvedIdempotencyKey,
  RetryBudgetOptions,
  RetryBudgetSettings,
  RetryOptions,
} from '../contract/types';
import { isRepeatableStatus } from '../http/classify';
import {
  type AnySchema,
  checked,
  defaultsOf,
  FUNCTION,
  isObject,
  type Rule,
  range,
  ruled,
} from './rules';

/**
 * The one table of an option group: each field of its public type (declared and documented in
 * types.ts) with its rule (what it accepts, how the error says so) and its default, in the
 * order the errors list them. A field of `Unset` has no default: it stays unset unless given.
 */
type Schema<T, Unset extends keyof T = never> = {
  readonly [K in keyof T]-?: K extends Unset ? Rule : readonly [...Rule, Exclude<T[K], undefined>];
};

const arrayOf =
  (accepts: (item: unknown) => boolean) =>
  (value: unknown): boolean =>
    Array.isArray(value) && value.every(accepts);

/** A finite number ≥ 0 (milliseconds, a rate). */
export const FINITE: Rule = range('[0, ∞)');
const POSITIVE: Rule = range('(0, ∞)');
/** A string with something in it (an idempotency key, a method). */
export const NON_EMPTY: Rule = [(v) => typeof v === 'string' && v !== '', 'a non-empty string'];
const METHODS: Rule = [arrayOf(NON_EMPTY[0]), 'an array of methods'];
const FALSE_OR_OBJECT: Rule = [(v) => v === false || isObject(v), 'false or an object'];

/** Options with no default: unset unless given. */
type Unset = Exclude<keyof RequestRetryOptions, keyof typeof DEFAULT_OPTIONS>;
/** The client's option groups: each has a schema and defaults of its own. */
type Group = 'retryBudget' | 'circuitBreaker' | 'pacing';

export const REQUEST_SCHEMA: Schema<RequestRetryOptions, Unset> = {
  retries: [...range('[0, ∞]', true), 3],
  baseDelayMs: [...FINITE, 100],
  maxDelayMs: [...FINITE, 20_000],
  // Looked up at each draw, so a test that stubs Math.random reaches it.
  random: [...FUNCTION, (): number => Math.random()],
  statusCodes: [
    arrayOf((s) => Number.isInteger(s) && isRepeatableStatus(s as number)),
    'an array of 408, 429, 5xx',
    [408, 429, 500, 502, 503, 504],
  ],
  methods: [...METHODS, ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']],
  shouldRetry: FUNCTION,
  maxRetryAfterMs: [...range('[0, ∞]'), 60_000],
  // Infinity: no deadline (a request turns the client's off).
  deadlineMs: range('(0, ∞]'),
  idempotencyKey: [(v) => v === !!v || isObject(v), 'a boolean or an object', false],
  onRetry: FUNCTION,
  propagate: [(v) => v === !!v, 'a boolean'],
  retryDelay: FUNCTION,
};

export const CLIENT_SCHEMA: Schema<RetryOptions, Unset | Group | 'store'> = {
  ...REQUEST_SCHEMA,
  retryBudget: FALSE_OR_OBJECT,
  circuitBreaker: FALSE_OR_OBJECT,
  pacing: FALSE_OR_OBJECT,
  store: [
    (v) =>
      isObject(v) &&
      ['update', 'watch', 'lease', 'clients'].every((m) => typeof v[m] === 'function'),
    'a store',
  ],
};

export const KEY_SCHEMA: Schema<IdempotencyKeyOptions> = {
  header: [
    (v) => typeof v === 'string' && /^[\w!#$%&'*+.^`|~-]+$/.test(v),
    'a header name',
    'Idempotency-Key',
  ],
  methods: [...METHODS, ['POST', 'PATCH']],
  generate: [...FUNCTION, (): string => uuidv4()],
};

export const BUDGET_SCHEMA: Schema<RetryBudgetOptions> = {
  ratio: [...range('[0, 1]'), 0.1],
  minRetriesPerSecond: [...FINITE, 10],
  windowMs: [...POSITIVE, 10_000],
};

// The numbers are chosen with the benchmarks; the README says why.
export const BREAKER_SCHEMA: Schema<CircuitBreakerOptions, 'onStateChange'> = {
  failureRatio: [...range('(0, 1]'), 1],
  minimumThroughput: [...range('[1, ∞)', true), 10],
  windowMs: [...POSITIVE, 1000],
  breakDurationMs: [...POSITIVE, 500],
  maxBreakDurationMs: [...POSITIVE, 2000],
  onStateChange: FUNCTION,
};

export const PACING_SCHEMA: Schema<PacingOptions> = {
  growthPerSecond: [...FINITE, 0.05],
  healthyAfterMs: [...FINITE, 5000],
  minRatePerSecond: [...POSITIVE, 0.5],
};

/** The defaults of the options that have one. Frozen. */
export const DEFAULT_OPTIONS: Readonly<
  Required<
    Omit<
      RequestRetryOptions,
      'shouldRetry' | 'deadlineMs' | 'idempotencyKey' | 'onRetry' | 'propagate' | 'retryDelay'
    >
  > & { idempotencyKey: false }
> = defaultsOf(REQUEST_SCHEMA);
export const DEFAULT_IDEMPOTENCY_KEY: ResolvedIdempotencyKey = defaultsOf(KEY_SCHEMA);
export const DEFAULT_RETRY_BUDGET: RetryBudgetSettings = defaultsOf(BUDGET_SCHEMA);
export const DEFAULT_CIRCUIT_BREAKER: CircuitBreakerSettings = defaultsOf(BREAKER_SCHEMA);
export const DEFAULT_PACING: PacingSettings = defaultsOf(PACING_SCHEMA);

/** The options of one call, validated, with every default filled in (`methods` in upper case). */
export type ResolvedOptions = Readonly<
  Omit<typeof DEFAULT_OPTIONS, 'idempotencyKey'> &
    Pick<RequestRetryOptions, Unset> & { idempotencyKey: ResolvedIdempotencyKey | false }
>;

/** A client-level option group: `false`, or its defaults overridden by what was given. */
const group = <T extends object>(
  given: object | false | undefined,
  schema: AnySchema,
  path: string,
): T | false =>
  given === false ? false : { ...defaultsOf<T>(schema), ...checked(given ?? {}, schema, path) };

/** `options` with its `methods` in upper case. */
const withUpperCaseMethods = <T extends { readonly methods: readonly string[] }>(
  options: T,
): T => ({
  ...options,
  methods: options.methods.map((m) => m.toUpperCase()),
});

/**
 * `random` as the code draws from it: a value outside [0, 1) (`NaN`, `Infinity`, `-1`) would
 * become a delay of `null`, a negative one or forever; it rejects the call instead.
 */
const UNIT: Rule = range('[0, 1)');

/** Fills in the defaults of options that were checked already. */
function resolve(given: RequestRetryOptions, path: string): ResolvedOptions {
  // Both given: a base over the ceiling is a mistake (a ceiling given alone may cut the default).
  if (given.maxDelayMs !== undefined) {
    ruled(`${path}baseDelayMs`, range(`[0, ${given.maxDelayMs}]`), given.baseDelayMs ?? 0);
  }
  const { random, deadlineMs, idempotencyKey: key } = given;
  return withUpperCaseMethods({
    ...DEFAULT_OPTIONS,
    ...given,
    // Checked as the code draws from it (`UNIT`).
    random: random ? () => ruled(`${path}random()`, UNIT, random()) : DEFAULT_OPTIONS.random,
    deadlineMs: deadlineMs === Infinity ? undefined : deadlineMs,
    idempotencyKey:
      key === true
        ? DEFAULT_IDEMPOTENCY_KEY
        : !!key &&
          withUpperCaseMethods(
            group(key, KEY_SCHEMA, `${path}idempotencyKey.`) as ResolvedIdempotencyKey,
          ),
  });
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
    CLIENT_SCHEMA,
    '',
  ) as RetryOptions;
  const breaker = group<CircuitBreakerSettings>(circuitBreaker, BREAKER_SCHEMA, 'circuitBreaker.');
  return {
    // First: its longest break is checked right after its group, before the other options (the
    // first bad option is the one named).
    circuitBreaker: breaker && {
      ...breaker,
      maxBreakDurationMs: ruled(
        'circuitBreaker.maxBreakDurationMs',
        range(`[${breaker.breakDurationMs}, ∞)`),
        // The longest break follows a longer break given alone. (The breaker is on: its options
        // were given, or not at all.)
        (circuitBreaker as CircuitBreakerOptions | undefined)?.maxBreakDurationMs ??
          Math.max(breaker.maxBreakDurationMs, breaker.breakDurationMs),
      ),
    },
    given,
    options: resolve(given, ''),
    budget: group<RetryBudgetSettings>(retryBudget, BUDGET_SCHEMA, 'retryBudget.'),
    pacing: group<PacingSettings>(pacing, PACING_SCHEMA, 'pacing.'),
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
  return resolve({ ...client.given, ...checked(perRequest, REQUEST_SCHEMA, 'retry.') }, 'retry.');
}
