import { v4 as uuidv4 } from 'uuid';
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
import type { LoadControlStore } from '../load-control/store';

/** A rule for one option: what it accepts, and how the error message says so. */
export type Rule = readonly [accepts: (value: unknown) => boolean, expected: string];

/**
 * The one table of an option group: each field of its public type (declared and documented in
 * types.ts) with its rule (what it accepts, how the error says so) and its default, in the
 * order the errors list them. A field of `Unset` has no default: it stays unset unless given.
 */
type Schema<T, Unset extends keyof T = never> = {
  readonly [K in keyof T]-?: K extends Unset ? Rule : readonly [...Rule, Exclude<T[K], undefined>];
};
type AnySchema = Readonly<Record<string, readonly [...Rule, unknown?]>>;

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
const FALSE_OR_OBJECT: Rule = [(v) => v === false || isObject(v), 'false or an object'];

/** A schema's defaults, frozen: the README's options table lists the same values. */
function defaultsOf<T>(schema: AnySchema): T {
  const defaults: Record<string, unknown> = {};
  for (const name in schema) {
    const field = schema[name] as AnySchema[string];
    if (field.length > 2) defaults[name] = field[2];
  }
  return Object.freeze(defaults) as T;
}

/** Options with no default: unset unless given. */
type Unset = Exclude<keyof RequestRetryOptions, keyof typeof DEFAULT_OPTIONS>;
/** The client's option groups: each has a schema and defaults of its own. */
type Group = 'retryBudget' | 'circuitBreaker' | 'pacing' | 'maxConcurrent';

export const REQUEST_SCHEMA: Schema<RequestRetryOptions, Unset> = {
  retries: [
    (v) => v === Infinity || (Number.isInteger(v) && isNumber(v) && v >= 0),
    'a whole number ≥ 0, or Infinity',
    3,
  ],
  baseDelayMs: [...MS, 100],
  maxDelayMs: [...MS, 20_000],
  // Looked up at each draw, so a test that stubs Math.random reaches it.
  random: [...FUNCTION, (): number => Math.random()],
  statusCodes: [
    arrayOf((s) => Number.isInteger(s) && isRepeatableStatus(s as number)),
    'an array of 408, 429 and 5xx statuses',
    Object.freeze([408, 429, 500, 502, 503, 504]),
  ],
  methods: [...METHODS, Object.freeze(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE'])],
  shouldRetry: FUNCTION,
  maxRetryAfterMs: [
    (v) => isNumber(v) && v >= 0,
    'a number of milliseconds ≥ 0, or Infinity',
    60_000,
  ],
  // Infinity: no deadline (a request turns the client's off).
  deadlineMs: [(v) => isNumber(v) && v > 0, 'a number of milliseconds > 0, or Infinity'],
  idempotencyKey: [(v) => typeof v === 'boolean' || isObject(v), 'true, false or an object', false],
  onRetry: FUNCTION,
  propagate: [(v) => v === !!v, 'true or false'],
  retryDelay: FUNCTION,
};

export const CLIENT_SCHEMA: Schema<RetryOptions, Unset | Group | 'store'> = {
  ...REQUEST_SCHEMA,
  retryBudget: FALSE_OR_OBJECT,
  circuitBreaker: FALSE_OR_OBJECT,
  pacing: FALSE_OR_OBJECT,
  maxConcurrent: [
    (v) => v === Infinity || (Number.isInteger(v) && (v as number) >= 1),
    'a whole number ≥ 1, or Infinity',
  ],
  store: [
    (v) =>
      isObject(v) &&
      ['update', 'watch', 'lease', 'clients'].every((m) => typeof v[m] === 'function'),
    'a store (from createRedisStore)',
  ],
};

export const KEY_SCHEMA: Schema<IdempotencyKeyOptions> = {
  header: [
    (v) => typeof v === 'string' && /^[\w!#$%&'*+.^`|~-]+$/.test(v),
    'a header name',
    'Idempotency-Key',
  ],
  methods: [...METHODS, Object.freeze(['POST', 'PATCH'])],
  generate: [...FUNCTION, (): string => uuidv4()],
};

export const BUDGET_SCHEMA: Schema<RetryBudgetOptions> = {
  ratio: [(v) => isNumber(v) && v >= 0 && v <= 1, 'a number from 0 to 1', 0.1],
  minRetriesPerSecond: [isFiniteAtLeast0, 'a number ≥ 0', 10],
  windowMs: [...POSITIVE_MS, 10_000],
};

// The numbers are chosen with the benchmarks; the README says why.
export const BREAKER_SCHEMA: Schema<CircuitBreakerOptions, 'onStateChange'> = {
  failureRatio: [(v) => isNumber(v) && v > 0 && v <= 1, 'a number greater than 0, up to 1', 1],
  minimumThroughput: [(v) => Number.isInteger(v) && (v as number) >= 1, 'a whole number ≥ 1', 10],
  windowMs: [...POSITIVE_MS, 1000],
  breakDurationMs: [...POSITIVE_MS, 500],
  maxBreakDurationMs: [...POSITIVE_MS, 2000],
  onStateChange: FUNCTION,
};

export const PACING_SCHEMA: Schema<PacingOptions> = {
  growthPerSecond: [isFiniteAtLeast0, 'a number ≥ 0', 0.05],
  healthyAfterMs: [...MS, 5000],
  minRatePerSecond: [
    (v) => isNumber(v) && v > 0 && v < Infinity,
    'a number of requests per second > 0',
    0.5,
  ],
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
function group<T extends object>(
  given: object | false | undefined,
  defaults: T,
  schema: AnySchema,
  path: string,
): T | false {
  return given === false ? false : { ...defaults, ...checked(given ?? {}, schema, path) };
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
 * Checks each field of `given` against its rule in `schema`, naming a bad one by its full path (`path` is
 * e.g. `retry.` or `retryBudget.`); returns the fields that are set (an `undefined` field takes
 * the default, rather than overriding it).
 */
function checked(given: unknown, schema: AnySchema, path: string): Record<string, unknown> {
  const set: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(
    ruled(path.slice(0, -1) || 'options', [isObject, 'an object'], given) as object,
  )) {
    const field = schema[name];
    if (!field) {
      throw optionError(
        `unknown option \`${path}${name}\`; the options are ${Object.keys(schema).join(', ')}`,
      );
    }
    if (value !== undefined) set[name] = ruled(path + name, field as Rule, value);
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
            ...checked(key, KEY_SCHEMA, `${path}idempotencyKey.`),
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
  readonly maxConcurrent: number | undefined;
  readonly store: LoadControlStore | undefined;
}

/** Validates client options; throws a TypeError naming the first bad option. */
export function resolveClientOptions(options: RetryOptions = {}): ClientSettings {
  const { retryBudget, circuitBreaker, pacing, maxConcurrent, store, ...given } = checked(
    options,
    CLIENT_SCHEMA,
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
    BREAKER_SCHEMA,
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
    budget: group(retryBudget, DEFAULT_RETRY_BUDGET, BUDGET_SCHEMA, 'retryBudget.'),
    circuitBreaker: breaker,
    pacing: group(pacing, DEFAULT_PACING, PACING_SCHEMA, 'pacing.'),
    maxConcurrent,
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
