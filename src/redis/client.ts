/**
 * The two Redis clients the store takes, told apart by their shape (neither package is imported,
 * both are optional peer dependencies), behind one small connection: send a command, say whether
 * the link is up, subscribe on a connection of its own.
 */
import { optionError } from '../options/rules';

/** The part of an ioredis client (`new Redis(…)`, ioredis 5+) the store uses. */
export interface IoRedisClient {
  readonly status: string;
  call(command: string, ...args: string[]): Promise<unknown>;
  duplicate(override?: Record<string, unknown>): IoRedisClient;
  subscribe(...channels: string[]): Promise<unknown>;
  on(event: 'message', listener: (channel: string, message: string) => void): unknown;
  on(event: 'error' | 'ready', listener: (error?: unknown) => void): unknown;
  disconnect(): void;
}

/** The part of a node-redis client (`createClient(…)` of `redis` 4+, connected) the store uses. */
export interface NodeRedisClient {
  readonly isReady?: boolean;
  readonly isOpen: boolean;
  sendCommand(args: string[]): Promise<unknown>;
  duplicate(): NodeRedisClient;
  connect(): Promise<unknown>;
  subscribe(
    channel: string,
    listener: (message: string, channel: string) => void,
  ): Promise<unknown>;
  on(event: 'error' | 'ready', listener: (error?: unknown) => void): unknown;
  /** node-redis 5 */
  destroy?(): void;
  /** node-redis 4 (deprecated in 5) */
  disconnect?(): Promise<unknown>;
}

export type RedisClient = IoRedisClient | NodeRedisClient;

export interface Connection {
  readonly library: 'ioredis' | 'node-redis';
  /** Whether commands can go now: otherwise the client would queue them until it reconnects. */
  ready(): boolean;
  /** One command; the promise may reject (the caller bounds and catches it). */
  send(args: string[]): Promise<unknown>;
  /** Subscribes on a duplicate connection, again after each reconnect. Returns its closing. */
  subscribe(channel: string, onMessage: (message: string) => void): () => void;
}

const ignore = (): void => {};

function isIoRedis(client: object): client is IoRedisClient {
  const { call, status } = client as Partial<IoRedisClient>;
  return typeof call === 'function' && typeof status === 'string';
}

function isNodeRedis(client: object): client is NodeRedisClient {
  const { sendCommand, isOpen } = client as Partial<NodeRedisClient>;
  return typeof sendCommand === 'function' && typeof isOpen === 'boolean';
}

function ioRedis(client: IoRedisClient): Connection {
  return {
    library: 'ioredis',
    ready: () => client.status === 'ready',
    send: ([command = '', ...args]) => client.call(command, ...args),
    subscribe(channel, onMessage) {
      // The duplicate inherits the user's options: make sure it resubscribes and connects.
      const subscriber = client.duplicate({ autoResubscribe: true, lazyConnect: false });
      subscriber.on('error', ignore);
      subscriber.on('message', (from: string, message: string) => {
        if (from === channel) onMessage(message);
      });
      // Also on each 'ready': a first subscribe that failed (no offline queue) is not remembered.
      const join = () => void subscriber.subscribe(channel).catch(ignore);
      subscriber.on('ready', join);
      join();
      return () => subscriber.disconnect();
    },
  };
}

function nodeRedis(client: NodeRedisClient): Connection {
  return {
    library: 'node-redis',
    ready: () => client.isReady ?? client.isOpen,
    send: (args) => client.sendCommand(args),
    subscribe(channel, onMessage) {
      const subscriber = client.duplicate();
      subscriber.on('error', ignore);
      // node-redis resubscribes after a reconnect itself; once more on 'ready' is harmless (one
      // listener per channel is kept) and covers a first connect that failed.
      const listener = (message: string) => onMessage(message);
      const join = () => void subscriber.subscribe(channel, listener).catch(ignore);
      subscriber.on('ready', join);
      subscriber.connect().catch(ignore);
      return () => {
        try {
          if (subscriber.destroy) subscriber.destroy();
          else subscriber.disconnect?.().catch(ignore);
        } catch {
          // Already closed.
        }
      };
    },
  };
}

/** The connection for an ioredis or node-redis client; a TypeError for anything else. */
export function connectionOf(client: unknown): Connection {
  if (typeof client === 'object' && client !== null) {
    if (isIoRedis(client)) return ioRedis(client);
    if (isNodeRedis(client)) return nodeRedis(client);
  }
  throw optionError(
    '`createRedisStore(redis, { prefix })` takes an ioredis or node-redis client first',
  );
}
