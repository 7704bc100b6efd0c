import type { AxiosInstance } from 'axios';
import axiosRetry from 'axios-retry';
import * as rax from 'retry-axios';
import { attachRetry, type CircuitStateChange } from '../src';
import { attachNaiveRetry } from './naive-retry-interceptor';

/** What a scenario asks of every contestant. */
export interface RetrySettings {
  readonly retries: number;
  /** Only axios-safe-retry has a deadline option; peers get more retries instead, as stated. */
  readonly deadlineMs?: number;
  /** The seeded jitter source (peers read it through `Math.random`, which the bench replaces). */
  readonly random: () => number;
  /**
   * Told of every circuit-breaker transition, so the bench can count how often it opened. Our
   * contestants with the breaker on pass it as `circuitBreaker: { onStateChange }` and nothing
   * else, so the breaker keeps every default.
   */
  readonly onCircuitStateChange?: (event: CircuitStateChange) => void;
}

export type ContestantKind = 'baseline' | 'peer' | 'ours';

export interface Contestant {
  readonly name: string;
  readonly kind: ContestantKind;
  /** How it is configured, in words, for BENCHMARKS.md. */
  readonly describe: (settings: Omit<RetrySettings, 'random'>) => string;
  readonly attach: (instance: AxiosInstance, settings: RetrySettings) => void;
}

function ourOptions(settings: RetrySettings) {
  const onStateChange = settings.onCircuitStateChange;
  return {
    retries: settings.retries,
    random: settings.random,
    ...(settings.deadlineMs === undefined ? {} : { deadlineMs: settings.deadlineMs }),
    ...(onStateChange === undefined ? {} : { circuitBreaker: { onStateChange } }),
  };
}

function ourDescription(settings: Omit<RetrySettings, 'random'>, extra: string): string {
  const deadline = settings.deadlineMs === undefined ? '' : `, deadlineMs: ${settings.deadlineMs}`;
  return `attachRetry(instance, { retries: ${settings.retries}${deadline}${extra}, random: seeded })`;
}

export const contestants: readonly Contestant[] = [
  {
    name: 'no retry',
    kind: 'baseline',
    describe: () => 'plain axios instance',
    attach: () => {},
  },
  {
    name: 'fixed 1 s',
    kind: 'baseline',
    describe: (s) =>
      `bench interceptor: ${s.retries} retries, 1000 ms apart (5xx, 429, network errors)`,
    attach: (instance, s) => attachNaiveRetry(instance, s.retries, () => 1000),
  },
  {
    name: 'exponential, no jitter',
    kind: 'baseline',
    describe: (s) =>
      `bench interceptor: ${s.retries} retries, 100·2^(n-1) ms (5xx, 429, network errors)`,
    attach: (instance, s) => attachNaiveRetry(instance, s.retries, (n) => 100 * 2 ** (n - 1)),
  },
  {
    name: 'axios-retry 4.5',
    kind: 'peer',
    describe: (s) =>
      `axiosRetry(instance, { retries: ${s.retries}, retryDelay: axiosRetry.exponentialDelay, ` +
      'retryCondition: axiosRetry.isNetworkOrIdempotentRequestError })',
    attach: (instance, s) =>
      axiosRetry(instance, {
        retries: s.retries,
        retryDelay: axiosRetry.exponentialDelay,
        // Retries GET on network errors, 429 and 5xx (its default, spelled out).
        retryCondition: axiosRetry.isNetworkOrIdempotentRequestError,
      }),
  },
  {
    name: 'retry-axios 4.0',
    kind: 'peer',
    describe: (s) =>
      `instance.defaults.raxConfig = { retry: ${s.retries}, backoffType: 'exponential', retryDelay: 100, ` +
      "jitter: 'full' }; rax.attach(instance)",
    attach: (instance, s) => {
      instance.defaults.raxConfig = {
        retry: s.retries,
        backoffType: 'exponential',
        retryDelay: 100,
        jitter: 'full',
      };
      rax.attach(instance);
    },
  },
  {
    name: 'axios-safe-retry',
    kind: 'ours',
    describe: (s) => ourDescription(s, ''),
    attach: (instance, s) => {
      attachRetry(instance, ourOptions(s));
    },
  },
  {
    name: 'axios-safe-retry, budget off',
    kind: 'ours',
    describe: (s) => ourDescription(s, ', retryBudget: false'),
    attach: (instance, s) => {
      attachRetry(instance, { ...ourOptions(s), retryBudget: false });
    },
  },
];

/** The defaults without the circuit breaker: only in the scenarios that compare against it. */
export const breakerOff: Contestant = {
  name: 'axios-safe-retry, breaker off',
  kind: 'ours',
  describe: (s) => ourDescription(s, ', circuitBreaker: false'),
  attach: (instance, s) => {
    attachRetry(instance, { ...ourOptions(s), circuitBreaker: false });
  },
};

/** The defaults without adaptive pacing: only in the scenarios that compare against it. */
export const pacingOff: Contestant = {
  name: 'axios-safe-retry, pacing off',
  kind: 'ours',
  describe: (s) => ourDescription(s, ', pacing: false'),
  attach: (instance, s) => {
    attachRetry(instance, { ...ourOptions(s), pacing: false });
  },
};

/**
 * The defaults with all load control off (`circuitBreaker: false, pacing: false,
 * maxConcurrent: Infinity`: the FAQ's setting for tests, and what a user who meets trouble with
 * load control turns to): only in the scenarios that compare against it.
 */
export const loadControlOff: Contestant = {
  name: 'axios-safe-retry, load control off',
  kind: 'ours',
  describe: (s) =>
    ourDescription(s, ', circuitBreaker: false, pacing: false, maxConcurrent: Infinity'),
  attach: (instance, s) => {
    attachRetry(instance, {
      ...ourOptions(s),
      circuitBreaker: false,
      pacing: false,
      maxConcurrent: Infinity,
    });
  },
};

/** Every contestant of some scenario, for the list in BENCHMARKS.md. */
export const allContestants: readonly Contestant[] = [
  ...contestants,
  breakerOff,
  pacingOff,
  loadControlOff,
];

/** The default contestants plus `extra`, each right after the defaults' variants. */
export function withVariants(...extra: readonly Contestant[]): readonly Contestant[] {
  return [...contestants, ...extra];
}

/**
 * axios-retry, our defaults and our defaults with load control off, side by side: the pool of
 * the load-control scenarios (issue 13).
 */
export function loadControlPool(): readonly Contestant[] {
  const named = (name: string): Contestant => {
    const found = contestants.find((contestant) => contestant.name === name);
    if (!found) throw new Error(`no contestant named ${name}`);
    return found;
  };
  return [named('axios-retry 4.5'), named('axios-safe-retry'), loadControlOff];
}
