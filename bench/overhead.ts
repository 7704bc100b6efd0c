import type { AxiosAdapter, AxiosInstance } from 'axios';
import { Bench } from 'tinybench';
import { median, overheadClients, ratiosToBare } from './overhead-clients';
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

export const OVERHEAD = { rounds: 25, timeMs: 80, warmupMs: 20 };

/** One tinybench run over every client, starting with the one at `offset`; ops/s by client name. */
async function runRound(offset: number): Promise<Map<string, number>> {
  const bench = new Bench({ time: OVERHEAD.timeMs, warmupTime: OVERHEAD.warmupMs });
  for (let index = 0; index < overheadClients.length; index += 1) {
    const client = overheadClients[
      (index + offset) % overheadClients.length
    ] as (typeof overheadClients)[number];
    const instance: AxiosInstance = client.make({ adapter: okAdapter });
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
  const ratios = ratiosToBare(rounds);
  const table: Table = {
    title: `Overhead: one successful GET through a mock adapter (${OVERHEAD.rounds} rounds of ${OVERHEAD.timeMs} ms per client)`,
    columns: [
      'client',
      'ops/s (1 ÷ median latency)',
      '÷ bare axios (median of per-round ratios)',
      'ratio range over rounds',
    ],
    rows: overheadClients.map(({ name }) => {
      const ratio = ratios.get(name);
      return [
        name,
        integer(median(rounds.map((round) => round.get(name) ?? 0))),
        `${fixed(ratio?.median ?? 0)}×`,
        `${fixed(ratio?.min ?? 0)}–${fixed(ratio?.max ?? 0)}`,
      ];
    }),
  };
  return { table, ratioToBare: new Map([...ratios].map(([name, r]) => [name, r.median])) };
}
