// The rules every entry checks its options with (the client's, retryLayer's, createRedisStore's),
// and the one form of their errors: the option's name in backticks, what it accepts, what it got.

/** A rule for one option: what it accepts, and how the error message says so. */
export type Rule = readonly [accepts: (value: unknown) => boolean, expected: string];

/** The rules of an option group by name, each with its default (if it has one) after it. */
export type AnySchema = Readonly<Record<string, readonly [...Rule, unknown?]>>;

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const FUNCTION: Rule = [(v) => typeof v === 'function', 'a function'];

/**
 * A number in `interval`, written as the message shows it: `[` and `]` include the bound, `(` and
 * `)` leave it out, `∞` is Infinity (`[0, ∞)`: finite, ≥ 0). `integer`: a whole number (or ±∞).
 */
export function range(interval: string, integer?: boolean): Rule {
  const [low, high] = interval
    .slice(1, -1)
    .split(', ')
    .map((bound) => (bound === '∞' ? Infinity : +bound)) as [number, number];
  return [
    (v) =>
      typeof v === 'number' &&
      (interval[0] === '(' ? v > low : v >= low) &&
      (interval.endsWith(')') ? v < high : v <= high) &&
      // No fraction: a whole number, or ±∞ (Infinity % 1 is NaN).
      !(integer && v % 1),
    `${integer ? 'an integer' : 'a number'} in ${interval}`,
  ];
}

export const shown = (value: unknown): string =>
  typeof value === 'function'
    ? 'a function'
    : typeof value === 'string' || Array.isArray(value)
      ? JSON.stringify(value)
      : isObject(value)
        ? 'an object'
        : String(value);

export const optionError = (message: string): TypeError =>
  new TypeError(`axios-safe-retry: ${message}.`);

/** `value` if `rule` accepts it, else a TypeError that names it (`name()` for a hook's answer). */
export function ruled<T>(
  name: string,
  [accepts, expected]: Rule | readonly [...Rule, unknown],
  value: T,
): T {
  if (!accepts(value)) throw optionError(`\`${name}\` must be ${expected}; got ${shown(value)}`);
  return value;
}

/**
 * The error for an unknown option: it suggests the name that shares the longest start with the
 * unknown one (nearly half of it at least, case ignored), or that it holds whole (`maxRetries`:
 * `retries`) or ends (`breaker`: `circuitBreaker`), among those whose rule takes the value given
 * (`retry: 3`: `retries`, not `retryDelay`); with none, it points to the options table (a
 * per-request `retryBudget: false` is no misspelt `retries`).
 */
function unknownOption(
  path: string,
  [name, value]: [string, unknown],
  schema: AnySchema,
): TypeError {
  const unknown = name.toLowerCase();
  let near = '';
  // axios-retry's `retryCondition` shares only `retry` with `retryDelay`, which it does not mean.
  let best = unknown.length / 2 - 1;
  for (const candidate in schema) {
    const known = candidate.toLowerCase();
    // A name it holds whole (`maxRetries`), or one it ends (`budget`: `retryBudget`).
    let shared = unknown.includes(known)
      ? known.length
      : known.endsWith(unknown)
        ? unknown.length
        : 0;
    while (unknown[shared] && unknown[shared] === known[shared]) shared++;
    if (shared > best && (schema[candidate] as Rule)[0](value)) {
      best = shared;
      near = candidate;
    }
  }
  return optionError(
    `unknown option \`${path}${name}\`${near ? ` (did you mean \`${path}${near}\`?)` : '; see the options table'}`,
  );
}

/**
 * Checks each field of `given` against its rule in `schema`, naming a bad one by its full path
 * (`path` is e.g. `retry.` or `retryBudget.`; `options` names the whole when it is empty);
 * returns the fields that are set (an `undefined` field takes the default, rather than
 * overriding it).
 */
export function checked(given: unknown, schema: AnySchema, path: string): Record<string, unknown> {
  const set: Record<string, unknown> = {};
  for (const entry of Object.entries(
    ruled(path.slice(0, -1) || 'options', [isObject, 'an object'], given) as object,
  )) {
    const [name, value] = entry;
    const field = schema[name];
    if (!field) throw unknownOption(path, entry, schema);
    if (value !== undefined) set[name] = ruled(path + name, field as Rule, value);
  }
  return set;
}

/** A schema's defaults, frozen (an array too): the README's options table lists the same values. */
export function defaultsOf<T>(schema: AnySchema): T {
  const defaults: Record<string, unknown> = {};
  for (const name in schema) {
    const field = schema[name] as AnySchema[string];
    if (field.length > 2) defaults[name] = Object.freeze(field[2]);
  }
  return Object.freeze(defaults) as T;
}
