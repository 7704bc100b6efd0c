// The parent of the fleet benchmark (issue 15): one real redis-server, a real HTTP limiter on
// 127.0.0.1 per run, and N forked worker processes that share them. Everything it starts is
// stopped when a run ends, when the bench fails, and on Ctrl-C.
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import Redis from 'ioredis';
import {
  type LimiterOptions,
  type RateLimitedServer,
  startRateLimiter,
} from '../../__tests__/helpers/rate-limiter';
import { type RedisServer, startRedisServer } from '../../support/redis-server';
import type { CallRecord, FleetContestant, ToParent, ToWorker, WorkerSpec } from './protocol';

const WORKER = join(__dirname, 'worker.ts');
const BENCH_TSCONFIG = join(__dirname, '..', 'tsconfig.json');

/**
 * What stays up across the runs: the redis-server, a connection to read its counters, and the
 * worker processes. Workers are forked once and reused, each run with a fresh axios instance,
 * contestant, limiter (on a new port) and Redis prefix: under ts-node, forking 8 workers costs
 * 5–15 s on a 2-CPU machine, as much again as half a run.
 */
export interface FleetEnvironment {
  readonly redis: RedisServer;
  /** Redis commands processed since it started (reset when it restarts). */
  commandsProcessed(): Promise<number>;
  /** `count` idle workers (forked when there are fewer). */
  workers(count: number): Worker[];
  /** Kills every worker: after a failed run, whose workers may still be busy. */
  discardWorkers(): void;
}

/** What a run can do to the servers mid-job. */
export interface RunControls {
  readonly limiter: RateLimitedServer;
  readonly redis: RedisServer;
  /** Ends the current stretch of the Redis command count (call before Redis stops). */
  pauseCommandCount(): Promise<void>;
  /** Starts a new stretch (call once Redis is back: a restart resets its counter). */
  resumeCommandCount(): Promise<void>;
}

export interface FleetEvent {
  /** Milliseconds after the start of the job. */
  readonly atMs: number;
  readonly label: string;
  readonly action: (controls: RunControls) => Promise<void>;
}

export interface FleetRunSpec {
  readonly contestant: FleetContestant;
  readonly workers: number;
  readonly calls: number;
  /** Per worker; `'all'` starts each worker's calls at once. */
  readonly inFlight: number | 'all';
  readonly retries: number;
  readonly deadlineMs?: number;
  readonly limiter: LimiterOptions;
  readonly events?: readonly FleetEvent[];
  /** A run that has not ended by then is stopped and reported as such. */
  readonly timeoutMs?: number;
}

export interface FleetRun {
  readonly spec: FleetRunSpec;
  /** `Date.now()` when the workers were told to go. */
  readonly startedAt: number;
  readonly calls: readonly CallRecord[];
  readonly breakerOpenings: number;
  /** Redis commands processed while the job ran, every client's (the bench's own reads left out). */
  readonly redisCommands: number;
  /** When each event happened, in ms after the start. */
  readonly events: readonly { readonly label: string; readonly atMs: number }[];
}

/** A contestant that cannot run in this checkout (the Redis store not there yet). */
export class ContestantUnavailable extends Error {
  override name = 'ContestantUnavailable' as const;
}

// Every process this module started and has not seen exit: killed on the way out, whatever the way.
const liveWorkers = new Set<ChildProcess>();
let liveRedis: RedisServer | undefined;

function killEverything(): void {
  for (const worker of liveWorkers) worker.kill('SIGKILL');
  liveWorkers.clear();
  // stop() sends SIGKILL before its first await: enough on 'exit', where nothing async runs.
  void liveRedis?.stop();
}

function onSignal(signal: NodeJS.Signals): void {
  killEverything();
  console.error(`\nfleet bench: ${signal}, workers and redis-server stopped`);
  process.exit(signal === 'SIGINT' ? 130 : 143);
}

/** Starts the redis-server and runs `body`; stops every process it started, however it ends. */
export async function withFleetEnvironment<T>(
  body: (environment: FleetEnvironment) => Promise<T>,
): Promise<T> {
  process.on('exit', killEverything);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const redis = await startRedisServer();
  liveRedis = redis;
  const counter = new Redis({ port: redis.port, host: '127.0.0.1', enableReadyCheck: false });
  counter.on('error', () => {}); // while Redis is stopped on purpose: it reconnects by itself
  let pool: Worker[] = [];
  try {
    return await body({
      redis,
      commandsProcessed: async () => {
        const stats = await counter.info('stats');
        return Number(/total_commands_processed:(\d+)/.exec(stats)?.[1] ?? Number.NaN);
      },
      workers: (count) => {
        pool = pool.filter((worker) => worker.alive());
        while (pool.length < count) pool.push(forkWorker());
        return pool.slice(0, count);
      },
      discardWorkers: () => {
        for (const worker of pool) worker.process.kill('SIGKILL');
        pool = [];
      },
    });
  } finally {
    counter.disconnect();
    killEverything();
    await redis.stop();
    liveRedis = undefined;
    process.off('exit', killEverything);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

export interface Worker {
  readonly process: ChildProcess;
  /** The next message from it; rejects if it exits first. */
  next(): Promise<ToParent>;
  alive(): boolean;
}

function forkWorker(): Worker {
  const child = fork(WORKER, [], {
    execArgv: ['-r', 'ts-node/register/transpile-only'],
    env: { ...process.env, TS_NODE_PROJECT: BENCH_TSCONFIG, TS_NODE_TRANSPILE_ONLY: 'true' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  liveWorkers.add(child);
  const inbox: ToParent[] = [];
  const waiting: { resolve: (m: ToParent) => void; reject: (e: Error) => void }[] = [];
  let gone: Error | undefined;
  child.on('message', (message: ToParent) => {
    const waiter = waiting.shift();
    if (waiter) waiter.resolve(message);
    else inbox.push(message);
  });
  child.once('exit', (code, signal) => {
    liveWorkers.delete(child);
    gone = new Error(`worker ${child.pid} exited (${signal ?? code}) before it answered`);
    for (const waiter of waiting.splice(0)) waiter.reject(gone);
  });
  return {
    process: child,
    alive: () => gone === undefined,
    next: () => {
      const queued = inbox.shift();
      if (queued) return Promise.resolve(queued);
      if (gone) return Promise.reject(gone);
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
  };
}

async function expectReady(worker: Worker): Promise<void> {
  const message = await worker.next();
  if (message.type === 'ready') return;
  if (message.type === 'unavailable') throw new ContestantUnavailable(message.reason);
  throw new Error(`a worker did not start: ${JSON.stringify(message)}`);
}

async function expect<T extends 'done' | 'closed'>(
  worker: Worker,
  type: T,
): Promise<Extract<ToParent, { type: T }>> {
  const message = await worker.next();
  if (message.type !== type) throw new Error(`a worker failed: ${JSON.stringify(message)}`);
  return message as Extract<ToParent, { type: T }>;
}

function sendTo(worker: Worker, message: ToWorker): void {
  worker.process.send(message);
}

let runs = 0;

/**
 * One job of `spec.calls` calls, shared among `spec.workers` worker processes, each with a fresh
 * contestant.
 */
export async function runFleet(
  environment: FleetEnvironment,
  spec: FleetRunSpec,
): Promise<FleetRun> {
  runs += 1;
  const sharedName = `fleet-${process.pid}-${runs}`;
  const limiter = await startRateLimiter(spec.limiter);
  const workers = environment.workers(spec.workers);
  const timers: NodeJS.Timeout[] = [];
  let ended = false;
  try {
    const specOf = (index: number): WorkerSpec => {
      const share = Math.floor(spec.calls / spec.workers);
      const extra = index < spec.calls % spec.workers ? 1 : 0;
      const firstCall = index * share + Math.min(index, spec.calls % spec.workers);
      return {
        worker: index,
        workers: spec.workers,
        contestant: spec.contestant,
        url: limiter.url,
        redis: { host: '127.0.0.1', port: environment.redis.port },
        firstCall,
        calls: share + extra,
        inFlight: spec.inFlight,
        retries: spec.retries,
        ...(spec.deadlineMs === undefined ? {} : { deadlineMs: spec.deadlineMs }),
        sharedName,
        clearDatastore: index === 0,
        perSecond: spec.limiter.limit,
      };
    };
    // The first worker sets up alone (Bottleneck clears its datastore there), then the others.
    const [first, ...rest] = workers as [Worker, ...Worker[]];
    sendTo(first, { type: 'setup', spec: specOf(0) });
    await expectReady(first);
    for (const [index, worker] of rest.entries()) {
      sendTo(worker, { type: 'setup', spec: specOf(index + 1) });
    }
    await Promise.all(rest.map(expectReady));

    // Redis commands are counted in stretches: a restart of Redis resets its counter.
    let commands = 0;
    let stretchFrom: number | undefined = await environment.commandsProcessed();
    const controls: RunControls = {
      limiter,
      redis: environment.redis,
      pauseCommandCount: async () => {
        if (stretchFrom === undefined) return;
        commands += (await environment.commandsProcessed()) - stretchFrom - 1;
        stretchFrom = undefined;
      },
      resumeCommandCount: async () => {
        stretchFrom = await environment.commandsProcessed();
      },
    };
    const startedAt = Date.now();
    for (const worker of workers) sendTo(worker, { type: 'go' });
    const happened: { label: string; atMs: number }[] = [];
    const eventsDone = Promise.all(
      (spec.events ?? []).map(
        (event) =>
          new Promise<void>((resolve, reject) => {
            timers.push(
              setTimeout(() => {
                happened.push({ label: event.label, atMs: Date.now() - startedAt });
                event.action(controls).then(resolve, reject);
              }, event.atMs),
            );
          }),
      ),
    );
    const timeoutMs = spec.timeoutMs ?? 180_000;
    const timedOut = new Promise<never>((_, reject) => {
      timers.push(
        setTimeout(
          () => reject(new Error(`the job did not end within ${timeoutMs / 1000} s`)),
          timeoutMs,
        ),
      );
    });
    const finished = await Promise.race([
      Promise.all(workers.map((worker) => expect(worker, 'done'))),
      timedOut,
    ]);
    await Promise.race([eventsDone, timedOut]);
    await controls.pauseCommandCount();
    await Promise.race([Promise.all(workers.map((worker) => expect(worker, 'closed'))), timedOut]);
    ended = true;
    return {
      spec,
      startedAt,
      calls: finished.flatMap((message) => message.calls),
      breakerOpenings: finished.reduce((sum, message) => sum + message.breakerOpenings, 0),
      redisCommands: commands,
      events: happened,
    };
  } finally {
    for (const timer of timers) clearTimeout(timer);
    // A failed run's workers may still be at work: they go, and the next run forks new ones.
    if (!ended) environment.discardWorkers();
    await limiter.stop();
  }
}
