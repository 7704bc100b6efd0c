import { breakerOff, withVariants } from '../contestants';
import { fixed, integer, millis } from '../report/format';
import { type Metric, ratioTable } from '../report/ratios';
import {
  breakerOpenedCell,
  failedCalls,
  failureBreakdown,
  latencyPercentileMs,
  requestsPerCall,
} from '../sim/metrics';
import { failoverServer } from '../sim/server-model';
import { type SimulationResult, simulateAll } from '../sim/simulation';
import { steadyRate } from '../sim/workload';
import type { ScenarioReport, TargetCheck } from './scenario';

const FAILOVER = {
  calls: 1_000,
  perSecond: 100,
  latencyMs: 50,
  downAtMs: 2_000,
  upAtMs: 10_000,
  refuseAfterMs: 1,
  retries: 10,
  deadlineMs: 15_000,
  binMs: 100,
  recoveryWindowMs: 2_000,
  // Targets (issue 7).
  maxRequestsPerCall: 1.5,
  maxP99Ms: 9_500,
  maxRecoveryPeak: 3,
};

const steadyPerBin = (FAILOVER.perSecond * FAILOVER.binMs) / 1000;

/** The busiest 100 ms at the server in the two seconds after it came back, ÷ the steady rate. */
function recoveryPeak(result: SimulationResult): number {
  const bins = result.traffic.histogram(FAILOVER.binMs);
  const from = FAILOVER.upAtMs / FAILOVER.binMs;
  const to = (FAILOVER.upAtMs + FAILOVER.recoveryWindowMs) / FAILOVER.binMs;
  return Math.max(0, ...bins.slice(from, to)) / steadyPerBin;
}

function targetsOf(results: readonly SimulationResult[]): TargetCheck[] {
  const ours = results.find((result) => result.contestant.name === 'axios-safe-retry');
  if (!ours) return [];
  const prefix = `defaults, deadlineMs: ${FAILOVER.deadlineMs}`;
  return [
    {
      target: `${prefix}: 0 user-visible errors`,
      met: failedCalls(ours) === 0,
      measured: `${failedCalls(ours)} errors (${failureBreakdown(ours)})`,
    },
    {
      target: `${prefix}: ≤ ${FAILOVER.maxRequestsPerCall} requests per call`,
      met: requestsPerCall(ours) <= FAILOVER.maxRequestsPerCall,
      measured: fixed(requestsPerCall(ours)),
    },
    {
      target: `${prefix}: p99 latency ≤ ${FAILOVER.maxP99Ms / 1000} s (floor ≈ 8 s)`,
      met: latencyPercentileMs(ours, 99) <= FAILOVER.maxP99Ms,
      measured: millis(latencyPercentileMs(ours, 99)),
    },
    {
      target: `${prefix}: recovery peak ≤ ${FAILOVER.maxRecoveryPeak}× steady`,
      met: recoveryPeak(ours) <= FAILOVER.maxRecoveryPeak,
      measured: `${fixed(recoveryPeak(ours), 1)}×`,
    },
  ];
}

export async function failover(): Promise<ScenarioReport> {
  const startedAt = performance.now();
  const results = await simulateAll(
    withVariants(breakerOff).map((contestant) =>
      contestant.kind === 'ours'
        ? contestant
        : {
            ...contestant,
            attach: (instance, settings) =>
              contestant.attach(instance, { ...settings, deadlineMs: undefined }),
          },
    ),
    {
      settings: { retries: FAILOVER.retries, deadlineMs: FAILOVER.deadlineMs },
      server: () => failoverServer(FAILOVER),
      workload: steadyRate(FAILOVER.calls, FAILOVER.perSecond),
    },
  );
  const metrics: Metric[] = [
    { name: 'p99 latency', value: (result) => latencyPercentileMs(result, 99) },
    { name: 'requests per call', value: requestsPerCall },
    { name: 'recovery peak', value: recoveryPeak },
  ];
  return {
    title: 'Failover',
    setup: [
      `${FAILOVER.calls} GETs at a steady ${FAILOVER.perSecond} per second; healthy answers take ${FAILOVER.latencyMs} ms.`,
      `At t = ${FAILOVER.downAtMs / 1000} s the server resets every open connection (ECONNRESET) and refuses new ones (ECONNREFUSED after ${FAILOVER.refuseAfterMs} ms) until t = ${FAILOVER.upAtMs / 1000} s.`,
      `Every retrying contestant gets ${FAILOVER.retries} retries so that its backoff can span the 8 s outage; axios-safe-retry also gets deadlineMs: ${FAILOVER.deadlineMs} (the peers have no deadline option, so they get none). Also run: axios-safe-retry with \`circuitBreaker: false\`.`,
      `Recovery peak = the busiest ${FAILOVER.binMs} ms at the server in [${FAILOVER.upAtMs / 1000} s, ${(FAILOVER.upAtMs + FAILOVER.recoveryWindowMs) / 1000} s) ÷ the steady ${steadyPerBin} per ${FAILOVER.binMs} ms. Refused connection attempts count as arrivals.`,
    ],
    tables: [
      {
        title: `Failover: ${FAILOVER.calls} calls, server gone from ${FAILOVER.downAtMs / 1000} s to ${FAILOVER.upAtMs / 1000} s`,
        columns: [
          'contestant',
          'user-visible errors',
          'errors by cause',
          'p50',
          'p99',
          'requests per call',
          'recovery peak',
          'breaker opened',
        ],
        rows: results.map((result) => [
          result.contestant.name,
          integer(failedCalls(result)),
          failureBreakdown(result),
          millis(latencyPercentileMs(result, 50)),
          millis(latencyPercentileMs(result, 99)),
          fixed(requestsPerCall(result)),
          `${fixed(recoveryPeak(result), 1)}×`,
          breakerOpenedCell(result),
        ]),
      },
      ratioTable('Failover: ours ÷ each peer', results, metrics),
    ],
    targets: targetsOf(results),
    charts: [
      {
        file: 'failover.svg',
        title: 'Failover: arrivals at the server (refused connection attempts included)',
        binMs: FAILOVER.binMs,
        series: results.map((result) => ({
          name: result.contestant.name,
          bins: result.traffic.histogram(FAILOVER.binMs),
        })),
        shade: { fromMs: FAILOVER.downAtMs, toMs: FAILOVER.upAtMs, label: 'server down' },
        reference: { value: steadyPerBin, label: 'steady rate' },
      },
    ],
    realSeconds: (performance.now() - startedAt) / 1000,
  };
}
