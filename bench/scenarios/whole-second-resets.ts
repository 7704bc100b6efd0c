import { loadControlPool } from '../contestants';
import { fixed, integer, ratio, seconds } from '../report/format';
import { type Metric, ratioTable } from '../report/ratios';
import type { Table } from '../report/table';
import { delay } from '../sim/clock';
import { completionMs, failedCalls, requestsSent } from '../sim/metrics';
import { quotaServer, type RateLimitHeaderStyle } from '../sim/server-model';
import { type SimulationResult, simulateAll } from '../sim/simulation';
import { closedLoop, type Workload } from '../sim/workload';
import {
  breakerColumn,
  causesColumn,
  defaultsOf,
  failedColumn,
  LOAD_CONTROL_CONTESTANTS,
  sideBySide,
  statusColumn,
} from './load-control-common';
import type { ScenarioReport, TargetCheck } from './scenario';

const RESETS = {
  calls: 400,
  concurrency: 10,
  limit: 20,
  windowMs: 1_000,
  latencyMs: 20,
  retries: 3,
  /**
   * The job starts here, so that window boundaries (at a client's first hit) fall between whole
   * seconds, as they do on a real server; completion is counted from the job's start.
   */
  startMs: 370,
  maxCallsPerJob: 1_000,
  // Target (issue 13): legacy headers' completion ≤ this × draft-7's.
  maxLegacyVsDraft7: 1.15,
};
/** The last window a job of `calls` can finish in opens this long after the job's start. */
const IDEAL_MS = (Math.ceil(RESETS.calls / RESETS.limit) - 1) * RESETS.windowMs;

const STYLES: readonly { readonly style: RateLimitHeaderStyle; readonly headers: string }[] = [
  {
    style: 'express-draft-7',
    headers: `\`standardHeaders: 'draft-7'\`: \`RateLimit-Policy: ${RESETS.limit};w=${RESETS.windowMs / 1000}\`, \`RateLimit: limit=${RESETS.limit}, remaining=R, reset=S\` (S = whole seconds to the window's end, rounded up)`,
  },
  {
    style: 'express-legacy',
    headers: `\`legacyHeaders: true\`: \`X-RateLimit-Limit: ${RESETS.limit}\`, \`X-RateLimit-Remaining: R\`, \`X-RateLimit-Reset\` = the window's end in epoch seconds rounded up, and \`Date\` = the server's (virtual) wall clock truncated to the whole second`,
  },
];

/** From the job's start to the last call's settlement. */
const jobMs = (result: SimulationResult): number => completionMs(result) - RESETS.startMs;

const job: Workload = async (call) => {
  await delay(RESETS.startMs);
  await closedLoop(RESETS.calls, RESETS.concurrency, RESETS.maxCallsPerJob)(call);
};

function table(style: RateLimitHeaderStyle, results: readonly SimulationResult[]): Table {
  return sideBySide(
    `Whole-second resets (${style}): ${RESETS.calls} calls, ${RESETS.concurrency} at a time, ${RESETS.limit} per ${RESETS.windowMs / 1000} s`,
    results,
    [
      { name: 'job time', cell: (result) => seconds(jobMs(result)) },
      { name: '÷ ideal', cell: (result) => ratio(jobMs(result), IDEAL_MS) },
      statusColumn(429),
      { name: 'requests per job', cell: (result) => fixed(requestsSent(result) / RESETS.calls) },
      failedColumn,
      causesColumn,
      breakerColumn,
    ],
  );
}

const metrics: Metric[] = [
  { name: 'job time', value: jobMs },
  { name: '429s', value: (result) => result.traffic.count(429) },
];

export async function wholeSecondResets(): Promise<ScenarioReport> {
  const startedAt = performance.now();
  const tables: Table[] = [];
  const byStyle = new Map<RateLimitHeaderStyle, readonly SimulationResult[]>();
  for (const { style } of STYLES) {
    const results = await simulateAll(loadControlPool(), {
      settings: { retries: RESETS.retries },
      server: () =>
        quotaServer({
          limit: RESETS.limit,
          windowMs: RESETS.windowMs,
          latencyMs: RESETS.latencyMs,
          style,
          windowStart: 'first-hit',
        }),
      workload: job,
    });
    byStyle.set(style, results);
    tables.push(
      table(style, results),
      ratioTable(`Whole-second resets (${style}): ours ÷ axios-retry`, results, metrics),
    );
  }
  const legacy = defaultsOf(byStyle.get('express-legacy') ?? []);
  const draft7 = defaultsOf(byStyle.get('express-draft-7') ?? []);
  const targets: TargetCheck[] = [
    {
      target: `defaults: job time with express-rate-limit's legacy headers ≤ ${RESETS.maxLegacyVsDraft7}× with its draft-7 headers`,
      met: jobMs(legacy) <= RESETS.maxLegacyVsDraft7 * jobMs(draft7),
      measured: `${seconds(jobMs(legacy))} vs ${seconds(jobMs(draft7))} = ${ratio(jobMs(legacy), jobMs(draft7))}`,
    },
    ...[draft7, legacy].map((ours, index) => ({
      target: `${STYLES[index]?.style}, defaults: job time (ideal ≈ ${seconds(IDEAL_MS)}), failed calls`,
      met: undefined,
      measured: `${seconds(jobMs(ours))} = ${ratio(jobMs(ours), IDEAL_MS)}; ${integer(failedCalls(ours))} failed; ${ours.traffic.count(429)} 429s`,
    })),
  ];
  return {
    title: 'Whole-second resets (express-rate-limit)',
    setup: [
      `A job of ${RESETS.calls} GETs, ${RESETS.concurrency} at a time, started at t = ${RESETS.startMs} ms (each worker starts its next call when its last one settles; a call that fails after its retries is called again at once, up to ${RESETS.maxCallsPerJob} calls per job).`,
      `The API is express-rate-limit's fixed window with its MemoryStore: ${RESETS.limit} requests per ${RESETS.windowMs / 1000} s, a window opening at the first request after the last one ended (so its end falls between whole seconds); the rest are answered 429 with \`Retry-After\` (whole seconds to the window's end, rounded up). Every response, 200 and 429, carries the quota headers. Every answer takes ${RESETS.latencyMs} ms. Run twice, with the two header sets it writes:`,
      ...STYLES.map(({ style, headers }) => `\`${style}\`: ${headers}.`),
      `Client and server share the virtual wall clock (no skew): the legacy headers cost only through their rounding (a reset rounded up to the second, a \`Date\` truncated to it).`,
      `Every contestant: ${RESETS.retries} retries, no deadline. ${LOAD_CONTROL_CONTESTANTS} Job time = from the job's start to the last call's settlement; ${RESETS.calls} calls need ${Math.ceil(RESETS.calls / RESETS.limit)} windows, so the last opens ${seconds(IDEAL_MS)} after the start at best.`,
    ],
    tables,
    targets,
    charts: [],
    realSeconds: (performance.now() - startedAt) / 1000,
  };
}
