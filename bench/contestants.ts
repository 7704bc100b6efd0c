import type { AxiosInstance } from 'axios';
import axiosRetry from 'axios-retry';
import * as rax from 'retry-axios';
import { attachRetry } from '../src';
import { attachNaiveRetry } from './naive-retry-interceptor';

/** What a scenario asks of every contestant. */
export interface RetrySettings {
  readonly retries: number;
  /** Only axios-safe-retry has a deadline option; peers get more retries instead, as stated. */
  readonly deadlineMs?: number;
  /** The seeded jitter source (peers read it through `Math.random`, which the bench replaces). */
  readonly random: () => number;
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
  return {
    retries: settings.retries,
    random: settings.random,
    ...(settings.deadlineMs === undefined ? {} : { deadlineMs: settings.deadlineMs }),
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
