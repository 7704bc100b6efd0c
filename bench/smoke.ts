import { contestants, loadControlOff } from './contestants';
import { runFleet, withFleetEnvironment } from './fleet/fleet';
import { attempts, failedCalls as fleetFailedCalls } from './fleet/metrics';
import { simulateHerd } from './scenarios/contention-herd';
import { completionMs, failedCalls, requestsSent } from './sim/metrics';
import {
  alwaysFailingServer,
  healthyServer,
  leakyBucketServer,
  routedServer,
} from './sim/server-model';
import { simulateAll } from './sim/simulation';
import { closedLoop, inParallel, onTarget } from './sim/workload';

export interface SmokeResult {
  readonly contestant: string;
  readonly calls: number;
  readonly failedCalls: number;
  readonly requestsSent: number;
  /** Virtual milliseconds until the last call settled. */
  readonly completionMs: number;
}

/**
 * One small scenario, fast enough for `npm test`: a contention herd of `clients` clients
 * (default 20) against the bench's server (10 requests per 100 ms, 503 to the rest),
 * for axios-safe-retry with and without its retry budget. Deterministic (seeded, virtual time).
 */
export async function runSmokeBenchmark(clients = 20): Promise<SmokeResult[]> {
  const ours = contestants.filter((contestant) => contestant.kind === 'ours');
  const results = await simulateHerd(clients, ours);
  return results.map((result) => ({
    contestant: result.contestant.name,
    calls: result.calls.length,
    failedCalls: failedCalls(result),
    requestsSent: requestsSent(result),
    completionMs: completionMs(result),
  }));
}

export interface LoadControlSmokeResult {
  readonly contestant: string;
  readonly calls: number;
  /** Calls per (path, instance), e.g. { '/fast@0': 5 }. */
  readonly callsByTarget: Readonly<Record<string, number>>;
  /** Requests that reached each path. */
  readonly requestsByPath: Readonly<Record<string, number>>;
}

/**
 * The plumbing of the load-control scenarios (issue 13), small enough for `npm test`: two
 * instances calling three paths of one routed origin (a leaky bucket, a healthy route, a broken
 * one), for our defaults and load control off. Deterministic (seeded, virtual time).
 */
export async function runLoadControlSmoke(): Promise<LoadControlSmokeResult[]> {
  const pool = [
    ...contestants.filter((contestant) => contestant.name === 'axios-safe-retry'),
    loadControlOff,
  ];
  const results = await simulateAll(pool, {
    settings: { retries: 3 },
    instances: 2,
    server: () =>
      routedServer({
        '/limited': leakyBucketServer({
          ratePerSecond: 20,
          burst: 5,
          latencyMs: 10,
          rejectStatus: 503,
        }),
        '/fast': healthyServer(10),
        '/broken': alwaysFailingServer(503, 10),
      }),
    workload: inParallel(
      ...[0, 1].map((instance) =>
        inParallel(
          onTarget(closedLoop(5, 1), { path: '/fast', instance }),
          onTarget(closedLoop(5, 5, 1), { path: '/limited', instance }),
          onTarget(closedLoop(2, 1, 1), { path: '/broken', instance }),
        ),
      ),
    ),
  });
  return results.map((result) => {
    const callsByTarget: Record<string, number> = {};
    for (const call of result.calls) {
      const key = `${call.path}@${call.instance}`;
      callsByTarget[key] = (callsByTarget[key] ?? 0) + 1;
    }
    const requestsByPath: Record<string, number> = {};
    for (const arrival of result.traffic.arrivals) {
      const key = arrival.path ?? '?';
      requestsByPath[key] = (requestsByPath[key] ?? 0) + 1;
    }
    return {
      contestant: result.contestant.name,
      calls: result.calls.length,
      callsByTarget,
      requestsByPath,
    };
  });
}

export interface FleetSmokeResult {
  readonly contestant: string;
  readonly calls: number;
  readonly failedCalls: number;
  /** Workers that made calls. */
  readonly workers: number;
  readonly requestsSent: number;
  readonly redisCommands: number;
}

/**
 * The fleet harness (issue 15), small enough for `npm test`: 2 forked workers, 40 calls, 5 in
 * flight each, against a real limiter on loopback at 1 000 req/s (nothing throttled) and a real
 * redis-server, for our defaults and Bottleneck clustered on Redis. Needs redis-server on PATH.
 */
export async function runFleetSmoke(): Promise<FleetSmokeResult[]> {
  const pool = ['axios-safe-retry', 'Bottleneck 2.19 on Redis'] as const;
  return withFleetEnvironment(async (environment) => {
    const results: FleetSmokeResult[] = [];
    for (const contestant of pool) {
      const run = await runFleet(environment, {
        contestant,
        workers: 2,
        calls: 40,
        inFlight: 5,
        retries: 3,
        limiter: { limit: 1_000, windowMs: 1000, retryAfter: true },
        timeoutMs: 60_000,
      });
      results.push({
        contestant,
        calls: run.calls.length,
        failedCalls: fleetFailedCalls(run),
        workers: new Set(run.calls.map((call) => call.worker)).size,
        requestsSent: attempts(run).length,
        redisCommands: run.redisCommands,
      });
    }
    return results;
  });
}
