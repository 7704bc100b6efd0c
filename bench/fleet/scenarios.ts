// The fleet benchmark of issue 15: 1 000 calls shared by N real worker processes against one real
// rate limiter (50 req/s) on loopback, with one real redis-server, for our client without and
// with the Redis store, axios-retry and Bottleneck clustered on Redis.
import Redis from 'ioredis';
import type { LimiterOptions } from '../../__tests__/helpers/rate-limiter';
import { hasRedisServer, REDIS_MISSING } from '../../support/redis-server';
import { fixed, integer, ratio, seconds } from '../report/format';
import { renderSection } from '../report/section';
import type { Table } from '../report/table';
import type { ScenarioReport, TargetCheck } from '../scenarios/scenario';
import { describeFleetContestant } from './contestants';
import {
  ContestantUnavailable,
  type FleetEnvironment,
  type FleetEvent,
  type FleetRun,
  type FleetRunSpec,
  runFleet,
  withFleetEnvironment,
} from './fleet';
import {
  answeredWith,
  attemptsBetween,
  completionMs,
  failedCalls,
  failureBreakdown,
  firstSuccessAfter,
  latencyPercentileMs,
  peakPerSecond,
  redisCommandsPerCall,
  requestsPerCall,
} from './metrics';
import { FLEET_CONTESTANTS, type FleetContestant } from './protocol';
import { closeStore, loadRedisStore, STORE_NOT_AVAILABLE, storeOptionError } from './redis-store';

export const FLEET = {
  calls: 1_000,
  perSecond: 50,
  inFlight: 20,
  retries: 3,
  /** Where a deadline stands in for them, every retrying contestant gets this many retries. */
  retriesWithDeadline: 10,
  allAtOnceDeadlineMs: 60_000,
  failoverDeadlineMs: 15_000,
  /** The limiter refuses connections (its port closed) from … to …, ms after the start. */
  outage: { fromMs: 6_000, toMs: 14_000 },
  /** redis-server killed (SIGKILL) from … to …, ms after the start. */
  redisDown: { fromMs: 6_000, toMs: 11_000 },
  recoveryWindowMs: 3_000,
  /** The unthrottled run's limit: high enough that nothing is throttled. */
  unthrottledLimit: 1_000_000,
  /**
   * Per worker in the unthrottled run: 160 in flight saturate the limiter (one Node process on a
   * 2-CPU machine), whose queue then hides what a client adds.
   */
  unthrottledInFlight: 2,
};
const IDEAL_MS = (FLEET.calls / FLEET.perSecond) * 1000;

const [OURS, STORE, AXIOS_RETRY, BOTTLENECK] = FLEET_CONTESTANTS;
const SHORT: Record<FleetContestant, string> = {
  [OURS]: 'ours',
  [STORE]: 'ours + Redis store',
  [AXIOS_RETRY]: 'axios-retry',
  [BOTTLENECK]: 'Bottleneck',
};

type ScenarioName =
  | 'unthrottled'
  | 'Retry-After'
  | 'RateLimit-*'
  | 'all at once'
  | 'failover'
  | 'Redis stopped';

interface Planned {
  readonly scenario: ScenarioName;
  readonly workers: number;
  readonly contestant: FleetContestant;
  /** Run by `--full` only. */
  readonly full?: boolean;
}

/**
 * What runs. By default (about 5 minutes once the Redis store is there, about 4 before): the
 * issue's targets for the store and one comparison each. `--full` adds the rest: every contestant
 * in every scenario, N = 1 and 4 included (about 12 minutes).
 */
const PLAN: readonly Planned[] = [
  ...FLEET_CONTESTANTS.map((contestant) => ({
    scenario: 'unthrottled' as const,
    workers: 8,
    contestant,
  })),
  ...[1, 4, 8].flatMap((workers) =>
    FLEET_CONTESTANTS.map((contestant) => ({
      scenario: 'Retry-After' as const,
      workers,
      contestant,
      full: workers === 1 || (workers === 4 && contestant !== STORE),
    })),
  ),
  ...FLEET_CONTESTANTS.map((contestant) => ({
    scenario: 'RateLimit-*' as const,
    workers: 8,
    contestant,
    full: contestant === AXIOS_RETRY || contestant === BOTTLENECK,
  })),
  ...FLEET_CONTESTANTS.map((contestant) => ({
    scenario: 'all at once' as const,
    workers: 8,
    contestant,
    full: contestant === OURS || contestant === AXIOS_RETRY,
  })),
  ...FLEET_CONTESTANTS.map((contestant) => ({
    scenario: 'failover' as const,
    workers: 8,
    contestant,
    full: contestant === AXIOS_RETRY,
  })),
  ...[STORE, BOTTLENECK].map((contestant) => ({
    scenario: 'Redis stopped' as const,
    workers: 8,
    contestant,
  })),
];

const limiterOf = (scenario: ScenarioName): LimiterOptions => ({
  limit: scenario === 'unthrottled' ? FLEET.unthrottledLimit : FLEET.perSecond,
  windowMs: 1000,
  retryAfter: true,
  ...(scenario === 'RateLimit-*' ? { headers: 'draft-8' as const } : {}),
});

const outage: FleetEvent[] = [
  {
    atMs: FLEET.outage.fromMs,
    label: 'limiter down',
    action: (controls) => controls.limiter.stop(),
  },
  {
    atMs: FLEET.outage.toMs,
    label: 'limiter up',
    action: (controls) => controls.limiter.restart(),
  },
];

const redisOutage: FleetEvent[] = [
  {
    atMs: FLEET.redisDown.fromMs,
    label: 'redis down',
    action: async (controls) => {
      await controls.pauseCommandCount();
      await controls.redis.stop();
    },
  },
  {
    atMs: FLEET.redisDown.toMs,
    label: 'redis up',
    action: async (controls) => {
      await controls.redis.start();
      await controls.resumeCommandCount();
    },
  },
];

function specOf(planned: Planned, calls: number): FleetRunSpec {
  const { scenario } = planned;
  const withDeadline = scenario === 'all at once' || scenario === 'failover';
  const deadlineMs =
    scenario === 'all at once'
      ? FLEET.allAtOnceDeadlineMs
      : scenario === 'failover'
        ? FLEET.failoverDeadlineMs
        : undefined;
  return {
    contestant: planned.contestant,
    workers: planned.workers,
    calls,
    inFlight:
      scenario === 'all at once'
        ? 'all'
        : scenario === 'unthrottled'
          ? FLEET.unthrottledInFlight
          : FLEET.inFlight,
    retries: withDeadline ? FLEET.retriesWithDeadline : FLEET.retries,
    ...(deadlineMs === undefined ? {} : { deadlineMs }),
    limiter: limiterOf(scenario),
    ...(scenario === 'failover' ? { events: outage } : {}),
    ...(scenario === 'Redis stopped' ? { events: redisOutage } : {}),
  };
}

interface Measured {
  readonly planned: Planned;
  readonly run?: FleetRun;
  /** Why it has no run: it failed, or timed out. */
  readonly error?: string;
}

/** Whether the Redis store can run here: `src/redis/index.ts`, its export, and the `store` option. */
async function storeAvailability(environment: FleetEnvironment): Promise<string | undefined> {
  const load = loadRedisStore();
  if (!load.available) return load.reason;
  const redis = new Redis({ port: environment.redis.port, host: '127.0.0.1', lazyConnect: true });
  try {
    await redis.connect();
    const store = load.createRedisStore(redis, { prefix: 'fleet-probe' });
    const error = storeOptionError(store);
    await closeStore(store);
    return error;
  } catch (error) {
    return `createRedisStore failed: ${error}`;
  } finally {
    redis.disconnect();
  }
}

const isRedisContestant = (contestant: FleetContestant): boolean =>
  contestant === STORE || contestant === BOTTLENECK;

const row = (m: Measured): string[] => [
  m.planned.scenario,
  String(m.planned.workers),
  m.planned.contestant,
];

function mainTable(measured: readonly Measured[]): Table {
  return {
    title: `Fleet: ${FLEET.calls} calls shared by N worker processes, ${FLEET.perSecond} req/s allowed (ideal ${IDEAL_MS / 1000} s)`,
    columns: [
      'scenario',
      'N',
      'contestant',
      'completion',
      '÷ ideal',
      '429s',
      'failed',
      'failures by cause',
      'breaker opened',
      'requests per call',
      'Redis commands per call',
    ],
    rows: measured
      .filter((m) => m.planned.scenario !== 'unthrottled')
      .map((m) => {
        const run = m.run;
        if (!run) return [...row(m), m.error ?? '', '', '', '', '', '', '', ''];
        const ours = m.planned.contestant === OURS || m.planned.contestant === STORE;
        return [
          ...row(m),
          seconds(completionMs(run)),
          ratio(completionMs(run), IDEAL_MS),
          integer(answeredWith(run, 429)),
          integer(failedCalls(run)),
          failureBreakdown(run),
          ours ? integer(run.breakerOpenings) : '–',
          fixed(requestsPerCall(run)),
          isRedisContestant(m.planned.contestant) ? fixed(redisCommandsPerCall(run), 1) : '–',
        ];
      }),
  };
}

const firstSuccessCell = (run: FleetRun, upAtMs: number): string => {
  const firsts = firstSuccessAfter(run, upAtMs);
  const known = firsts.filter((value): value is number => value !== undefined);
  if (known.length === 0) return 'none';
  const range = `${seconds(Math.min(...known))}–${seconds(Math.max(...known))}`;
  const none = firsts.length - known.length;
  return none === 0 ? range : `${range} (${none} workers none)`;
};

const upAtOf = (run: FleetRun): number =>
  run.events.find((event) => event.label === 'limiter up')?.atMs ?? FLEET.outage.toMs;
const downAtOf = (run: FleetRun): number =>
  run.events.find((event) => event.label === 'limiter down')?.atMs ?? FLEET.outage.fromMs;

function failoverTable(measured: readonly Measured[]): Table {
  return {
    title: `Fleet failover: N = 8, the limiter's port closed for ${(FLEET.outage.toMs - FLEET.outage.fromMs) / 1000} s mid-job`,
    columns: [
      'contestant',
      'attempts into the dead port',
      'first success per worker after the restart',
      'failed',
      'failures by cause',
      `recovery peak (max req/s in ${FLEET.recoveryWindowMs / 1000} s) ÷ ${FLEET.perSecond}/s`,
      'completion',
    ],
    rows: measured
      .filter((m) => m.planned.scenario === 'failover')
      .map((m) => {
        const run = m.run;
        if (!run) return [m.planned.contestant, m.error ?? '', '', '', '', '', ''];
        const upAtMs = upAtOf(run);
        return [
          m.planned.contestant,
          integer(attemptsBetween(run, downAtOf(run), upAtMs)),
          firstSuccessCell(run, upAtMs),
          integer(failedCalls(run)),
          failureBreakdown(run),
          `${fixed(peakPerSecond(run, upAtMs, FLEET.recoveryWindowMs) / FLEET.perSecond, 2)}×`,
          seconds(completionMs(run)),
        ];
      }),
  };
}

const tenths = (ms: number): string => `${fixed(ms, 1)} ms`;

function latencyTable(measured: readonly Measured[]): Table {
  const unthrottled = measured.filter((m) => m.planned.scenario === 'unthrottled');
  const reference = unthrottled.find((m) => m.planned.contestant === OURS)?.run;
  const added = (run: FleetRun, p: number): string =>
    reference ? tenths(latencyPercentileMs(run, p) - latencyPercentileMs(reference, p)) : '?';
  return {
    title: `Fleet, healthy path: ${FLEET.calls} calls, N = 8, ${FLEET.unthrottledInFlight} in flight each, nothing throttled`,
    columns: [
      'contestant',
      'latency p50',
      'p99',
      `added p50 vs ${SHORT[OURS]}`,
      'added p99',
      'Redis commands per call',
      'completion',
    ],
    rows: unthrottled.map((m) => {
      const run = m.run;
      if (!run) return [m.planned.contestant, m.error ?? '', '', '', '', '', ''];
      return [
        m.planned.contestant,
        tenths(latencyPercentileMs(run, 50)),
        tenths(latencyPercentileMs(run, 99)),
        added(run, 50),
        added(run, 99),
        isRedisContestant(m.planned.contestant) ? fixed(redisCommandsPerCall(run), 2) : '–',
        seconds(completionMs(run)),
      ];
    }),
  };
}

/** The first round trip's overshoot (all in flight at once, less the window), plus 1 % of calls. */
const MAX_429S = 8 * FLEET.inFlight - FLEET.perSecond + FLEET.calls / 100;

function storeTargets(measured: readonly Measured[]): TargetCheck[] {
  const of = (scenario: ScenarioName, workers = 8): FleetRun | undefined =>
    measured.find(
      (m) =>
        m.planned.scenario === scenario &&
        m.planned.workers === workers &&
        m.planned.contestant === STORE,
    )?.run;
  const targets: TargetCheck[] = [];
  const check = (target: string, met: boolean | undefined, measuredText: string) =>
    targets.push({ target: `Redis store, ${target}`, met, measured: measuredText });
  for (const scenario of ['Retry-After', 'RateLimit-*'] as const) {
    const run = of(scenario);
    if (!run) continue;
    const time = completionMs(run);
    check(`${scenario}, N = 8: ≤ 1.05× ideal`, time <= 1.05 * IDEAL_MS, ratio(time, IDEAL_MS));
    const rejected = answeredWith(run, 429);
    check(`${scenario}, N = 8: ≤ ${MAX_429S} 429s`, rejected <= MAX_429S, integer(rejected));
    check(`${scenario}, N = 8: 0 failed`, failedCalls(run) === 0, failureBreakdown(run));
    check(
      `${scenario}, N = 8: 0 breaker openings`,
      run.breakerOpenings === 0,
      integer(run.breakerOpenings),
    );
  }
  const burst = of('all at once');
  if (burst) {
    const time = completionMs(burst);
    check('all at once: ≤ 1.1× ideal', time <= 1.1 * IDEAL_MS, ratio(time, IDEAL_MS));
    check('all at once: 0 failed', failedCalls(burst) === 0, failureBreakdown(burst));
  }
  const failover = of('failover');
  if (failover) {
    const dead = attemptsBetween(failover, downAtOf(failover), upAtOf(failover));
    check('failover: ≤ 100 attempts into the dead port', dead <= 100, integer(dead));
    const firsts = firstSuccessAfter(failover, upAtOf(failover));
    check(
      "failover: every worker's first success within 1 s of the restart",
      firsts.every((first) => first !== undefined && first <= 1000),
      firstSuccessCell(failover, upAtOf(failover)),
    );
    check('failover: 0 failed', failedCalls(failover) === 0, failureBreakdown(failover));
    const peak = peakPerSecond(failover, upAtOf(failover), FLEET.recoveryWindowMs);
    check(
      'failover: recovery peak ≤ 2× the steady rate',
      peak <= 2 * FLEET.perSecond,
      `${peak} req/s`,
    );
  }
  const redisDown = of('Redis stopped');
  if (redisDown) {
    const time = completionMs(redisDown);
    check('Redis stopped 5 s: 0 failed', failedCalls(redisDown) === 0, failureBreakdown(redisDown));
    check('Redis stopped 5 s: ≤ 1.3× ideal', time <= 1.3 * IDEAL_MS, ratio(time, IDEAL_MS));
  }
  const healthy = of('unthrottled');
  const reference = measured.find(
    (m) => m.planned.scenario === 'unthrottled' && m.planned.contestant === OURS,
  )?.run;
  if (healthy && reference) {
    check(
      'healthy path: overhead unchanged from no store (no round trip per call)',
      undefined,
      `added p50 ${tenths(latencyPercentileMs(healthy, 50) - latencyPercentileMs(reference, 50))}, p99 ${tenths(latencyPercentileMs(healthy, 99) - latencyPercentileMs(reference, 99))}; ${fixed(redisCommandsPerCall(healthy), 2)} Redis commands per call`,
    );
  }
  return targets;
}

function setupLines(options: { full: boolean; storeUnavailable?: string }): string[] {
  return [
    `REAL time and real processes, not virtual: the parent starts one redis-server (\`support/redis-server.ts\`) and, for each run, a fresh fixed-window limiter on 127.0.0.1 (\`__tests__/helpers/rate-limiter.ts\`: ${FLEET.perSecond} requests per 1 s window counted from the first request, 429 with \`Retry-After\` = whole seconds to the next window, at least 1, to the rest). Workers are forked with \`child_process.fork\` under ts-node's transpile-only register, each with its own axios instance and contestant; they are forked once and reused, each run with a fresh instance, contestant, limiter port and Redis prefix (or Bottleneck id).`,
    `The job: ${FLEET.calls} GETs shared evenly among N workers, ${FLEET.inFlight} in flight per worker (each lane starts its next call when its last one settles), or every call of a worker at once ("all at once"). A call that fails is counted failed, not called again. Ideal = ${FLEET.calls} / ${FLEET.perSecond} per s = ${IDEAL_MS / 1000} s. Requests are counted by an adapter around axios's own in each worker (refused connections included); 429s are the requests answered 429.`,
    `Scenarios. Retry-After: as above, ${FLEET.retries} retries, no deadline. RateLimit-*: the same limiter also sends \`RateLimit-Policy: "default";q=${FLEET.perSecond};w=1\` and \`RateLimit: "default";r=R;t=S\` (IETF draft 8) on every response. All at once: every call of every worker at t = 0, \`deadlineMs: ${FLEET.allAtOnceDeadlineMs}\` for ours and ${FLEET.retriesWithDeadline} retries for every retrying contestant. Failover: the limiter's listening socket is closed from ${FLEET.outage.fromMs / 1000} s to ${FLEET.outage.toMs / 1000} s (open connections dropped; a closed port answers ECONNREFUSED, as a crashed server's does), then it listens again on the same port; \`deadlineMs: ${FLEET.failoverDeadlineMs}\` for ours, ${FLEET.retriesWithDeadline} retries; attempts into the dead port = requests sent in that interval. Redis stopped: the Retry-After job, redis-server killed (SIGKILL) from ${FLEET.redisDown.fromMs / 1000} s to ${FLEET.redisDown.toMs / 1000} s, then started again on its port. Healthy path: the job with ${FLEET.unthrottledInFlight} in flight per worker (${8 * FLEET.unthrottledInFlight} in all: 160 saturate the one-process limiter, whose queue then hides what a client adds) and a limit of ${FLEET.unthrottledLimit} per s (nothing throttled; Bottleneck is given that limit too); added latency = the percentile minus the same percentile of ${SHORT[OURS]} (per-process state).`,
    `Redis commands per call: \`INFO stats\` total_commands_processed over the job (summed over the stretches around a Redis restart), every client's, divided by the calls; the bench's own reads are left out. Breaker openings: \`circuitBreaker: { onStateChange }\` events to 'open', summed over the workers.`,
    ...FLEET_CONTESTANTS.map(
      (contestant) => `${contestant}: \`${describeFleetContestant(contestant)}\`.`,
    ),
    options.full
      ? 'Run with `--full`: every contestant in every scenario, N = 1, 4 and 8.'
      : `Runs (to keep the bench near 5 minutes; \`npm run bench:fleet -- --full\` runs every contestant in every scenario): ${describePlan(PLAN.filter((planned) => !planned.full))}.`,
    ...(options.storeUnavailable === undefined
      ? []
      : [`${STORE_NOT_AVAILABLE} (${options.storeUnavailable}): its runs were skipped.`]),
  ];
}

function describePlan(plan: readonly Planned[]): string {
  const groups = new Map<string, string[]>();
  for (const planned of plan) {
    const key = `${planned.scenario}, N = ${planned.workers}`;
    groups.set(key, [...(groups.get(key) ?? []), SHORT[planned.contestant]]);
  }
  return [...groups].map(([key, names]) => `${key}: ${names.join(', ')}`).join('; ');
}

export interface FleetOptions {
  /** Every contestant in every scenario (about 12 minutes) instead of the default selection. */
  readonly full?: boolean;
  /** Only the scenarios whose name holds one of these (lower case); all when empty. */
  readonly only?: readonly string[];
  /** Told of each run as it ends. */
  readonly progress?: (line: string) => void;
}

/** The fleet benchmark: every planned run, one after the other, and its report. */
export async function fleet(options: FleetOptions = {}): Promise<ScenarioReport> {
  const startedAt = performance.now();
  const full = options.full ?? false;
  const title = 'Many processes, one API key (real processes, loopback, Redis)';
  if (!hasRedisServer()) {
    return { title, setup: [REDIS_MISSING], tables: [], targets: [], charts: [], realSeconds: 0 };
  }
  return withFleetEnvironment(async (environment) => {
    const storeUnavailable = await storeAvailability(environment);
    if (storeUnavailable !== undefined) {
      options.progress?.(`${STORE_NOT_AVAILABLE} (${storeUnavailable})`);
    }
    const measured: Measured[] = [];
    for (const planned of PLAN) {
      if (planned.full && !full) continue;
      const only = options.only ?? [];
      if (only.length && !only.some((name) => planned.scenario.toLowerCase().includes(name))) {
        continue;
      }
      if (planned.contestant === STORE && storeUnavailable !== undefined) continue;
      const runStartedAt = performance.now();
      try {
        const run = await runFleet(environment, specOf(planned, FLEET.calls));
        measured.push({ planned, run });
        options.progress?.(
          `  ${planned.scenario}, N = ${planned.workers}, ${planned.contestant}: ${seconds(completionMs(run))}, ${answeredWith(run, 429)} × 429, ${failedCalls(run)} failed (${fixed((performance.now() - runStartedAt) / 1000, 0)} s)`,
        );
      } catch (error) {
        const message =
          error instanceof ContestantUnavailable ? error.message : `did not finish: ${error}`;
        measured.push({ planned, error: message });
        options.progress?.(
          `  ${planned.scenario}, N = ${planned.workers}, ${planned.contestant}: ${message}`,
        );
      }
    }
    const targets = storeTargets(measured);
    if (storeUnavailable !== undefined) {
      targets.push({
        target: "Redis store: issue 15's targets",
        met: undefined,
        measured: `not checked: ${STORE_NOT_AVAILABLE}`,
      });
    }
    return {
      title,
      setup: setupLines({ full, ...(storeUnavailable === undefined ? {} : { storeUnavailable }) }),
      tables: [latencyTable(measured), mainTable(measured), failoverTable(measured)],
      targets,
      charts: [],
      realSeconds: (performance.now() - startedAt) / 1000,
    };
  });
}

/** The fleet's section of BENCHMARKS.md (real time: figures move a little from run to run). */
export const renderFleetSection = (report: ScenarioReport, command: string, date: string): string =>
  renderSection('fleet', report, {
    command,
    date,
    remark: ' Real time on a shared machine: figures move a little from run to run.',
  });
