import { breakerOff, pacingOff, withVariants } from '../contestants';
import { fixed, millis, percent, ratio } from '../report/format';
import { type Metric, ratioTable } from '../report/ratios';
import type { Table } from '../report/table';
import {
  breakerOpenedCell,
  breakerOpenings,
  failedCalls,
  failureBreakdown,
  latencyPercentileMs,
  requestsPerCall,
  successRatio,
} from '../sim/metrics';
import { mulberry32 } from '../sim/prng';
import { randomFailureServer } from '../sim/server-model';
import { type SimulationResult, simulateAll } from '../sim/simulation';
import { steadyRate } from '../sim/workload';
import type { ScenarioReport, TargetCheck } from './scenario';

const PARTIAL = {
  calls: 10_000,
  perSecond: 1_000,
  failureRatio: 0.3,
  latencyMs: 20,
  retries: 3,
  binMs: 100,
  /** The server's draw of which requests fail: its own seed, not the contestants'. */
  serverSeed: 7,
  minSuccess: 0.99,
  maxRequestsPerCall: 1.45,
  maxP99VsPacingOff: 1.5,
};

const named = (results: readonly SimulationResult[], name: string) =>
  results.find((result) => result.contestant.name === name);

function targetsOf(results: readonly SimulationResult[]): TargetCheck[] {
  const ours = named(results, 'axios-safe-retry');
  const noBreaker = named(results, breakerOff.name);
  const noPacing = named(results, pacingOff.name);
  if (!ours || !noBreaker || !noPacing) return [];
  const p99 = latencyPercentileMs(ours, 99);
  const p99NoPacing = latencyPercentileMs(noPacing, 99);
  return [
    {
      target: `defaults: ≥ ${percent(PARTIAL.minSuccess)} of calls succeed`,
      met: successRatio(ours) >= PARTIAL.minSuccess,
      measured: `${percent(successRatio(ours))} (${failedCalls(ours)} failed: ${failureBreakdown(ours)})`,
    },
    {
      target: `defaults: ≤ ${PARTIAL.maxRequestsPerCall} requests per call`,
      met: requestsPerCall(ours) <= PARTIAL.maxRequestsPerCall,
      measured: fixed(requestsPerCall(ours), 3),
    },
    {
      target: `defaults: p99 latency ≤ ${PARTIAL.maxP99VsPacingOff}× pacing off's`,
      met: p99 <= PARTIAL.maxP99VsPacingOff * p99NoPacing,
      measured: `${millis(p99)} vs ${millis(p99NoPacing)} = ${ratio(p99, p99NoPacing)}`,
    },
    {
      target: 'defaults: the breaker stays closed (opened 0 times)',
      met: breakerOpenings(ours) === 0,
      measured: `opened ${breakerOpenings(ours)} times`,
    },
    {
      target: 'defaults: calls succeed as often as with the breaker off',
      met: successRatio(ours) >= successRatio(noBreaker),
      measured: `${percent(successRatio(ours))} vs ${percent(successRatio(noBreaker))}`,
    },
  ];
}

export async function partialFailure(): Promise<ScenarioReport> {
  const startedAt = performance.now();
  const results = await simulateAll(withVariants(breakerOff, pacingOff), {
    settings: { retries: PARTIAL.retries },
    server: () =>
      randomFailureServer({
        failureRatio: PARTIAL.failureRatio,
        latencyMs: PARTIAL.latencyMs,
        random: mulberry32(PARTIAL.serverSeed),
      }),
    workload: steadyRate(PARTIAL.calls, PARTIAL.perSecond),
  });
  const metrics: Metric[] = [
    { name: 'calls failed', value: failedCalls },
    { name: 'requests per call', value: requestsPerCall },
    { name: 'p99 latency', value: (result) => latencyPercentileMs(result, 99) },
  ];
  const table: Table = {
    title: `Partial failure: ${PARTIAL.calls} calls, ${percent(PARTIAL.failureRatio, 0)} of requests answered 503 at random`,
    columns: [
      'contestant',
      'calls succeeded',
      'failures by cause',
      'requests per call',
      'p50',
      'p99',
      'breaker opened',
    ],
    rows: results.map((result) => [
      result.contestant.name,
      percent(successRatio(result)),
      failureBreakdown(result),
      fixed(requestsPerCall(result), 3),
      millis(latencyPercentileMs(result, 50)),
      millis(latencyPercentileMs(result, 99)),
      breakerOpenedCell(result),
    ]),
  };
  return {
    title: 'Partial failure',
    setup: [
      `${PARTIAL.calls} GETs at a steady ${PARTIAL.perSecond} per second (10 s). The dependency answers 503 (no Retry-After) to ${percent(PARTIAL.failureRatio, 0)} of requests at random (its own seeded draw per request, independent of the contestants' jitter), 200 to the rest; every answer takes ${PARTIAL.latencyMs} ms. The 503s do not depend on the rate: one bad backend of three, say.`,
      `Every contestant: ${PARTIAL.retries} retries, no deadline. With 3 retries a call fails only if 4 draws in a row fail: ${percent(PARTIAL.failureRatio ** 4)} of calls, and an unhindered retrier sends 1 + 0.3 + 0.09 + 0.027 ≈ 1.42 requests per call.`,
      `Also run: axios-safe-retry with \`circuitBreaker: false\` and with \`pacing: false\`. "Breaker opened" counts the breaker's transitions to open, seen through \`circuitBreaker: { onStateChange }\` (no other field, so the defaults).`,
    ],
    tables: [table, ratioTable('Partial failure: ours ÷ each peer', results, metrics)],
    targets: targetsOf(results),
    charts: [
      {
        file: 'partial-failure.svg',
        title: 'Partial failure: arrivals at the dependency (30% answered 503 at random)',
        binMs: PARTIAL.binMs,
        series: results.map((result) => ({
          name: result.contestant.name,
          bins: result.traffic.histogram(PARTIAL.binMs),
        })),
        reference: {
          value: (PARTIAL.perSecond * PARTIAL.binMs) / 1000,
          label: 'calls started per 100 ms',
        },
      },
    ],
    realSeconds: (performance.now() - startedAt) / 1000,
  };
}
