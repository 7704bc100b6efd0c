import { loadControlPool } from '../contestants';
import { ratio, seconds } from '../report/format';
import { type Metric, ratioTable } from '../report/ratios';
import type { Table } from '../report/table';
import { completionMs, failedCalls, failureBreakdown } from '../sim/metrics';
import { leakyBucketServer } from '../sim/server-model';
import { type SimulationResult, simulateAll } from '../sim/simulation';
import { openLoop } from '../sim/workload';
import {
  breakerColumn,
  causesColumn,
  completionColumns,
  defaultsOf,
  failedColumn,
  LOAD_CONTROL_CONTESTANTS,
  okColumn,
  requestsColumn,
  sideBySide,
  statusColumn,
} from './load-control-common';
import type { ScenarioReport, TargetCheck } from './scenario';

const LEAKY = {
  calls: 100,
  ratePerSecond: 20,
  burst: 5,
  latencyMs: 10,
  retries: 3,
  binMs: 250,
  // Targets (issue 13): 0 failed, completion ≤ this × ideal, per reject status.
  forms: [
    { status: 429, maxCompletionVsIdeal: 1.3 },
    { status: 503, maxCompletionVsIdeal: 1.5 },
  ],
};
/** The bucket drains 20 a second: 100 calls cannot all be served before 5 s. */
const IDEAL_MS = (LEAKY.calls / LEAKY.ratePerSecond) * 1000;

function targetsOf(status: number, max: number, results: readonly SimulationResult[]) {
  const ours = defaultsOf(results);
  const prefix = `${status} form, defaults`;
  const checks: TargetCheck[] = [
    {
      target: `${prefix}: 0 failed calls`,
      met: failedCalls(ours) === 0,
      measured: `${failedCalls(ours)} failed (${failureBreakdown(ours)})`,
    },
    {
      target: `${prefix}: completion ≤ ${max}× ideal (${seconds(IDEAL_MS)})`,
      met: completionMs(ours) <= max * IDEAL_MS,
      measured: `${seconds(completionMs(ours))} = ${ratio(completionMs(ours), IDEAL_MS)}`,
    },
  ];
  return checks;
}

const metrics: Metric[] = [
  { name: 'failed calls', value: failedCalls },
  { name: 'completion', value: completionMs },
];

export async function leakyBucket(): Promise<ScenarioReport> {
  const startedAt = performance.now();
  const tables: Table[] = [];
  const targets: TargetCheck[] = [];
  const charts: ScenarioReport['charts'][number][] = [];
  for (const { status, maxCompletionVsIdeal } of LEAKY.forms) {
    const results = await simulateAll(loadControlPool(), {
      settings: { retries: LEAKY.retries },
      server: () =>
        leakyBucketServer({
          ratePerSecond: LEAKY.ratePerSecond,
          burst: LEAKY.burst,
          latencyMs: LEAKY.latencyMs,
          rejectStatus: status,
        }),
      workload: openLoop(new Array<number>(LEAKY.calls).fill(0)),
    });
    const title = `Leaky bucket (${status}): ${LEAKY.calls} GETs at t = 0, ${LEAKY.ratePerSecond} r/s, burst ${LEAKY.burst}`;
    tables.push(
      sideBySide(title, results, [
        okColumn,
        failedColumn,
        causesColumn,
        requestsColumn,
        statusColumn(status),
        ...completionColumns(IDEAL_MS),
        breakerColumn,
      ]),
      ratioTable(`Leaky bucket (${status}): ours ÷ axios-retry`, results, metrics),
    );
    targets.push(...targetsOf(status, maxCompletionVsIdeal, results));
    if (status === 503) {
      charts.push({
        file: 'leaky-bucket.svg',
        title: `Leaky bucket (nginx limit_req, ${status}): arrivals at the server`,
        binMs: LEAKY.binMs,
        series: results.map((result) => ({
          name: result.contestant.name,
          bins: result.traffic.histogram(LEAKY.binMs),
        })),
        reference: {
          value: (LEAKY.ratePerSecond * LEAKY.binMs) / 1000,
          label: `drain rate (${LEAKY.ratePerSecond} r/s)`,
        },
      });
    }
  }
  return {
    title: 'Leaky bucket (nginx limit_req)',
    setup: [
      `${LEAKY.calls} GETs, all at t = 0 (open loop: a call that fails stays failed).`,
      `The server is nginx \`limit_req rate=${LEAKY.ratePerSecond}r/s burst=${LEAKY.burst}\` WITHOUT \`nodelay\`, one key: a request within the burst is queued and served as the bucket drains (one every ${1000 / LEAKY.ratePerSecond} ms); one beyond the burst is rejected at once, with no Retry-After and no rate-limit header. Run twice: rejected with 429, and with nginx's default 503. Every answer takes ${LEAKY.latencyMs} ms once out of the queue.`,
      `Every contestant: ${LEAKY.retries} retries (our default), no deadline. ${LOAD_CONTROL_CONTESTANTS}`,
      `Ideal completion = ${LEAKY.calls} / ${LEAKY.ratePerSecond} per s = ${seconds(IDEAL_MS)}. Completion = when the last call settled.`,
    ],
    tables,
    targets,
    charts,
    realSeconds: (performance.now() - startedAt) / 1000,
  };
}
