import type { AxiosInstance } from 'axios';
import Bottleneck from 'bottleneck';
import Redis from 'ioredis';
import { attachRetry, type CircuitStateChange } from '../../src';
import { contestants } from '../contestants';
import { mulberry32 } from '../sim/prng';
import type { FleetContestant, WorkerSpec } from './protocol';
import { closeStore, loadRedisStore, STORE_NOT_AVAILABLE, storeOptionError } from './redis-store';

/** A contestant set up in one worker: how it makes one call, and how it lets go. */
export interface FleetClient {
  /** One GET through the contestant; rejects as the contestant rejects. */
  call(instance: AxiosInstance, headers: Record<string, string>): Promise<unknown>;
  close(): Promise<void>;
}

/** Why a contestant cannot run in this checkout (the Redis store not there yet). */
export class Unavailable extends Error {
  override name = 'Unavailable' as const;
}

export interface Setup {
  readonly spec: WorkerSpec;
  readonly onCircuitStateChange: (event: CircuitStateChange) => void;
}

const get = (instance: AxiosInstance, headers: Record<string, string>) =>
  instance.get('/', { headers });

function fromBenchContestant(name: string, instance: AxiosInstance, setup: Setup): FleetClient {
  const contestant = contestants.find((candidate) => candidate.name === name);
  if (!contestant) throw new Error(`no contestant named ${name} in bench/contestants.ts`);
  const { spec } = setup;
  contestant.attach(instance, {
    retries: spec.retries,
    random: mulberry32(spec.worker + 1),
    ...(contestant.kind === 'ours' && spec.deadlineMs !== undefined
      ? { deadlineMs: spec.deadlineMs }
      : {}),
    onCircuitStateChange: setup.onCircuitStateChange,
  });
  return { call: get, close: async () => {} };
}

async function withRedisStore(instance: AxiosInstance, setup: Setup): Promise<FleetClient> {
  const { spec } = setup;
  const load = loadRedisStore();
  if (!load.available) throw new Unavailable(`${STORE_NOT_AVAILABLE} (${load.reason})`);
  const redis = new Redis({ ...spec.redis, lazyConnect: true });
  // The app's own client: while Redis is stopped on purpose it reports its reconnections here
  // (without a listener, ioredis logs each one; node-redis would throw).
  redis.on('error', () => {});
  await redis.connect();
  const store = load.createRedisStore(redis, { prefix: spec.sharedName });
  const optionError = storeOptionError(store);
  if (optionError !== undefined) {
    await closeStore(store);
    redis.disconnect();
    throw new Unavailable(`${STORE_NOT_AVAILABLE} (${optionError})`);
  }
  attachRetry(instance, {
    retries: spec.retries,
    random: mulberry32(spec.worker + 1),
    ...(spec.deadlineMs === undefined ? {} : { deadlineMs: spec.deadlineMs }),
    circuitBreaker: { onStateChange: setup.onCircuitStateChange },
    store,
  } as Parameters<typeof attachRetry>[1]);
  return {
    call: get,
    close: async () => {
      await closeStore(store);
      redis.disconnect();
    },
  };
}

async function withBottleneck(setup: Setup): Promise<FleetClient> {
  const { spec } = setup;
  // Clustered: every worker's limiter has the same `id` on the same Redis, so they share one
  // schedule. The first worker clears what an earlier run left, alone, before the others start.
  // The limit is given as `minTime`, spread and shared through Redis (`nextRequest`): a reservoir
  // of 50 refreshed every 1000 ms, measured here, ran at 10 req/s (95 s for the job), since a
  // clustered reservoir refreshes on the 5 s heartbeat (its README: refresh intervals in
  // multiples of 5000 for Clustering; "also use minTime").
  const limiter = new Bottleneck({
    id: spec.sharedName,
    datastore: 'ioredis',
    clientOptions: spec.redis,
    clearDatastore: spec.clearDatastore,
    minTime: 1000 / spec.perSecond,
  });
  limiter.on('error', () => {}); // Redis down: its errors reach the calls, which count them.
  await limiter.ready();
  return {
    call: (instance, headers) => limiter.schedule(() => get(instance, headers)),
    close: () => limiter.disconnect(false),
  };
}

/** Attaches `spec.contestant` to `instance` in this worker. */
export function setUpContestant(
  contestant: FleetContestant,
  instance: AxiosInstance,
  setup: Setup,
): Promise<FleetClient> {
  switch (contestant) {
    case 'axios-safe-retry':
    case 'axios-retry 4.5':
      return Promise.resolve(fromBenchContestant(contestant, instance, setup));
    case 'axios-safe-retry + Redis store':
      return withRedisStore(instance, setup);
    case 'Bottleneck 2.19 on Redis':
      return withBottleneck(setup);
  }
}

/** How each contestant is configured, in words, for BENCHMARKS.md. */
export function describeFleetContestant(contestant: FleetContestant): string {
  switch (contestant) {
    case 'axios-safe-retry':
      return 'attachRetry(instance, { retries, deadlineMs (where given), circuitBreaker: { onStateChange }, random: seeded }): per-process state';
    case 'axios-safe-retry + Redis store':
      return "the same, plus store: createRedisStore(ioredis, { prefix: '<run>' }) from axios-safe-retry/redis, one prefix per run";
    case 'axios-retry 4.5':
      return 'axiosRetry(instance, { retries, retryDelay: axiosRetry.exponentialDelay, retryCondition: axiosRetry.isNetworkOrIdempotentRequestError }), as in the other scenarios';
    case 'Bottleneck 2.19 on Redis':
      return "new Bottleneck({ id: '<run>', datastore: 'ioredis', clearDatastore (first worker only), minTime: 1000 / limit }); each call is limiter.schedule(() => instance.get(…)), no retry plugin";
  }
}
