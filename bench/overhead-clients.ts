import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import axios, { type AxiosInstance, type CreateAxiosDefaults } from 'axios';
import axiosRetry from 'axios-retry';
import * as rax from 'retry-axios';
import * as source from '../src';

// The package as it ships (dist/, after `npm run build`: minified, its internal names shortened),
// else this repository's src/ through ts-node, which costs more per call. A build older than a
// file of src/ is not the code under test: src/ then, and the rows say so.
const BUILT = join(__dirname, '..', 'dist', 'index.js');
const SRC = join(__dirname, '..', 'src');

/** The latest change to a file under `dir`, in ms. */
const changedAt = (dir: string): number =>
  Math.max(
    ...readdirSync(dir, { withFileTypes: true }).map((entry) => {
      const path = join(dir, entry.name);
      return entry.isDirectory() ? changedAt(path) : statSync(path).mtimeMs;
    }),
  );

const shipped = existsSync(BUILT) && statSync(BUILT).mtimeMs >= changedAt(SRC);
const { attachRetry }: typeof source = shipped ? require(BUILT) : source;
const FROM = shipped ? 'dist/' : 'src/';

/** A client of the overhead tables: how to make it on axios defaults (an adapter, an agent). */
export interface OverheadClient {
  readonly name: string;
  readonly make: (defaults: CreateAxiosDefaults) => AxiosInstance;
}

const BARE = 'bare axios';
export const OURS = `axios-safe-retry (attachRetry, ${FROM})`;
export const PEER = 'axios-retry 4.5';

/** The same clients, in the same order, on both transports. */
export const overheadClients: readonly OverheadClient[] = [
  { name: BARE, make: (defaults) => axios.create(defaults) },
  {
    name: OURS,
    make: (defaults) => {
      const instance = axios.create(defaults);
      attachRetry(instance);
      return instance;
    },
  },
  {
    // What the per-origin load control costs on the success path (reported, no target).
    name: `axios-safe-retry, breaker and pacing off (${FROM})`,
    make: (defaults) => {
      const instance = axios.create(defaults);
      attachRetry(instance, { circuitBreaker: false, pacing: false });
      return instance;
    },
  },
  {
    name: PEER,
    make: (defaults) => {
      const instance = axios.create(defaults);
      axiosRetry(instance, { retries: 3, retryDelay: axiosRetry.exponentialDelay });
      return instance;
    },
  },
  {
    name: 'retry-axios 4.0',
    make: (defaults) => {
      const instance = axios.create(defaults);
      instance.defaults.raxConfig = { retry: 3, backoffType: 'exponential', jitter: 'full' };
      rax.attach(instance);
      return instance;
    },
  },
];

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/**
 * Each client's per-round value ÷ bare axios's in the same round, median over the rounds and
 * the range; `rounds` holds a value by client name per round (higher is better).
 */
export function ratiosToBare(
  rounds: readonly ReadonlyMap<string, number>[],
): Map<string, { median: number; min: number; max: number }> {
  return new Map(
    overheadClients.map(({ name }) => {
      const ratios = rounds.map((round) => (round.get(name) ?? 0) / (round.get(BARE) ?? NaN));
      return [name, { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) }];
    }),
  );
}
