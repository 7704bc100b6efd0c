import { loadControlPool } from '../contestants';
import { fixed, integer, ratio } from '../report/format';
import { type Metric, ratioTable } from '../report/ratios';
import { completionMs, failedCalls } from '../sim/metrics';
import { mulberry32 } from '../sim/prng';
import { randomFailureServer } from '../sim/server-model';
import { type SimulationResult, simulateAll } from '../sim/simulation';
import { closedLoop } from '../sim/workload';
import {
  breakerColumn,
  causesColumn,
  completionColumns,
  defaultsOf,
  failedColumn,
  LOAD_CONTROL_CONTESTANTS,
  loadControlOffOf,
  requestsColumn,
  sideBySide,
  statusColumn,
  versusLoadControlOff,
} from './load-control-common';
import type { ScenarioReport, TargetCheck } from './scenario';

const OCCASIONAL = {
  calls: 2_000,
  concurrency: 64,
  throttleRatio: 0.005,
  latencyMs: 10,
  retries: 3,
  /** The server's draw of which requests are throttled: its own seed, not the contestants'. */
  serverSeed: 13,
  // Target (issue 13): our throughput ≥ this × load control off's, side by side.
  minThroughputVsOff: 0.6,
};

/** Calls per second of virtual time: every call of the job, over its completion. */
const throughput = (result: SimulationResult): number =>
  (result.calls.length / Math.max(1, completionMs(result))) * 1000;

function targetsOf(results: readonly SimulationResult[]): TargetCheck[] {
  const ours = defaultsOf(results);
  const off = loadControlOffOf(results);
  return [
    {
      target: `defaults: throughput ≥ ${OCCASIONAL.minThroughputVsOff}× load control off's`,
      met: throughput(ours) >= OCCASIONAL.minThroughputVsOff * throughput(off),
      measured: `${integer(throughput(ours))} vs ${integer(throughput(off))} calls/s = ${ratio(throughput(ours), throughput(off))}`,
    },
    {
      target: 'defaults: failed calls (re-issued by the job)',
      met: undefined,
      measured: `${failedCalls(ours)}; load control off: ${failedCalls(off)}`,
    },
  ];
}

const metrics: Metric[] = [{ name: 'completion', value: completionMs }];

export async function occasional429(): Promise<ScenarioReport> {
  const startedAt = performance.now();
  const results = await simulateAll(loadControlPool(), {
    settings: { retries: OCCASIONAL.retries },
    server: () =>
      randomFailureServer({
        failureRatio: OCCASIONAL.throttleRatio,
        status: 429,
        latencyMs: OCCASIONAL.latencyMs,
        random: mulberry32(OCCASIONAL.serverSeed),
      }),
    workload: closedLoop(OCCASIONAL.calls, OCCASIONAL.concurrency),
  });
  return {
    title: 'Occasional 429',
    setup: [
      `A job of ${OCCASIONAL.calls} GETs, ${OCCASIONAL.concurrency} at a time (each worker starts its next call when its last one settles; a call that fails after its retries is called again at once).`,
      `A fast, healthy server (every answer in ${OCCASIONAL.latencyMs} ms) answers 429 to a random ${fixed(OCCASIONAL.throttleRatio * 100, 1)} % of requests (its own seeded draw), with no Retry-After and no rate-limit header; 200 to the rest. It has no limit a client could learn: the 429s are noise.`,
      `Every contestant: ${OCCASIONAL.retries} retries, no deadline. ${LOAD_CONTROL_CONTESTANTS}`,
      'Throughput = calls (re-issued ones included) ÷ completion, in calls per second of virtual time.',
    ],
    tables: [
      sideBySide(
        `Occasional 429: ${OCCASIONAL.calls} calls at ${OCCASIONAL.concurrency} in flight, ${fixed(OCCASIONAL.throttleRatio * 100, 1)} % random 429`,
        results,
        [
          { name: 'calls/s', cell: (result) => integer(throughput(result)) },
          versusLoadControlOff('÷ load control off', throughput, results),
          failedColumn,
          causesColumn,
          requestsColumn,
          statusColumn(429),
          ...completionColumns(),
          breakerColumn,
        ],
      ),
      ratioTable('Occasional 429: ours ÷ axios-retry', results, metrics),
    ],
    targets: targetsOf(results),
    charts: [],
    realSeconds: (performance.now() - startedAt) / 1000,
  };
}
