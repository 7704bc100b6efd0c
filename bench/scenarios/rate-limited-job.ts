import { contestants } from '../contestants';
import { integer, ratio, seconds } from '../report/format';
import { type Metric, ratioTable } from '../report/ratios';
import { completionMs, failedCalls, failureBreakdown, requestsSent } from '../sim/metrics';
import { windowedCapacityServer } from '../sim/server-model';
import { type SimulationResult, simulateAll } from '../sim/simulation';
import { closedLoop } from '../sim/workload';
import type { ScenarioReport } from './scenario';

const JOB = { calls: 2_000, concurrency: 20, perSecond: 50, latencyMs: 20, retries: 3, binMs: 100 };
const IDEAL_MS = (JOB.calls / JOB.perSecond) * 1000;

const tooManyRequests = (result: SimulationResult): number => result.traffic.count(429);

export async function rateLimitedJob(): Promise<ScenarioReport> {
  const startedAt = performance.now();
  const results = await simulateAll(contestants, {
    settings: { retries: JOB.retries },
    server: () =>
      windowedCapacityServer({
        capacity: JOB.perSecond,
        windowMs: 1000,
        latencyMs: JOB.latencyMs,
        rejectStatus: 429,
        sendRetryAfter: true,
      }),
    workload: closedLoop(JOB.calls, JOB.concurrency),
  });
  const metrics: Metric[] = [
    { name: 'completion', value: completionMs },
    { name: '429s', value: tooManyRequests },
  ];
  return {
    title: 'Rate-limited job',
    setup: [
      `A job of ${JOB.calls} GETs, ${JOB.concurrency} at a time (each worker starts its next call when its last one settles).`,
      `The API admits ${JOB.perSecond} requests per 1 s window and answers the rest 429 with Retry-After = whole seconds until the next window (at least 1); every answer takes ${JOB.latencyMs} ms.`,
      `Every contestant: ${JOB.retries} retries, no deadline. A call that still fails after its retries is called again at once by its worker, since the job must finish: completion is when all ${JOB.calls} have succeeded. Ideal completion = ${JOB.calls} / ${JOB.perSecond} per s = ${IDEAL_MS / 1000} s.`,
    ],
    tables: [
      {
        title: `Rate-limited job: ${JOB.calls} calls at concurrency ${JOB.concurrency}, ${JOB.perSecond} req/s allowed`,
        columns: [
          'contestant',
          'completion',
          '÷ ideal',
          '429s',
          'requests sent',
          'failed calls, re-issued by the job',
          'failures by cause',
        ],
        rows: results.map((result) => [
          result.contestant.name,
          seconds(completionMs(result)),
          ratio(completionMs(result), IDEAL_MS),
          integer(tooManyRequests(result)),
          integer(requestsSent(result)),
          integer(failedCalls(result)),
          failureBreakdown(result),
        ]),
      },
      ratioTable('Rate-limited job: ours ÷ each peer', results, metrics),
    ],
    targets: [],
    charts: [
      {
        file: 'rate-limited-job.svg',
        title: 'Rate-limited job: arrivals at the API',
        binMs: JOB.binMs,
        series: results.map((result) => ({
          name: result.contestant.name,
          bins: result.traffic.histogram(JOB.binMs),
        })),
      },
    ],
    realSeconds: (performance.now() - startedAt) / 1000,
  };
}
