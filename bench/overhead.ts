import axios, { type AxiosAdapter, type AxiosInstance } from 'axios';
import axiosRetry from 'axios-retry';
import * as rax from 'retry-axios';
import { Bench } from 'tinybench';
import { attachRetry } from '../src';
import { fixed, integer } from './report/format';
import type { Table } from './report/table';

/** Answers 200 at once: the cost measured is axios plus the plugin, not a network. */
const okAdapter: AxiosAdapter = async (config) => ({
  data: { ok: true },
  status: 200,
  statusText: 'OK',
  headers: {},
  config,
  request: {},
});

const clients: ReadonlyArray<{ name: string; make: () => AxiosInstance }> = [
  { name: 'bare axios', make: () => axios.create({ adapter: okAdapter }) },
  {
    name: 'axios-safe-retry (attachRetry)',
    make: () => {
      const instance = axios.create({ adapter: okAdapter });
      attachRetry(instance);
      return instance;
    },
  },
  {
    // What the per-origin load control costs on the success path (reported, no target).
    name: 'axios-safe-retry, breaker and pacing off',
    make: () => {
      const instance = axios.create({ adapter: okAdapter });
      attachRetry(instance, { circuitBreaker: false, pacing: false });
      return instance;
    },
  },
  {
    name: 'axios-retry 4.5',
    make: () => {
      const instance = axios.create({ adapter: okAdapter });
      axiosRetry(instance, { retries: 3, retryDelay: axiosRetry.exponentialDelay });
      return instance;
    },
  },
  {
    name: 'retry-axios 4.0',
    make: () => {
      const instance = axios.create({ adapter: okAdapter });
      instance.defaults.raxConfig = { retry: 3, backoffType: 'exponential', jitter: 'full' };
      rax.attach(instance);
      return instance;
    },
  },
];

export const OVERHEAD = { rounds: 25, timeMs: 80, warmupMs: 20 };

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** One tinybench run over every client, starting with the one at `offset`; ops/s by client name. */
async function runRound(offset: number): Promise<Map<string, number>> {
  const bench = new Bench({ time: OVERHEAD.timeMs, warmupTime: OVERHEAD.warmupMs });
  for (let index = 0; index < clients.length; index += 1) {
    const client = clients[(index + offset) % clients.length] as (typeof clients)[number];
    const instance = client.make();
    bench.add(client.name, async () => {
      await instance.get('/ok');
    });
  }
  await bench.run();
  const opsPerSecond = new Map<string, number>();
  for (const task of bench.tasks) {
    const result = task.result;
    if (result.state !== 'completed')
      throw new Error(`overhead task ${task.name} ended ${result.state}`);
    // The median sample, not the mean: a neighbour's burst on a shared machine stalls a few
    // samples, which drags the mean but not the median.
    opsPerSecond.set(task.name, 1000 / result.latency.p50);
  }
  return opsPerSecond;
}

export interface OverheadResult {
  readonly table: Table;
  /** Median over rounds of (client ops/s ÷ bare axios ops/s in the same round). */
  readonly ratioToBare: ReadonlyMap<string, number>;
}

/**
 * Ops/s of one successful GET through each client, in real time. After one discarded warm-up
 * round, `OVERHEAD.rounds` rounds run with the task order rotated; each client's ratio to bare
 * axios is taken within a round and the median is reported, so a noisy neighbour on a shared
 * machine skews one round rather than the comparison.
 */
export async function measureOverhead(): Promise<OverheadResult> {
  await runRound(0);
  const rounds: Map<string, number>[] = [];
  for (let round = 0; round < OVERHEAD.rounds; round += 1) rounds.push(await runRound(round));
  const medianOver = (value: (round: Map<string, number>) => number): number =>
    median(rounds.map(value));
  const bareOf = (round: Map<string, number>): number => round.get('bare axios') ?? Number.NaN;
  const ratioToBare = new Map(
    clients.map(({ name }) => [
      name,
      medianOver((round) => (round.get(name) ?? 0) / bareOf(round)),
    ]),
  );
  const table: Table = {
    title: `Overhead: one successful GET through a mock adapter (${OVERHEAD.rounds} rounds of ${OVERHEAD.timeMs} ms per client)`,
    columns: [
      'client',
      'ops/s (1 ÷ median latency)',
      '÷ bare axios (median of per-round ratios)',
      'ratio range over rounds',
    ],
    rows: clients.map(({ name }) => {
      const ratios = rounds.map((round) => (round.get(name) ?? 0) / bareOf(round));
      return [
        name,
        integer(medianOver((round) => round.get(name) ?? 0)),
        `${fixed(ratioToBare.get(name) ?? 0)}×`,
        `${fixed(Math.min(...ratios))}–${fixed(Math.max(...ratios))}`,
      ];
    }),
  };
  return { table, ratioToBare };
}
