/// <reference types="node" />
/**
 * `axios-safe-retry/redis`: a load-control store that the clients of many processes share
 * through one Redis server (ioredis or node-redis), so that a fleet paces, breaks and probes as one.
 *
 * Keys (`<prefix>` is `options.prefix`, 'axios-safe-retry' by default) and how long they live:
 * - `<prefix>:scope:<scope>`: a string, the scope's shared state as JSON (`version`, `pace`,
 *   `breaker`; ±Infinity as the strings "Infinity" and "-Infinity"). TTL `stateTtlMs` (10 min by
 *   default), set again on every change: a scope nobody changed for that long starts afresh.
 * - `<prefix>:lease:<scope>`: a string, the id of the client that holds the scope's probe lease.
 *   TTL: the lease's own (`lease(key, ttlMs)`); deleted by its holder when given back.
 * - `<prefix>:clients`: a sorted set of the live clients' ids, scored by the server's time of
 *   their last heartbeat (every 1 s); members silent for 3 s are dropped, and the set expires 3 s
 *   after the last heartbeat.
 * - Channel `<prefix>:changes` (no key): each stored change, as `{"client", "key", "state"}`.
 *
 * Redis commands: an `update` makes one EVALSHA (compare-and-set, SET with PX, PUBLISH) in the
 * background, one more per conflict lost; a `lease` one SET NX PX; an `unlease` one EVALSHA; the
 * heartbeat one EVALSHA (TIME, ZADD, ZREMRANGEBYSCORE, PEXPIRE, ZCARD) a second. EVAL once
 * instead when the server lost its scripts. Pub/sub runs on a duplicate of the client.
 */
import { randomBytes } from 'node:crypto';
import type { LoadControlStore, StoreHealth } from '../load-control/store';
import { connectionOf, type NodeRedisClient, type RedisClient } from './client';
import { createHealth } from './health';
import { startPresence } from './presence';
import { boundedLink, RELEASE, UNANSWERED } from './scripts';
import { scopeSync } from './sync';

export type {
  LoadControlStore,
  ScopeChange,
  SharedScope,
  StoreFailure,
  StoreHealth,
} from '../load-control/store';
export type { IoRedisClient, NodeRedisClient, RedisClient } from './client';

export interface RedisStoreOptions {
  /**
   * Namespaces every key and the channel: the clients that share state are those with the same
   * prefix on the same server. Give each job, or each API key, its own.
   * @default 'axios-safe-retry'
   */
  prefix?: string;
  /**
   * How long (ms) a scope's state stays in Redis after its last change.
   * @default 600000
   */
  stateTtlMs?: number;
  /**
   * How long (ms) a command may take: past it, the change stands in this process only, and a
   * lease is taken (the breaker here decides alone, as it would without Redis).
   * @default 50
   */
  timeoutMs?: number;
  /**
   * The most clients the store counts (each one's share of a rate or of `minimumThroughput` is 1
   * over their number): members a writer added to the clients' set beyond it are not obeyed.
   * @default 1000
   */
  maxClients?: number;
}

export interface RedisStore extends LoadControlStore {
  /**
   * Stops the heartbeat, leaves the clients' set and closes the subscriber connection. Done by
   * itself when the client given ends (`quit()`, `disconnect()`): not needed to exit.
   */
  close(): Promise<void>;
  health(): StoreHealth;
}

const defaultOptions: Required<RedisStoreOptions> = {
  prefix: 'axios-safe-retry',
  stateTtlMs: 600_000,
  timeoutMs: 50,
  maxClients: 1000,
};

function validate(options: Required<RedisStoreOptions>): void {
  if (typeof options.prefix !== 'string' || options.prefix === '') {
    throw new TypeError('`prefix` must be a non-empty string');
  }
  const { stateTtlMs, timeoutMs, maxClients } = options;
  if (!Number.isSafeInteger(stateTtlMs) || stateTtlMs < 1000) {
    throw new TypeError(`\`stateTtlMs\` must be an integer of at least 1000, got ${stateTtlMs}`);
  }
  if (typeof timeoutMs !== 'number' || !(timeoutMs > 0 && timeoutMs <= 60_000)) {
    throw new TypeError(`\`timeoutMs\` must be a number in (0, 60000], got ${timeoutMs}`);
  }
  if (!Number.isInteger(maxClients) || maxClients < 1 || maxClients > 10_000) {
    throw new TypeError(`\`maxClients\` must be a whole number in [1, 10000], got ${maxClients}`);
  }
}

/** A lease's TTL as Redis takes it: whole milliseconds, at least 1, at most the state's TTL. */
function leaseTtl(ttlMs: number, max: number): string {
  return String(Number.isFinite(ttlMs) ? Math.min(Math.max(Math.ceil(ttlMs), 1), max) : max);
}

/**
 * A store shared through Redis. `client` is a connected ioredis or node-redis (4+) client; it is
 * not closed by `close()`. No method throws or rejects because of Redis: when it is away, slow or
 * restarting, every decision is made on the state known here, and sharing resumes when it is back.
 */
export function createRedisStore(client: RedisClient, options?: RedisStoreOptions): RedisStore {
  const settings = { ...defaultOptions, ...options };
  validate(settings);
  const connection = connectionOf(client);
  const { prefix, stateTtlMs } = settings;
  const id = randomBytes(9).toString('base64url');
  let closed = false;
  let closing: Promise<void> | undefined;
  const health = createHealth(prefix);
  const link = boundedLink(connection, { timeoutMs: settings.timeoutMs, health }, () => closed);
  const leaseKey = (key: string) => `${prefix}:lease:${key}`;
  const presence = startPresence(link, {
    setKey: `${prefix}:clients`,
    client: id,
    maxClients: settings.maxClients,
  });
  const sync = scopeSync({
    link,
    client: id,
    channel: `${prefix}:changes`,
    scopeKey: (key) => `${prefix}:scope:${key}`,
    ttlMs: stateTtlMs,
    heard: presence.heard,
  });
  const unsubscribe = connection.subscribe(`${prefix}:changes`, sync.receive);

  const store: RedisStore = {
    health: health.health,
    clockOffset: presence.clockOffset,
    update: sync.update,
    latest: sync.latest,
    watch: sync.watch,
    async lease(key, ttlMs) {
      const args = ['SET', leaseKey(key), id, 'NX', 'PX', leaseTtl(ttlMs, stateTtlMs)];
      const reply = await link.command(args);
      // Unanswered: the breaker here decides alone, else no client would probe while Redis is away.
      return reply === UNANSWERED || reply === 'OK';
    },
    unlease(key) {
      void link.script(RELEASE, [leaseKey(key)], [id]);
    },
    clients: presence.clients,
    close() {
      closing ??= (async () => {
        sync.close();
        await presence.stop();
        closed = true;
        unsubscribe();
      })();
      return closing;
    },
  };
  // The subscriber connection is the store's: it goes when the user's client does.
  (client as NodeRedisClient).on('end', () => void store.close());
  return store;
}
