import { loadControlPool } from '../contestants';
import { integer, ratio, seconds } from '../report/format';
import { type Metric, ratioTable } from '../report/ratios';
import type { Table } from '../report/table';
import { delay } from '../sim/clock';
import { completionMs, failedCalls, failureBreakdown } from '../sim/metrics';
import {
  alwaysFailingServer,
  healthyServer,
  routedServer,
  windowedCapacityServer,
} from '../sim/server-model';
import { type CallRecord, type SimulationResult, simulateAll } from '../sim/simulation';
import { closedLoop, inParallel, onTarget, openLoop, type Workload } from '../sim/workload';
import {
  breakerColumn,
  causesColumn,
  completionColumns,
  defaultsOf,
  failedColumn,
  LOAD_CONTROL_CONTESTANTS,
  loadControlOffOf,
  okColumn,
  requestsColumn,
  sideBySide,
  spanMs,
  statusColumn,
  versusLoadControlOff,
} from './load-control-common';
import type { ScenarioReport, TargetCheck } from './scenario';

const SCOPE = {
  retries: 3,
  latencyMs: 10,
  // Part 1: a 429 on /limited, then /fast.
  fastCalls: 50,
  maxFastVsOff: 1.5,
  // Part 2: /broken fails, then /health.
  brokenCalls: 30,
  healthCalls: 5,
  // Part 3: one API-wide limiter behind 6 paths.
  apiPaths: ['/users', '/orders', '/items', '/invoices', '/search', '/reports'],
  apiCallsPerPath: 30,
  apiPerSecond: 30,
  apiLatencyMs: 20,
  maxExtra429PerPath: 1,
};
const API_IDEAL_MS =
  (Math.ceil((SCOPE.apiPaths.length * SCOPE.apiCallsPerPath) / SCOPE.apiPerSecond) - 1) * 1000;

const onPath = (path: string) => (call: CallRecord) => call.path === path;
const callsOn = (result: SimulationResult, path: string) => result.calls.filter(onPath(path));
const failedOn = (result: SimulationResult, path: string) =>
  callsOn(result, path).filter((call) => !call.ok).length;

// Part 1 --------------------------------------------------------------------------------------

/** From the first /fast call's start to the last one's settlement. */
const fastSpanMs = (result: SimulationResult) => spanMs(result, onPath('/fast'));

/**
 * Two calls to /limited at t = 0 (it admits one a second: the second is answered 429); once
 * that 429 is back, 50 calls to /fast one after the other.
 */
const limitedThenFast: Workload = async (call) => {
  const limited = [call({ path: '/limited' }), call({ path: '/limited' })];
  await delay(SCOPE.latencyMs + 1);
  for (let index = 0; index < SCOPE.fastCalls; index += 1) await call({ path: '/fast' });
  await Promise.all(limited);
};

async function limitedAndFast(tables: Table[], targets: TargetCheck[]): Promise<void> {
  const results = await simulateAll(loadControlPool(), {
    settings: { retries: SCOPE.retries },
    server: () =>
      routedServer({
        '/limited': windowedCapacityServer({
          capacity: 1,
          windowMs: 1000,
          latencyMs: SCOPE.latencyMs,
          rejectStatus: 429,
          sendRetryAfter: true,
        }),
        '/fast': healthyServer(SCOPE.latencyMs),
      }),
    workload: limitedThenFast,
  });
  tables.push(
    sideBySide(
      `Route scope 1: ${SCOPE.fastCalls} calls to /fast after a 429 on /limited`,
      results,
      [
        { name: '/fast: time', cell: (result) => seconds(fastSpanMs(result)) },
        versusLoadControlOff('÷ load control off', fastSpanMs, results),
        { name: '/fast: failed', cell: (result) => integer(failedOn(result, '/fast')) },
        {
          name: '/limited: 429s',
          cell: (result) => integer(result.traffic.countOn('/limited', 429)),
        },
        { name: '/limited: failed', cell: (result) => integer(failedOn(result, '/limited')) },
        causesColumn,
        breakerColumn,
      ],
    ),
    ratioTable('Route scope 1: ours ÷ axios-retry', results, [
      { name: '/fast: time', value: fastSpanMs },
    ]),
  );
  const ours = defaultsOf(results);
  const off = loadControlOffOf(results);
  targets.push({
    target: `/limited and /fast, defaults: ${SCOPE.fastCalls} calls to /fast after a 429 on /limited take ≤ ${SCOPE.maxFastVsOff}× the time with load control off`,
    met: fastSpanMs(ours) <= SCOPE.maxFastVsOff * fastSpanMs(off) && failedOn(ours, '/fast') === 0,
    measured: `${seconds(fastSpanMs(ours))} vs ${seconds(fastSpanMs(off))} = ${ratio(fastSpanMs(ours), fastSpanMs(off))}; ${failedOn(ours, '/fast')} /fast calls failed`,
  });
}

// Part 2 --------------------------------------------------------------------------------------

/** 30 calls to /broken at t = 0; once all have failed, 5 calls to /health one after the other. */
const brokenThenHealth: Workload = async (call) => {
  await onTarget(openLoop(new Array<number>(SCOPE.brokenCalls).fill(0)), { path: '/broken' })(call);
  for (let index = 0; index < SCOPE.healthCalls; index += 1) await call({ path: '/health' });
};

function healthCell(result: SimulationResult): string {
  const health = callsOn(result, '/health');
  const ok = health.filter((call) => call.ok).length;
  const first = health[0];
  const firstCell = first === undefined ? '–' : first.ok ? 'ok' : `failed: ${first.failure}`;
  return `${ok} of ${health.length} (first: ${firstCell})`;
}

async function brokenAndHealth(tables: Table[], targets: TargetCheck[]): Promise<void> {
  const results = await simulateAll(loadControlPool(), {
    settings: { retries: SCOPE.retries },
    server: () =>
      routedServer({
        '/broken': alwaysFailingServer(503, SCOPE.latencyMs),
        '/health': healthyServer(SCOPE.latencyMs),
      }),
    workload: brokenThenHealth,
  });
  tables.push(
    sideBySide(
      `Route scope 2: ${SCOPE.healthCalls} calls to /health after ${SCOPE.brokenCalls} failed calls to /broken`,
      results,
      [
        { name: '/health: ok', cell: healthCell },
        {
          name: '/broken: 503s',
          cell: (result) => integer(result.traffic.countOn('/broken', 503)),
        },
        causesColumn,
        breakerColumn,
      ],
    ),
  );
  const ours = defaultsOf(results);
  const health = callsOn(ours, '/health');
  const first = health[0];
  targets.push({
    target: `/broken and /health, defaults: a /health call after ${SCOPE.brokenCalls} failed calls (503) to /broken succeeds (all ${SCOPE.healthCalls} made)`,
    met: first?.ok === true && health.every((call) => call.ok),
    measured: `${healthCell(ours)}; load control off: ${healthCell(loadControlOffOf(results))}`,
  });
}

// Part 3 --------------------------------------------------------------------------------------

/** 429s on `path` beyond the first one: the first 429 of a path is the one a path-scoped client pays to learn. */
const extra429s = (result: SimulationResult, path: string) =>
  Math.max(0, result.traffic.countOn(path, 429) - 1);
const worstExtra429s = (result: SimulationResult) =>
  Math.max(...SCOPE.apiPaths.map((path) => extra429s(result, path)));
const per429 = (result: SimulationResult) =>
  SCOPE.apiPaths.map((path) => result.traffic.countOn(path, 429)).join(' / ');

async function apiWideLimit(tables: Table[], targets: TargetCheck[]): Promise<void> {
  const results = await simulateAll(loadControlPool(), {
    settings: { retries: SCOPE.retries },
    server: () => {
      const limiter = windowedCapacityServer({
        capacity: SCOPE.apiPerSecond,
        windowMs: 1000,
        latencyMs: SCOPE.apiLatencyMs,
        rejectStatus: 429,
        sendRetryAfter: true,
      });
      return routedServer(Object.fromEntries(SCOPE.apiPaths.map((path) => [path, limiter])));
    },
    workload: inParallel(
      ...SCOPE.apiPaths.map((path) => onTarget(closedLoop(SCOPE.apiCallsPerPath, 1), { path })),
    ),
  });
  const metrics: Metric[] = [
    { name: 'completion', value: completionMs },
    { name: '429s', value: (result) => result.traffic.count(429) },
  ];
  tables.push(
    sideBySide(
      `Route scope 3: an API-wide limit of ${SCOPE.apiPerSecond} req/s behind ${SCOPE.apiPaths.length} paths, ${SCOPE.apiCallsPerPath} calls per path`,
      results,
      [
        okColumn,
        failedColumn,
        causesColumn,
        requestsColumn,
        statusColumn(429),
        { name: '429s per path', cell: per429 },
        { name: 'most extra 429s on a path', cell: (result) => integer(worstExtra429s(result)) },
        ...completionColumns(API_IDEAL_MS),
        breakerColumn,
      ],
    ),
    ratioTable('Route scope 3: ours ÷ axios-retry', results, metrics),
  );
  const ours = defaultsOf(results);
  targets.push(
    {
      target: `API-wide limit on ${SCOPE.apiPaths.length} paths, defaults: all calls get through (0 failed)`,
      met: failedCalls(ours) === 0,
      measured: `${failedCalls(ours)} failed (${failureBreakdown(ours)})`,
    },
    {
      target: `API-wide limit on ${SCOPE.apiPaths.length} paths, defaults: ≤ ${SCOPE.maxExtra429PerPath} extra 429 per path (429s on a path beyond its first)`,
      met: worstExtra429s(ours) <= SCOPE.maxExtra429PerPath,
      measured: `at most ${worstExtra429s(ours)} extra; 429s per path ${per429(ours)} (load control off: ${per429(loadControlOffOf(results))})`,
    },
    {
      target: `API-wide limit on ${SCOPE.apiPaths.length} paths, defaults: completion (the last window opens at ${seconds(API_IDEAL_MS)})`,
      met: undefined,
      measured: `${seconds(completionMs(ours))} = ${ratio(completionMs(ours), API_IDEAL_MS)}`,
    },
  );
}

export async function routeScope(): Promise<ScenarioReport> {
  const startedAt = performance.now();
  const tables: Table[] = [];
  const targets: TargetCheck[] = [];
  await limitedAndFast(tables, targets);
  await brokenAndHealth(tables, targets);
  await apiWideLimit(tables, targets);
  return {
    title: 'Route scope',
    setup: [
      'One origin, several paths, each with its own server model (the simulated adapter passes the request path to the model); every call is a GET to one path.',
      `1. /limited admits 1 request per 1 s window and answers the rest 429 with Retry-After; /fast is healthy and unlimited. Two calls to /limited at t = 0 (the second gets a 429); once that 429 is back (t = ${SCOPE.latencyMs + 1} ms), ${SCOPE.fastCalls} calls to /fast one after the other. Measured: from the first /fast call's start to the last one's end, against the same with load control off.`,
      `2. /broken answers 503 to everything; /health is healthy. ${SCOPE.brokenCalls} calls to /broken at t = 0; once all have failed, ${SCOPE.healthCalls} calls to /health one after the other.`,
      `3. One fixed-window limiter of ${SCOPE.apiPerSecond} requests per 1 s window (429 with Retry-After = whole seconds to the next window, no rate-limit header naming it shared), behind ${SCOPE.apiPaths.length} paths (${SCOPE.apiPaths.join(', ')}): ${SCOPE.apiCallsPerPath} calls per path, one at a time per path (${SCOPE.apiPaths.length} in flight; a call that fails is called again at once). "Extra 429s" on a path = the 429s that path received beyond its first one (the first is what a client that scopes throttles by route pays before it learns the limit is API-wide). ${SCOPE.apiPaths.length * SCOPE.apiCallsPerPath} calls need ${Math.ceil((SCOPE.apiPaths.length * SCOPE.apiCallsPerPath) / SCOPE.apiPerSecond)} windows: the last opens at ${seconds(API_IDEAL_MS)}.`,
      `Every answer takes ${SCOPE.latencyMs} ms (${SCOPE.apiLatencyMs} ms in 3). Every contestant: ${SCOPE.retries} retries, no deadline. ${LOAD_CONTROL_CONTESTANTS}`,
    ],
    tables,
    targets,
    charts: [],
    realSeconds: (performance.now() - startedAt) / 1000,
  };
}
