import http from 'node:http';
import { performance } from 'node:perf_hooks';
import axios, {
  type AxiosAdapter,
  type AxiosError,
  type AxiosInstance,
  type AxiosRequestConfig,
  type AxiosResponse,
  type InternalAxiosRequestConfig,
} from 'axios';
import type { CircuitStateChange, RetryOptions } from '../../src';
import { attachRetry } from '../../src';
import type { LoopbackServer } from './loopback-server';

// Shared plumbing of the issue-13 loopback suites: servers and agents closed after each test,
// no timer or socket left behind, a client that counts what it actually sends, and calls that
// are bounded in time (a call the code under test parks forever is aborted, so that a failing
// test fails instead of hanging).

const servers: LoopbackServer[] = [];
const agents: http.Agent[] = [];
const controllers = new Set<AbortController>();
const cleanups: Array<() => void> = [];

export function track<T extends LoopbackServer>(server: T): T {
  servers.push(server);
  return server;
}

/** Runs `undo` after the test, before the leak check (a timer of the test's own, say). */
export function onCleanup(undo: () => void): void {
  cleanups.push(undo);
}

const LEAKABLE = new Set(['Timeout', 'TCPSocketWrap', 'TCPServerWrap', 'TCPConnectWrap']);

function openHandles(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const name of process.getActiveResourcesInfo()) {
    if (LEAKABLE.has(name)) counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

/**
 * Installs the hooks: before each test the open handles are counted; after it, every call still
 * pending is aborted, every server stopped, every agent destroyed, and no more timers or sockets
 * may be open than before. (Time is read from `performance`: a test may have stepped `Date.now`.)
 */
export function useLoopbackCleanup(): void {
  let baseline: Record<string, number> = {};
  beforeEach(() => {
    baseline = openHandles();
  });
  afterEach(async () => {
    for (const undo of cleanups.splice(0)) undo();
    for (const controller of controllers) controller.abort();
    controllers.clear();
    await Promise.all(
      servers.splice(0).map(
        (server) =>
          new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, 500);
            void server
              .stop()
              .catch(() => undefined)
              .then(() => {
                clearTimeout(timer);
                resolve();
              });
          }),
      ),
    );
    for (const agent of agents.splice(0)) agent.destroy();
    const leftOver = (): Record<string, number> => {
      const now = openHandles();
      return Object.fromEntries(
        Object.entries(now).filter(([name, count]) => count > (baseline[name] ?? 0)),
      );
    };
    const until = performance.now() + 1000;
    while (performance.now() < until && Object.keys(leftOver()).length > 0) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(leftOver()).toEqual({});
  });
}

export interface Send {
  readonly at: number;
  readonly url: string;
}

export interface TestClient {
  readonly http: AxiosInstance;
  readonly sends: Send[];
  readonly events: CircuitStateChange[];
  /** When each breaker event came (`performance.now()`), and how many sends had been made by then. */
  readonly marks: Array<{ readonly at: number; readonly sends: number }>;
}

/**
 * An axios instance on a fresh agent, with retries attached, that counts every attempt sent
 * (each one the gate lets through, refused ones included: a stopped server cannot count those)
 * and records its breakers' state changes.
 */
export function clientFor(baseURL: string | undefined, options: RetryOptions = {}): TestClient {
  const agent = new http.Agent({ keepAlive: false });
  agents.push(agent);
  const sends: Send[] = [];
  const events: CircuitStateChange[] = [];
  const marks: Array<{ at: number; sends: number }> = [];
  // axios before 1.5.1 has no getAdapter; its default adapter is then the function itself.
  const httpAdapter: AxiosAdapter =
    typeof axios.getAdapter === 'function'
      ? axios.getAdapter('http')
      : (axios.defaults.adapter as AxiosAdapter);
  const counting: AxiosAdapter = (config: InternalAxiosRequestConfig) => {
    sends.push({ at: performance.now(), url: axios.getUri(config) });
    return httpAdapter(config);
  };
  const instance = axios.create({
    ...(baseURL === undefined ? {} : { baseURL }),
    httpAgent: agent,
    adapter: counting,
  });
  const { circuitBreaker } = options;
  attachRetry(instance, {
    ...options,
    circuitBreaker:
      circuitBreaker === false
        ? false
        : {
            ...circuitBreaker,
            onStateChange: (event) => {
              events.push(event);
              marks.push({ at: performance.now(), sends: sends.length });
              circuitBreaker?.onStateChange?.(event);
            },
          },
  });
  return { http: instance, sends, events, marks };
}

export interface Outcome {
  readonly response?: AxiosResponse;
  readonly error?: AxiosError;
  /** Milliseconds from the call to its settling (or to the bound). */
  readonly elapsed: number;
  /** The call had not settled within the bound: it was aborted. */
  readonly timedOut: boolean;
}

/**
 * Makes a GET and waits for it at most `boundMs`: past that it is aborted and reported as
 * `timedOut` (a parked call must fail the test, not hang it).
 */
export async function getWithin(
  client: TestClient,
  url: string,
  boundMs: number,
  config: AxiosRequestConfig = {},
): Promise<Outcome> {
  const controller = new AbortController();
  controllers.add(controller);
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<'bound'>((resolve) => {
    timer = setTimeout(() => resolve('bound'), boundMs);
  });
  const call = client.http.get(url, { ...config, signal: controller.signal }).then(
    (response) => ({ response }),
    (error: AxiosError) => ({ error }),
  );
  const first = await Promise.race([call, bound]);
  clearTimeout(timer);
  const elapsed = performance.now() - started;
  if (first === 'bound') {
    controller.abort();
    await call;
    controllers.delete(controller);
    return { elapsed, timedOut: true };
  }
  controllers.delete(controller);
  return { ...first, elapsed, timedOut: false };
}

/** `retryState.retryAfterMs` (issue 13) of a failed call's config, if any. */
export function retryAfterOf(error: AxiosError | undefined): number | undefined {
  const state = error?.config?.retryState as { retryAfterMs?: unknown } | undefined;
  return typeof state?.retryAfterMs === 'number' ? state.retryAfterMs : undefined;
}

/** A one-line account of how a call ended, for failure messages. */
export function describe13(outcome: Outcome): string {
  if (outcome.timedOut) return `still pending after ${Math.round(outcome.elapsed)} ms`;
  if (outcome.response) return `ok ${outcome.response.status}`;
  const e = outcome.error;
  return `${e?.code} ${e?.response?.status ?? ''} ${e?.config?.retryState?.stopReason ?? ''}`.trim();
}

export const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs `total` calls, `concurrency` at a time; resolves with each call's outcome, in order. */
export async function runJob(
  total: number,
  concurrency: number,
  call: (index: number) => Promise<Outcome>,
): Promise<Outcome[]> {
  const results: Outcome[] = [];
  let next = 0;
  async function worker(): Promise<void> {
    while (next < total) {
      const index = next++;
      results[index] = await call(index);
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}
