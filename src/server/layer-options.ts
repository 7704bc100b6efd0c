import { FUNCTION, type Rule } from '../options/rules';

/** A finite number of milliseconds ≥ `min`, in the form of the client's option rules. */
const msAtLeast = (min: number): Rule => [
  (v) => typeof v === 'number' && v >= min && v < Infinity,
  `a number in [${min}, ∞)`,
];

/**
 * `retryLayer`'s options (`RetryLayerOptions`): their rules and defaults, declared once (the
 * TSDoc `@default` lines are held to them by a test).
 */
export const LAYER_SCHEMA = {
  maxDeadlineMs: [...msAtLeast(1), 60_000],
  marginMs: [...msAtLeast(0), 50],
  trustInbound: FUNCTION,
} as const;
