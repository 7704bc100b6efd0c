// A chain of real express services on 127.0.0.1 (top → L1 → … → Ln → bottom), each layer calling
// the next with its own axios instance: shared by the "calls through several services" benchmark
// scenario and demo story (issue 16). Real time, real sockets.
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import axios, { type AxiosAdapter, type AxiosError, type AxiosInstance } from 'axios';
import axiosRetry from 'axios-retry';
import express from 'express';
import { attachRetry, type RetryOptions } from '../src';
import { retryLayer } from '../src/server';

/**
 * How every client of the chain retries, and whether the layers run `retryLayer()`:
 * - `axios-retry`: axios-retry 4.5 with `{ retries: 3 }` (its defaults otherwise) everywhere;
 * - `plain`: this package's `attachRetry` everywhere, no server helper;
 * - `helper`: `attachRetry` everywhere and `retryLayer()` in every layer.
 */
export type ChainMode = 'axios-retry' | 'plain' | 'helper';

/** `always-503`: the bottom answers 503 to everything; `refused`: nothing listens there. */
export type BottomMode = 'always-503' | 'refused';

/**
 * How each layer's handler answers when its call below failed:
 * - `catch` (the default, what most handlers do): catches the error and answers 502 itself; the
 *   layer has `app.use(retryLayer())` and nothing else (mode `helper`);
 * - `next`: lets the error go to the error handlers: `retryLayer.errorHandler()` (mode `helper`),
 *   then one that answers 503.
 */
export type HandlerStyle = 'catch' | 'next';

export const CALL_HEADER = 'x-chain-call';

export interface ChainSpec {
  readonly mode: ChainMode;
  readonly bottom: BottomMode;
  /** Middle layers between the top caller and the bottom (L1 … Ln). */
  readonly layers: number;
  /** Options for every `attachRetry` of the chain (modes `plain` and `helper`). */
  readonly clientOptions?: RetryOptions;
  /** @default 'catch' */
  readonly handlers?: HandlerStyle;
}

export interface LayerChain {
  /** The top caller's client (not behind any server). */
  readonly top: AxiosInstance;
  /** The call ids each layer received, L1 first; the last entry is the bottom (empty if refused). */
  readonly arrivals: readonly string[][];
  /** Attempts the last layer sent to the bottom, refused connections included. */
  readonly attemptsAtBottom: () => number;
  close(): Promise<void>;
}

export interface TopOutcome {
  readonly ok: boolean;
  readonly stopReason: string | undefined;
  readonly durationMs: number;
}

async function listen(app: express.Express): Promise<http.Server> {
  return new Promise<http.Server>((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server));
  });
}

function urlOf(server: http.Server): string {
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function closeServer(server: http.Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

function withRetry(client: AxiosInstance, spec: ChainSpec): AxiosInstance {
  if (spec.mode === 'axios-retry') axiosRetry(client, { retries: 3 });
  else attachRetry(client, spec.clientOptions);
  return client;
}

/** axios's own http adapter, counting each attempt it is given. */
export function countingAdapter(): { adapter: AxiosAdapter; count: () => number } {
  const http: AxiosAdapter =
    typeof axios.getAdapter === 'function'
      ? axios.getAdapter('http')
      : (axios.defaults.adapter as AxiosAdapter);
  let sent = 0;
  return {
    adapter: (config) => {
      sent += 1;
      return http(config);
    },
    count: () => sent,
  };
}

/** Starts the bottom and `spec.layers` layers above it; `close()` stops them all. */
export async function startLayerChain(spec: ChainSpec): Promise<LayerChain> {
  const servers: http.Server[] = [];
  const bottomArrivals: string[] = [];
  let next: string;
  const bottomApp = express();
  bottomApp.get('/', (req, res) => {
    bottomArrivals.push(String(req.headers[CALL_HEADER]));
    res.status(503).json({ error: 'overloaded' });
  });
  const bottom = await listen(bottomApp);
  next = urlOf(bottom);
  if (spec.bottom === 'refused') await closeServer(bottom);
  else servers.push(bottom);

  const counting = countingAdapter();
  const layerArrivals: string[][] = [];
  for (let index = spec.layers - 1; index >= 0; index -= 1) {
    const arrivals: string[] = [];
    const client = withRetry(
      axios.create({
        baseURL: next,
        ...(index === spec.layers - 1 ? { adapter: counting.adapter } : {}),
      }),
      spec,
    );
    const app = express();
    if (spec.mode === 'helper') app.use(retryLayer());
    const catching = (spec.handlers ?? 'catch') === 'catch';
    app.get('/', async (req, res) => {
      const call = String(req.headers[CALL_HEADER]);
      arrivals.push(call);
      if (!catching) {
        res.json((await client.get('/', { headers: { [CALL_HEADER]: call } })).data);
        return;
      }
      try {
        res.json((await client.get('/', { headers: { [CALL_HEADER]: call } })).data);
      } catch {
        res.status(502).json({ error: 'the service below failed' });
      }
    });
    if (spec.mode === 'helper' && !catching) app.use(retryLayer.errorHandler());
    // What a service commonly answers when its dependency failed: 503.
    app.use(
      (
        _error: unknown,
        _req: express.Request,
        res: express.Response,
        _next: express.NextFunction,
      ) => {
        res.status(503).json({ error: 'dependency failed' });
      },
    );
    const server = await listen(app);
    servers.push(server);
    layerArrivals.unshift(arrivals);
    next = urlOf(server);
  }
  return {
    top: withRetry(axios.create({ baseURL: next }), spec),
    arrivals: [...layerArrivals, bottomArrivals],
    attemptsAtBottom: counting.count,
    close: async () => {
      await Promise.all(servers.map(closeServer));
    },
  };
}

/** `calls` top calls at once, each with its own call id; what each ended with. */
export async function topCalls(chain: LayerChain, calls: number): Promise<TopOutcome[]> {
  return Promise.all(
    Array.from({ length: calls }, async (_, index) => {
      const startedAt = performance.now();
      try {
        await chain.top.get('/', { headers: { [CALL_HEADER]: `c${index}` } });
        return { ok: true, stopReason: undefined, durationMs: performance.now() - startedAt };
      } catch (error) {
        return {
          ok: false,
          stopReason: (error as AxiosError).config?.retryState?.stopReason,
          durationMs: performance.now() - startedAt,
        };
      }
    }),
  );
}

/** The most requests any one call made at a service (0 if it received none). */
export function mostPerCall(arrivals: readonly string[]): number {
  const counts = new Map<string, number>();
  for (const call of arrivals) counts.set(call, (counts.get(call) ?? 0) + 1);
  return Math.max(0, ...counts.values());
}

export interface ChainRun {
  readonly spec: ChainSpec;
  readonly calls: number;
  readonly outcomes: readonly TopOutcome[];
  /** Requests each layer received, L1 first. */
  readonly perLayer: readonly number[];
  /** Attempts that reached (or, refused, were sent to) the bottom. */
  readonly atBottom: number;
  /** The most requests at the bottom for any one top call (503 only; attempts ÷ calls if refused). */
  readonly mostAtBottomPerCall: number;
  readonly realMs: number;
}

/** Starts a chain, sends `calls` top calls at once, closes it and reports what each layer saw. */
export async function runChain(spec: ChainSpec, calls: number): Promise<ChainRun> {
  const startedAt = performance.now();
  const chain = await startLayerChain(spec);
  try {
    const outcomes = await topCalls(chain, calls);
    const atBottom = chain.attemptsAtBottom();
    const bottomArrivals = chain.arrivals[chain.arrivals.length - 1] ?? [];
    return {
      spec,
      calls,
      outcomes,
      perLayer: chain.arrivals.slice(0, spec.layers).map((arrivals) => arrivals.length),
      atBottom,
      mostAtBottomPerCall:
        spec.bottom === 'refused' ? atBottom / calls : mostPerCall(bottomArrivals),
      realMs: performance.now() - startedAt,
    };
  } finally {
    await chain.close();
  }
}
