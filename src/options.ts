import { v4 as uuidv4 } from 'uuid';
import type { RetryBudgetSettings } from './budget';
import { isRepeatableStatus } from './classify';
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
  readonly shouldRetry: RequestRetryOptions['shouldRetry'];
  readonly maxRetryAfterMs: number;
  readonly deadlineMs: number | undefined;
  readonly idempotencyKey: ResolvedIdempotencyKey | false;
  readonly onRetry: RequestRetryOptions['onRetry'];
}

/** The defaults, in one place; the README's options table lists the same values. */
export const DEFAULT_OPTIONS = {
  retries: 3,
  baseDelayMs: 100,
  maxDelayMs: 20_000,
  // Looked up at each draw, so a test that stubs Math.random reaches it.
  random: (): number => Math.random(),
  statusCodes: [408, 429, 500, 502, 503, 504],
  methods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE'],
  maxRetryAfterMs: 60_000,
  idempotencyKey: false,
} as const;

export const DEFAULT_IDEMPOTENCY_KEY = {
  header: 'Idempotency-Key',
  methods: ['POST', 'PATCH'],
  generate: (): string => uuidv4(),
} as const;

export const DEFAULT_RETRY_BUDGET: RetryBudgetSettings = {
  ratio: 0.1,
  minRetriesPerSecond: 10,
  windowMs: 10_000,
};

const REQUEST_KEYS = new Set<string>([
  'retries',
  'baseDelayMs',
  'maxDelayMs',
  'random',
  'statusCodes',
  'methods',
  'shouldRetry',
  'maxRetryAfterMs',
  'deadlineMs',
  'idempotencyKey',
  'onRetry',
]);

function describe(value: unknown): string {
  if (typeof value !== 'string' && (typeof value !== 'object' || value === null))
    return String(value);
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/** Throws a TypeError that names the option (with its `prefix`, e.g. `retry.`) and what it accepts. */
class OptionChecker {
  constructor(private readonly prefix: string) {}

  fail(name: string, expected: string, value: unknown): never {
    const shown = typeof value === 'function' ? 'a function' : describe(value);
    const label = `${this.prefix}${name}`.replace(/\.$/, '');
    throw new TypeError(`axios-safe-retry: \`${label}\` must be ${expected}; got ${shown}.`);
  }

  object(name: string, value: unknown): Record<string, unknown> {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      this.fail(name, 'an object', value);
    }
    return value as Record<string, unknown>;
  }

  knownKeys(name: string, value: Record<string, unknown>, known: ReadonlySet<string>): void {
    for (const key of Object.keys(value)) {
      if (!known.has(key)) {
        const where = name ? ` in \`${this.prefix}${name}\`` : '';
        throw new TypeError(
          `axios-safe-retry: unknown option \`${key}\`${where}; the options are ${[...known].join(', ')}.`,
        );
      }
    }
  }

  number(name: string, value: unknown, min: number, max: number, allowInfinity = false): number {
    const inRange = typeof value === 'number' && value >= min && value <= max;
    if (!(inRange || (allowInfinity && value === Infinity))) {
      this.fail(name, `a number from ${min} to ${allowInfinity ? 'Infinity' : max}`, value);
    }
    return value as number;
  }

  count(name: string, value: unknown): number {
    if (
      !(typeof value === 'number' && value >= 0 && (Number.isInteger(value) || value === Infinity))
    ) {
      this.fail(name, 'a whole number ≥ 0 (or Infinity)', value);
    }
    return value as number;
  }

  func<T>(name: string, value: unknown): T {
    if (typeof value !== 'function') this.fail(name, 'a function', value);
    return value as T;
  }

  methods(name: string, value: unknown): string[] {
    if (!Array.isArray(value) || !value.every((m) => typeof m === 'string' && m.length > 0)) {
      this.fail(name, 'an array of HTTP method names', value);
    }
    return (value as string[]).map((method) => method.toUpperCase());
  }
}

function resolveIdempotencyKey(
  check: OptionChecker,
  value: unknown,
): ResolvedIdempotencyKey | false {
  if (value === false) return false;
  if (value === true) return DEFAULT_IDEMPOTENCY_KEY;
  const given = check.object('idempotencyKey', value);
  check.knownKeys('idempotencyKey', given, new Set(['header', 'methods', 'generate']));
  const header = given.header ?? DEFAULT_IDEMPOTENCY_KEY.header;
  if (typeof header !== 'string' || !/^[!#$%&'*+.^_`|~0-9a-z-]+$/i.test(header)) {
    check.fail('idempotencyKey.header', 'a header name', header);
  }
  return {
    header,
    methods: check.methods(
      'idempotencyKey.methods',
      given.methods ?? DEFAULT_IDEMPOTENCY_KEY.methods,
    ),
    generate: check.func(
      'idempotencyKey.generate',
      given.generate ?? DEFAULT_IDEMPOTENCY_KEY.generate,
    ),
  };
}

/** Drops fields set to `undefined`, so that they take the default instead of overriding it. */
function defined<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(options).filter(([, value]) => value !== undefined),
  ) as Partial<T>;
}

function resolve(options: RequestRetryOptions, check: OptionChecker): ResolvedOptions {
  const given = { ...DEFAULT_OPTIONS, ...defined(options) } as Record<string, unknown>;
  const statusCodes = given.statusCodes;
  if (
    !Array.isArray(statusCodes) ||
    !statusCodes.every((status) => Number.isInteger(status) && isRepeatableStatus(status))
  ) {
    check.fail(
      'statusCodes',
      'an array of 408, 429 and 5xx statuses (other 4xx never succeed on a repeat)',
      statusCodes,
    );
  }
  const optionalFunc = <T>(name: string): T | undefined =>
    given[name] === undefined ? undefined : check.func<T>(name, given[name]);
  return {
    retries: check.count('retries', given.retries),
    baseDelayMs: check.number('baseDelayMs', given.baseDelayMs, 0, Number.MAX_SAFE_INTEGER),
    maxDelayMs: check.number('maxDelayMs', given.maxDelayMs, 0, Number.MAX_SAFE_INTEGER),
    random: check.func('random', given.random),
    statusCodes: statusCodes as number[],
    methods: check.methods('methods', given.methods),
    shouldRetry: optionalFunc('shouldRetry'),
    maxRetryAfterMs: check.number(
      'maxRetryAfterMs',
      given.maxRetryAfterMs,
      0,
      Number.MAX_SAFE_INTEGER,
      true,
    ),
    deadlineMs:
      given.deadlineMs === undefined
        ? undefined
        : check.number('deadlineMs', given.deadlineMs, 1, Number.MAX_SAFE_INTEGER),
    idempotencyKey: resolveIdempotencyKey(check, given.idempotencyKey),
    onRetry: optionalFunc('onRetry'),
  };
}

function resolveBudget(check: OptionChecker, value: unknown): RetryBudgetSettings | false {
  if (value === false) return false;
  if (value === undefined) return DEFAULT_RETRY_BUDGET;
  const given = check.object('retryBudget', value);
  check.knownKeys('retryBudget', given, new Set(['ratio', 'minRetriesPerSecond', 'windowMs']));
  const merged = { ...DEFAULT_RETRY_BUDGET, ...defined(given) };
  return {
    ratio: check.number('retryBudget.ratio', merged.ratio, 0, 1),
    minRetriesPerSecond: check.number(
      'retryBudget.minRetriesPerSecond',
      merged.minRetriesPerSecond,
      0,
      Number.MAX_SAFE_INTEGER,
    ),
    windowMs: check.number('retryBudget.windowMs', merged.windowMs, 1, Number.MAX_SAFE_INTEGER),
  };
}

export interface ClientSettings {
  /** What the client was given, kept so a request's overrides are merged over it. */
  readonly given: RequestRetryOptions;
  readonly options: ResolvedOptions;
  readonly budget: RetryBudgetSettings | false;
}

/** Validates client options; throws a TypeError naming the first bad option. */
export function resolveClientOptions(options: RetryOptions = {}): ClientSettings {
  const check = new OptionChecker('');
  const { retryBudget, ...given } = check.object('options', options) as RetryOptions;
  check.knownKeys('', given as Record<string, unknown>, REQUEST_KEYS);
  return { given, options: resolve(given, check), budget: resolveBudget(check, retryBudget) };
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
  const check = new OptionChecker('retry.');
  const given = check.object('', perRequest);
  if ('retryBudget' in given) {
    throw new TypeError(
      'axios-safe-retry: `retry.retryBudget` cannot be set per request: the budget is shared by every call of a client.',
    );
  }
  check.knownKeys('', given, REQUEST_KEYS);
  return resolve({ ...client.given, ...given }, check);
}
