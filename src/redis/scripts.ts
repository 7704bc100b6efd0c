/// <reference types="node" />
import { createHash } from 'node:crypto';
import type { Connection } from './client';

/**
 * The Lua scripts of the Redis store: each change is one atomic script, and any time a script
 * needs is the server's (`TIME`), never a worker's clock. Run by EVALSHA, falling back to EVAL
 * once when the server does not know the script (a restarted server has none).
 */

export interface Script {
  readonly source: string;
  readonly sha: string;
}

function script(source: string): Script {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/**
 * Compare-and-set of a scope's state. KEYS[1]: the scope's key. ARGV: the version the change was
 * made on, the new state's JSON, its TTL (ms), the channel, the message. A missing key, or one
 * that holds no readable version, counts as a match. Returns nil when stored (and published),
 * else the state stored now, for the change to be made again on it.
 */
export const COMPARE_AND_SET = script(`
local stored = redis.call('GET', KEYS[1])
if stored then
  local ok, state = pcall(cjson.decode, stored)
  if ok and type(state) == 'table' and type(state.version) == 'number'
    and state.version ~= tonumber(ARGV[1]) then
    return stored
  end
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
redis.call('PUBLISH', ARGV[4], ARGV[5])
return false
`);

/**
 * Takes a lease that no one holds. One with no TTL, or a longer one than any client gives
 * (ARGV[3], the state's TTL), was written by another program: it is taken too, else no client
 * would probe again. KEYS[1]: the lease. ARGV: our id, the TTL (ms), the longest TTL (ms).
 */
export const LEASE = script(`
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -2 or ttl == -1 or ttl > tonumber(ARGV[3]) then
  return redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
end
return false
`);

/** Deletes a lease only when this client holds it. KEYS[1]: the lease. ARGV[1]: our id. */
export const RELEASE = script(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`);

/**
 * The heartbeat: this client is alive now (server time), the clients not seen for ARGV[2] ms are
 * dropped. KEYS[1]: the clients' sorted set. ARGV: our id, the staleness (ms), the set's TTL (ms).
 * Returns { live clients, TIME seconds, TIME microseconds }.
 */
export const HEARTBEAT = script(`
if redis.replicate_commands then redis.replicate_commands() end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return { redis.call('ZCARD', KEYS[1]), time[1], time[2] }
`);

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}

/**
 * Runs a script by its SHA, by its source when the server lost it. `argv`: its key (each script
 * works on one, `KEYS[1]`), then its arguments (`ARGV`). May reject.
 */
async function runScript(
  connection: Connection,
  { source, sha }: Script,
  argv: readonly string[],
): Promise<unknown> {
  const tail = ['1', ...argv];
  try {
    return await connection.send(['EVALSHA', sha, ...tail]);
  } catch (error) {
    if (!isNoScript(error)) throw error;
    return connection.send(['EVAL', source, ...tail]);
  }
}

/** What a command resolves to when Redis did not answer in time, failed, or is not connected. */
export const UNANSWERED: unique symbol = Symbol('no reply');
export type Reply = unknown | typeof UNANSWERED;

/**
 * Commands that never fail a call: each resolves to its reply or, when the client is not
 * connected (its offline queue would hold the command for as long as Redis is away), when it fails
 * or when `timeoutMs` passes first, to `UNANSWERED`. Nothing rejects; a late reply is dropped.
 */
export interface Link {
  command(args: string[], timeoutMs?: number): Promise<Reply>;
  /** `argv`: the script's key, then its arguments. */
  script(script: Script, argv: string[], timeoutMs?: number): Promise<Reply>;
}

function bounded(work: () => Promise<unknown>, timeoutMs: number): Promise<Reply> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(UNANSWERED), timeoutMs);
    timer.unref?.();
    const settle = (reply: Reply) => {
      clearTimeout(timer);
      resolve(reply);
    };
    try {
      work().then(settle, () => settle(UNANSWERED));
    } catch {
      settle(UNANSWERED);
    }
  });
}

export function boundedLink(
  connection: Connection,
  timeoutMs: number,
  closed: () => boolean,
): Link {
  const ask = (work: () => Promise<unknown>, bound = timeoutMs) =>
    closed() || !connection.ready() ? Promise.resolve(UNANSWERED) : bounded(work, bound);
  return {
    command: (args, bound) => ask(() => connection.send(args), bound),
    script: (source, argv, bound) => ask(() => runScript(connection, source, argv), bound),
  };
}
