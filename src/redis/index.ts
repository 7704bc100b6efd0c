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
 *   TTL: the lease's own (`lease(key, ttlMs)`); deleted by its holder when given back. One with
 *   no TTL, or one longer than `stateTtlMs`, was written by another program, and is taken.
 * - `<prefix>:clients`: a sorted set of the live clients' ids, scored by the server's time of
 *   their last heartbeat (every 1 s); members silent for 3 s are dropped, and the set expires 3 s
 *   after the last heartbeat.
 * - Channel `<prefix>:changes` (no key): each stored change, as `{"client", "key", "state"}`.
 *
 * Redis commands: an `update` makes one EVALSHA (compare-and-set, SET with PX, PUBLISH) in the
 * background, one more per conflict lost; a `lease` and an `unlease` one EVALSHA each; the
 * heartbeat one EVALSHA (TIME, ZADD, ZREMRANGEBYSCORE, PEXPIRE, ZCARD) a second. EVAL once
 * instead when the server lost its scripts. Pub/sub runs on a duplicate of the client.
 */
import { randomBytes } from 'node:crypto';
import type { LoadControlStore } from '../contract/store';
import { optionError, ruled } from '../options/rules';
import { connectionOf, type RedisClient } from './client';
import { REDIS_SCHEMA } from './options';
import { startPresence } from './presence';
import { boundedLink, LEASE, RELEASE, UNANSWERED } from './scripts';
import { scopeSync } from './sync';

export type { LoadControlStore, ScopeChange, SharedScope } from '../contract/store';
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
}

export interface RedisStore extends LoadControlStore {
  /** Stops the heartbeat, leaves the clients' set and closes the subscriber connection. */
  close(): Promise<void>;
}

function settingsOf(options: RedisStoreOptions = {}): Required<RedisStoreOptions> {
  const settings: Record<string, unknown> = {};
  // An option it does not know is a misspelt one, not one to ignore.
  for (const name in options) {
    if (!(name in REDIS_SCHEMA)) throw optionError(`unknown option \`${name}\``);
  }
  for (const [name, rule] of Object.entries(REDIS_SCHEMA)) {
    const value = options[name as keyof RedisStoreOptions];
    settings[name] = value === undefined ? rule[2] : ruled(name, rule, value);
  }
  return settings as Required<RedisStoreOptions>;
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
  const settings = settingsOf(options);
  const connection = connectionOf(client);
  const { prefix, stateTtlMs } = settings;
  const id = randomBytes(9).toString('base64url');
  let closed = false;
  let closing: Promise<void> | undefined;
  const link = boundedLink(connection, settings.timeoutMs, () => closed);
  const leaseKey = (key: string) => `${prefix}:lease:${key}`;
  const presence = startPresence(link, `${prefix}:clients`, id);
  const sync = scopeSync({
    link,
    client: id,
    channel: `${prefix}:changes`,
    scopeKey: (key) => `${prefix}:scope:${key}`,
    ttlMs: stateTtlMs,
    heard: presence.heard,
  });
  const unsubscribe = connection.subscribe(`${prefix}:changes`, sync.receive);

  return {
    clockOffset: presence.clockOffset,
    update: sync.update,
    latest: sync.latest,
    watch: sync.watch,
    async lease(key, ttlMs) {
      const argv = [leaseKey(key), id, leaseTtl(ttlMs, stateTtlMs), String(stateTtlMs)];
      const reply = await link.script(LEASE, argv);
      // Unanswered: the breaker here decides alone, else no client would probe while Redis is away.
      return reply === UNANSWERED || reply === 'OK';
    },
    unlease(key) {
      void link.script(RELEASE, [leaseKey(key), id]);
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
}
