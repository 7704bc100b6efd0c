import { contestants } from '../contestants';
import { fixed, integer, seconds } from '../report/format';
import { type Metric, ratioTable } from '../report/ratios';
import { completionMs, failedCalls, requestsPerCall, requestsSent } from '../sim/metrics';
import { alwaysFailingServer } from '../sim/server-model';
import { simulateAll } from '../sim/simulation';
import { steadyRate } from '../sim/workload';
import type { ScenarioReport } from './scenario';

const OUTAGE = {
  calls: 10_000,
  perSecond: 1_000,
  latencyMs: 20,
  retries: 3,
  binMs: 100,
  maxAmplification: 1.12,
};

export async function fullOutage(): Promise<ScenarioReport> {
  const startedAt = performance.now();
  const results = await simulateAll(contestants, {
    settings: { retries: OUTAGE.retries },
    server: () => alwaysFailingServer(503, OUTAGE.latencyMs),
    workload: steadyRate(OUTAGE.calls, OUTAGE.perSecond),
  });
  const amplification: Metric = { name: 'requests per call', value: requestsPerCall };
  return {
    title: 'Full outage',
    setup: [
      `${OUTAGE.calls} GETs at a steady ${OUTAGE.perSecond} per second (10 s) against a dependency that answers 503 to everything, in ${OUTAGE.latencyMs} ms.`,
      `Every contestant: ${OUTAGE.retries} retries, no deadline. Amplification = requests the dependency received ÷ calls.`,
    ],
    tables: [
      {
        title: `Full outage: ${OUTAGE.calls} calls, everything 503`,
        columns: [
          'contestant',
          'requests sent',
          'amplification',
          'calls failed',
          'last call settled',
        ],
        rows: results.map((result) => [
          result.contestant.name,
          integer(requestsSent(result)),
          fixed(requestsPerCall(result), 3),
          integer(failedCalls(result)),
          seconds(completionMs(result)),
        ]),
      },
      ratioTable('Full outage: ours ÷ each peer', results, [amplification]),
    ],
    targets: results
      .filter((result) => result.contestant.name === 'axios-safe-retry')
      .map((result) => ({
        target: `amplification ≤ ${OUTAGE.maxAmplification} (default budget)`,
        met: requestsPerCall(result) <= OUTAGE.maxAmplification,
        measured: fixed(requestsPerCall(result), 3),
      })),
    charts: [
      {
        file: 'full-outage.svg',
        title: 'Full outage: arrivals at the failing dependency',
        binMs: OUTAGE.binMs,
        series: results.map((result) => ({
          name: result.contestant.name,
          bins: result.traffic.histogram(OUTAGE.binMs),
        })),
        reference: {
          value: (OUTAGE.perSecond * OUTAGE.binMs) / 1000,
          label: 'calls started per 100 ms',
        },
      },
    ],
    realSeconds: (performance.now() - startedAt) / 1000,
  };
}
