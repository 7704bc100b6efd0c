import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import type { SharedScope } from '../../src/contract/store';
import { hasRedisServer, REDIS_MISSING } from '../../support/redis-server';

/**
 * What the Redis suites share: `describeRedis` (a `describe.skip` without redis-server, which
 * leaves a marker for the Jest summary to say so once), both client libraries behind one shape,
 * a poll with a deadline instead of sleeps, and a scope state to change.
 */

/** The file the summary reporter reads (scripts/jest-summary-reporter.cjs): the line to print. */
export const REDIS_MISSING_MARKER = join(__dirname, '..', '..', '.tmp', 'redis-missing');

const available = hasRedisServer();
if (!available) {
  mkdirSync(join(REDIS_MISSING_MARKER, '..'), { recursive: true });
  writeFileSync(REDIS_MISSING_MARKER, REDIS_MISSING);
}

export const describeRedis: jest.Describe = available ? describe : describe.skip;

export type Library = 'ioredis' | 'node-redis';
export const LIBRARIES: Library[] = ['ioredis', 'node-redis'];

export interface TestClient {
  /** The client as a user passes it to createRedisStore. */
  readonly client: Redis | ReturnType<typeof createClient>;
  /** One command, the reply as the library gives it. */
  send(...args: string[]): Promise<unknown>;
  close(): void;
}

const ignore = () => {};

/** A connected client of `library` (errors are listened to, as the libraries ask their users). */
export async function connect(library: Library, url: string): Promise<TestClient> {
  if (library === 'ioredis') {
    const client = new Redis(url);
    client.on('error', ignore);
    if (client.status !== 'ready') await once(client, 'ready');
    return {
      client,
      send: (command = '', ...args: string[]) => client.call(command, ...args),
      close: () => client.disconnect(),
    };
  }
  const client = createClient({ url });
  client.on('error', ignore);
  await client.connect();
  return {
    client,
    send: (...args: string[]) => client.sendCommand(args),
    close: () => {
      if (client.isOpen) client.destroy();
    },
  };
}

/** Polls `condition` every 20 ms until it holds; fails with `what` after `timeoutMs`. */
export async function until(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A scope's state, as load control starts one; `cuts` serves as a counter in the tests. */
export function scope(version = 0, cuts = 0): SharedScope {
  return {
    version,
    pace: {
      base: 0,
      since: 0,
      slowStart: true,
      growth: 0.05,
      cap: Number.POSITIVE_INFINITY,
      decidedAt: Number.POSITIVE_INFINITY,
      cuts,
      holdUntil: Number.NEGATIVE_INFINITY,
      heldAt: Number.NEGATIVE_INFINITY,
      roundSum: 0,
      roundReports: 0,
      lastSignal: 0,
      overloadSince: Number.POSITIVE_INFINITY,
      releasing: false,
      ignoreOverloadUntil: 0,
    },
    breaker: { state: 'closed', openUntil: 0, failedProbes: 0 },
  };
}

/** The change the tests make: one more cut. */
export const countOne = (state: SharedScope): SharedScope => ({
  ...state,
  pace: { ...state.pace, cuts: state.pace.cuts + 1 },
});

let prefixes = 0;
/** A prefix no other test uses: each test has its own keys and channel on the shared server. */
export const freshPrefix = (name: string) => `test-${process.pid}-${++prefixes}-${name}`;
