import { breakerOff, withVariants } from '../contestants';
import { fixed, integer, millis, seconds } from '../report/format';
import { type Metric, ratioTable } from '../report/ratios';
import {
  breakerOpenedCell,
  breakerOpenings,
  completionMs,
  failedCalls,
  failureBreakdown,
  latencyPercentileBetweenMs,
  requestsPerCall,
  requestsSent,
} from '../sim/metrics';
import { alwaysFailingServer } from '../sim/server-model';
import { type SimulationResult, simulateAll } from '../sim/simulation';
import { steadyRate } from '../sim/workload';
import type { ScenarioReport, TargetCheck } from './scenario';

const OUTAGE = {
  calls: 10_000,
  perSecond: 1_000,
  latencyMs: 20,
  retries: 3,
  binMs: 100,
  /** Issue 7: with the breaker, next to nothing reaches a dead origin (the limit is 0). */
  maxAmplification: 0.02,
  /** Issue 8: the retry budget alone (breaker off) still starves retries into a dead origin. */
  maxAmplificationBreakerOff: 1.12,
  /** Calls started after this are made while the origin is known dead. */
  knownDeadAfterMs: 1_000,
  maxKnownDeadLatencyMs: 1,
};

/** Median latency of the calls made while the origin is known dead. */
const knownDeadLatency = (result: SimulationResult): number =>
  latencyPercentileBetweenMs(result, 50, OUTAGE.knownDeadAfterMs);

function targetsOf(results: readonly SimulationResult[]): TargetCheck[] {
  const targets: TargetCheck[] = [];
  const ours = results.find((result) => result.contestant.name === 'axios-safe-retry');
  if (ours) {
    targets.push(
      {
        target: `defaults: ≤ ${OUTAGE.maxAmplification} requests per call`,
        met: requestsPerCall(ours) <= OUTAGE.maxAmplification,
        measured: `${fixed(requestsPerCall(ours), 4)} (${requestsSent(ours)} requests; breaker opened ${breakerOpenings(ours)} times)`,
      },
      {
        target: `defaults: a call made while the origin is known dead (started after ${OUTAGE.knownDeadAfterMs / 1000} s) settles in < ${OUTAGE.maxKnownDeadLatencyMs} ms (median)`,
        met: knownDeadLatency(ours) < OUTAGE.maxKnownDeadLatencyMs,
        measured: `median ${fixed(knownDeadLatency(ours), 1)} ms, p99 ${fixed(latencyPercentileBetweenMs(ours, 99, OUTAGE.knownDeadAfterMs), 1)} ms (${failureBreakdown(ours)})`,
      },
    );
  }
  const noBreaker = results.find((result) => result.contestant.name === breakerOff.name);
  if (noBreaker) {
    targets.push({
      target: `breaker off: ≤ ${OUTAGE.maxAmplificationBreakerOff} requests per call (the budget alone)`,
      met: requestsPerCall(noBreaker) <= OUTAGE.maxAmplificationBreakerOff,
      measured: fixed(requestsPerCall(noBreaker), 3),
    });
  }
  return targets;
}

export async function fullOutage(): Promise<ScenarioReport> {
  const startedAt = performance.now();
  const results = await simulateAll(withVariants(breakerOff), {
    settings: { retries: OUTAGE.retries },
    server: () => alwaysFailingServer(503, OUTAGE.latencyMs),
    workload: steadyRate(OUTAGE.calls, OUTAGE.perSecond),
  });
  const amplification: Metric = { name: 'requests per call', value: requestsPerCall };
  return {
    title: 'Full outage',
    setup: [
      `${OUTAGE.calls} GETs at a steady ${OUTAGE.perSecond} per second (10 s) against a dependency that answers 503 to everything, in ${OUTAGE.latencyMs} ms.`,
      `Every contestant: ${OUTAGE.retries} retries, no deadline. Also run: axios-safe-retry with \`circuitBreaker: false\`. Amplification = requests the dependency received ÷ calls.`,
      `"Known dead" latency: the median (and p99) latency of the calls started after ${OUTAGE.knownDeadAfterMs / 1000} s, when the dependency has failed for a second.`,
    ],
    tables: [
      {
        title: `Full outage: ${OUTAGE.calls} calls, everything 503`,
        columns: [
          'contestant',
          'requests sent',
          'amplification',
          'calls failed',
          'known dead: p50 / p99',
          'breaker opened',
          'last call settled',
        ],
        rows: results.map((result) => [
          result.contestant.name,
          integer(requestsSent(result)),
          fixed(requestsPerCall(result), 3),
          integer(failedCalls(result)),
          `${millis(knownDeadLatency(result))} / ${millis(latencyPercentileBetweenMs(result, 99, OUTAGE.knownDeadAfterMs))}`,
          breakerOpenedCell(result),
          seconds(completionMs(result)),
        ]),
      },
      ratioTable('Full outage: ours ÷ each peer', results, [amplification]),
    ],
    targets: targetsOf(results),
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
