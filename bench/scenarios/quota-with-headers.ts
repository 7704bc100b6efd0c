import { pacingOff, withVariants } from '../contestants';
import { fixed, integer, percent, ratio, seconds } from '../report/format';
import { type Metric, ratioTable } from '../report/ratios';
import type { Table } from '../report/table';
import { completionMs, failedCalls, failureBreakdown, requestsSent } from '../sim/metrics';
import { quotaServer, type RateLimitHeaderStyle } from '../sim/server-model';
import { type SimulationResult, simulateAll } from '../sim/simulation';
import { closedLoop } from '../sim/workload';
import type { ScenarioReport, TargetCheck } from './scenario';

const QUOTA = {
  calls: 1_000,
  concurrency: 20,
  limit: 100,
  windowMs: 10_000,
  latencyMs: 20,
  retries: 3,
  maxShareMeeting429: 0.01,
};
/** The last window a job of `calls` can finish in opens at this time. */
const IDEAL_MS = (Math.ceil(QUOTA.calls / QUOTA.limit) - 1) * QUOTA.windowMs;

const STYLES: readonly { readonly style: RateLimitHeaderStyle; readonly headers: string }[] = [
  { style: 'draft-7', headers: '`RateLimit: limit=100, remaining=R, reset=S` (IETF draft 7)' },
  {
    style: 'x-ratelimit',
    headers: '`X-RateLimit-Limit: 100`, `X-RateLimit-Remaining: R`, `X-RateLimit-Reset: S`',
  },
];

/** Share of the calls made (re-issued ones included) that met at least one 429. */
const shareMeeting429 = (result: SimulationResult): number =>
  result.traffic.callsThatMet(429) / result.calls.length;

function quotaTable(style: RateLimitHeaderStyle, results: readonly SimulationResult[]): Table {
  return {
    title: `Quota with headers (${style}): ${QUOTA.calls} calls, ${QUOTA.concurrency} at a time, ${QUOTA.limit} per ${QUOTA.windowMs / 1000} s`,
    columns: [
      'contestant',
      'calls that met a 429',
      '429s',
      'requests per job',
      'failed calls, re-issued',
      'failures by cause',
      'completion',
    ],
    rows: results.map((result) => [
      result.contestant.name,
      `${integer(result.traffic.callsThatMet(429))} (${percent(shareMeeting429(result), 1)})`,
      integer(result.traffic.count(429)),
      fixed(requestsSent(result) / QUOTA.calls),
      integer(failedCalls(result)),
      failureBreakdown(result),
      seconds(completionMs(result)),
    ]),
  };
}

function quotaTargets(
  style: RateLimitHeaderStyle,
  results: readonly SimulationResult[],
): TargetCheck[] {
  const ours = results.find((result) => result.contestant.name === 'axios-safe-retry');
  const noPacing = results.find((result) => result.contestant.name === pacingOff.name);
  if (!ours || !noPacing) return [];
  return [
    {
      target: `${style}, defaults: ≤ ${percent(QUOTA.maxShareMeeting429, 0)} of calls see a 429`,
      met: shareMeeting429(ours) <= QUOTA.maxShareMeeting429,
      measured: `${ours.traffic.callsThatMet(429)} of ${ours.calls.length} calls (${percent(shareMeeting429(ours))}); pacing off: ${noPacing.traffic.callsThatMet(429)} (${percent(shareMeeting429(noPacing))})`,
    },
    {
      target: `${style}, defaults: completion (ideal ≈ ${IDEAL_MS / 1000} s)`,
      met: undefined,
      measured: `${seconds(completionMs(ours))} = ${ratio(completionMs(ours), IDEAL_MS)}`,
    },
  ];
}

const metrics: Metric[] = [
  { name: 'calls that met a 429', value: (result) => result.traffic.callsThatMet(429) },
  { name: 'completion', value: completionMs },
];

export async function quotaWithHeaders(): Promise<ScenarioReport> {
  const startedAt = performance.now();
  const tables: Table[] = [];
  const targets: TargetCheck[] = [];
  for (const { style } of STYLES) {
    const pool = withVariants(pacingOff).filter((contestant) => contestant.name !== 'no retry');
    const results = await simulateAll(pool, {
      settings: { retries: QUOTA.retries },
      server: () =>
        quotaServer({
          limit: QUOTA.limit,
          windowMs: QUOTA.windowMs,
          latencyMs: QUOTA.latencyMs,
          style,
        }),
      workload: closedLoop(QUOTA.calls, QUOTA.concurrency),
    });
    tables.push(
      quotaTable(style, results),
      ratioTable(`Quota with headers (${style}): ours ÷ each peer`, results, metrics),
    );
    targets.push(...quotaTargets(style, results));
  }
  return {
    title: 'Quota with headers',
    setup: [
      `A job of ${QUOTA.calls} GETs, ${QUOTA.concurrency} at a time (each worker starts its next call when its last one settles; a call that fails after its retries is called again at once).`,
      `The API is a fixed-window rate limiter: ${QUOTA.limit} requests per ${QUOTA.windowMs / 1000} s window (windows start at 0, requests counted at arrival); the rest are answered 429. As express-rate-limit does, EVERY response (200 and 429) says where the quota stands, R = requests left in the window after this one, S = whole seconds until the window ends (at least 1); a 429 also carries \`Retry-After: S\`. Every answer takes ${QUOTA.latencyMs} ms.`,
      ...STYLES.map(({ style, headers }) => `Run \`${style}\`: the limit is sent as ${headers}.`),
      `Every contestant: ${QUOTA.retries} retries, no deadline. Also run: axios-safe-retry with \`pacing: false\`; no retry is left out (re-issued at once, it sends about 90 requests per call and only measures the job loop). "Calls that met a 429" counts calls (re-issued ones included) with at least one request answered 429. The last window a ${QUOTA.calls}-call job can finish in opens at ${IDEAL_MS / 1000} s.`,
    ],
    tables,
    targets,
    charts: [],
    realSeconds: (performance.now() - startedAt) / 1000,
  };
}
