import { contestants, pacingOff, withVariants } from '../contestants';
import { fixed, integer, ratio, seconds } from '../report/format';
import { bestPeer, type Metric, ratioTable } from '../report/ratios';
import type { Table } from '../report/table';
import {
  breakerOpenedCell,
  breakerOpenings,
  completionMs,
  failedCalls,
  failureBreakdown,
  requestsSent,
} from '../sim/metrics';
import { windowedCapacityServer } from '../sim/server-model';
import { type SimulationResult, simulateAll } from '../sim/simulation';
import { openLoop } from '../sim/workload';
import type { ScenarioReport, TargetCheck } from './scenario';

export const HERD = {
  clientCounts: [50, 100, 190],
  chartedClients: 100,
  capacityPerWindow: 10,
  windowMs: 100,
  latencyMs: 20,
  retries: 3,
  // Targets (issue 8), with the defaults.
  maxRequestsPerClient: 2.2,
  maxCompletionVsBound: 1.5,
} as const;

/** `clients` clients call at t = 0 against a server that serves 10 requests per 100 ms and answers 503 to the rest. */
export function simulateHerd(clients: number, pool = contestants): Promise<SimulationResult[]> {
  return simulateAll(pool, {
    settings: { retries: HERD.retries },
    server: () =>
      windowedCapacityServer({
        capacity: HERD.capacityPerWindow,
        windowMs: HERD.windowMs,
        latencyMs: HERD.latencyMs,
        rejectStatus: 503,
        sendRetryAfter: false,
      }),
    workload: openLoop(new Array<number>(clients).fill(0)),
  });
}

/** When the window that can serve the last of `clients` calls opens. */
function lastWindowStartMs(clients: number): number {
  return (Math.ceil(clients / HERD.capacityPerWindow) - 1) * HERD.windowMs;
}

const requests: Metric = { name: 'requests sent', value: requestsSent };
const completion: Metric = { name: 'completion', value: completionMs };

function resultTable(clients: number, results: readonly SimulationResult[]): Table {
  return {
    title: `Contention herd: ${clients} clients`,
    columns: [
      'contestant',
      'requests sent',
      'per call',
      'calls ok',
      'calls failed',
      'completion',
      'breaker opened',
    ],
    rows: results.map((result) => [
      result.contestant.name,
      integer(requestsSent(result)),
      (requestsSent(result) / clients).toFixed(2),
      integer(clients - failedCalls(result)),
      integer(failedCalls(result)),
      seconds(completionMs(result)),
      breakerOpenedCell(result),
    ]),
  };
}

/** The capacity bound: when the last call could succeed at the earliest. */
function capacityBoundMs(clients: number): number {
  return lastWindowStartMs(clients) + HERD.latencyMs;
}

function defaultTargets(clients: number, results: readonly SimulationResult[]): TargetCheck[] {
  const ours = results.find((result) => result.contestant.name === 'axios-safe-retry');
  if (!ours) return [];
  const bound = capacityBoundMs(clients);
  const prefix = `${clients} clients, defaults`;
  return [
    {
      target: `${prefix}: 0 failed calls`,
      met: failedCalls(ours) === 0,
      measured: `${failedCalls(ours)} failed (${failureBreakdown(ours)})`,
    },
    {
      target: `${prefix}: ≤ ${HERD.maxRequestsPerClient} requests per client`,
      met: requestsSent(ours) / clients <= HERD.maxRequestsPerClient,
      measured: fixed(requestsSent(ours) / clients),
    },
    {
      target: `${prefix}: completion ≤ ${HERD.maxCompletionVsBound}× the capacity bound (${seconds(bound)})`,
      met: completionMs(ours) <= HERD.maxCompletionVsBound * bound,
      measured: `${seconds(completionMs(ours))} = ${ratio(completionMs(ours), bound)}`,
    },
    {
      target: `${prefix}: the breaker never opens (the server serves some requests every ${HERD.windowMs} ms)`,
      met: breakerOpenings(ours) === 0,
      measured: `opened ${breakerOpenings(ours)} times`,
    },
  ];
}

function budgetOffTargets(clients: number, results: readonly SimulationResult[]): TargetCheck[] {
  const ours = results.find((result) => result.contestant.name === 'axios-safe-retry, budget off');
  if (!ours) return [];
  const fewest = bestPeer(results, requests);
  const fastest = bestPeer(results, completion);
  return [
    {
      target: `${clients} clients, budget off: requests sent ≤ best peer's`,
      met: requestsSent(ours) <= requestsSent(fewest),
      measured: `${requestsSent(ours)} vs ${requestsSent(fewest)} (${fewest.contestant.name}) = ${ratio(requestsSent(ours), requestsSent(fewest))}`,
    },
    {
      target: `${clients} clients, budget off: completion vs best peer's (the old 0.25× target, superseded by the capacity bound)`,
      met: undefined,
      measured: `${seconds(completionMs(ours))} vs ${seconds(completionMs(fastest))} (${fastest.contestant.name}) = ${ratio(completionMs(ours), completionMs(fastest))}`,
    },
    {
      target: `${clients} clients, budget off: no call failed`,
      met: failedCalls(ours) === 0,
      measured: `${failedCalls(ours)} failed`,
    },
  ];
}

export async function contentionHerd(): Promise<ScenarioReport> {
  const startedAt = performance.now();
  const tables: Table[] = [];
  const targets: TargetCheck[] = [];
  let charted: SimulationResult[] = [];
  for (const clients of HERD.clientCounts) {
    const results = await simulateHerd(clients, withVariants(pacingOff));
    if (clients === HERD.chartedClients) charted = results;
    tables.push(resultTable(clients, results));
    tables.push(
      ratioTable(`Contention herd: ${clients} clients, ours ÷ each peer`, results, [
        requests,
        completion,
      ]),
    );
    targets.push(...defaultTargets(clients, results), ...budgetOffTargets(clients, results));
  }
  return {
    title: 'Contention herd',
    setup: [
      `${HERD.clientCounts.join(' / ')} clients each make one GET at t = 0.`,
      `The server serves the first ${HERD.capacityPerWindow} requests of each ${HERD.windowMs} ms window (counted at arrival) and answers 503 (no Retry-After) to the rest; every answer takes ${HERD.latencyMs} ms.`,
      `Every contestant: ${HERD.retries} retries, no deadline. Also run: axios-safe-retry with \`pacing: false\`. Completion = when the last call settled (succeeded or failed).`,
      `Capacity bound: N clients need ⌈N / ${HERD.capacityPerWindow}⌉ windows, so the last call cannot succeed before ${HERD.clientCounts.map((clients) => seconds(capacityBoundMs(clients))).join(' / ')}.`,
      '"Best peer" = the best of fixed 1 s, exponential no jitter, axios-retry and retry-axios on that metric (no retry is excluded).',
    ],
    tables,
    targets,
    charts: [
      {
        file: 'contention-herd.svg',
        title: `Contention herd, ${HERD.chartedClients} clients: arrivals at the server`,
        binMs: HERD.windowMs,
        series: charted.map((result) => ({
          name: result.contestant.name,
          bins: result.traffic.histogram(HERD.windowMs),
        })),
        reference: {
          value: HERD.capacityPerWindow,
          label: `capacity (${HERD.capacityPerWindow} per ${HERD.windowMs} ms)`,
        },
      },
    ],
    realSeconds: (performance.now() - startedAt) / 1000,
  };
}
