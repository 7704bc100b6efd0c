import { join } from 'node:path';
import axios from 'axios';
import type Redis from 'ioredis';
import { attachRetry } from '../../src';

// Issue 15's store lands in src/redis/index.ts while this benchmark is written: the contestant that
// uses it runs once `createRedisStore` is there and `attachRetry` takes a `store`, and is skipped
// with a message until then. Loaded by path at run time, so that this file compiles without it.
const REDIS_ENTRY = join(__dirname, '..', '..', 'src', 'redis');

export const STORE_NOT_AVAILABLE = 'redis store: not available yet';

type CreateRedisStore = (client: Redis, options?: { prefix?: string }) => unknown;

export type StoreLoad =
  | { readonly available: true; readonly createRedisStore: CreateRedisStore }
  | { readonly available: false; readonly reason: string };

/** `src/redis/index.ts` and its `createRedisStore`, or why not. */
export function loadRedisStore(): StoreLoad {
  let entry: Record<string, unknown>;
  try {
    entry = require(REDIS_ENTRY);
  } catch (error) {
    const missing =
      (error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' &&
      String((error as Error).message).includes(REDIS_ENTRY);
    return {
      available: false,
      reason: missing
        ? 'src/redis/index.ts is not there'
        : `src/redis/index.ts does not load: ${error}`,
    };
  }
  const create = entry.createRedisStore;
  if (typeof create !== 'function') {
    return { available: false, reason: 'src/redis/index.ts does not export createRedisStore' };
  }
  return { available: true, createRedisStore: create as CreateRedisStore };
}

/** Whether `attachRetry` takes `store` (it throws on an option it does not know). */
export function storeOptionError(store: unknown): string | undefined {
  try {
    attachRetry(axios.create(), { store } as Parameters<typeof attachRetry>[1]);
    return undefined;
  } catch (error) {
    return `attachRetry does not take \`store\` yet (${(error as Error).message})`;
  }
}

/** Closes what a store may hold open (timers, a subscriber), whatever the method is called. */
export async function closeStore(store: unknown): Promise<void> {
  if (typeof store !== 'object' || store === null) return;
  for (const method of ['close', 'quit', 'disconnect', 'stop']) {
    const close = (store as Record<string, unknown>)[method];
    if (typeof close === 'function') {
      await Promise.resolve(close.call(store)).catch(() => {});
      return;
    }
  }
}
