import http from 'node:http';
import axios, {
  type AxiosAdapter,
  type AxiosError,
  type AxiosInstance,
  type InternalAxiosRequestConfig,
} from 'axios';
import type { CircuitStateChange, RetryOptions } from '../../src';
import { attachRetry } from '../../src';
import type { LoopbackServer } from './loopback-server';

// The plumbing of the per-origin load-control suites (load-control-*.integration.test.ts), which
// run against real servers on 127.0.0.1, in real time.

export const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// Servers, agents and leaks: every test closes what it opened, and leaves no timer or socket.

const servers: LoopbackServer[] = [];
const agents: http.Agent[] = [];

export function track<T extends LoopbackServer>(server: T): T {
  servers.push(server);
  return server;
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
 * Installs the hooks of the load-control suites: before each test the open handles are counted;
 * after it, every server is stopped and every agent destroyed, and no more timers or sockets may
 * be open than before.
 */
export function useLeakCheck(): void {
  let baseline: Record<string, number> = {};
  beforeEach(() => {
    baseline = openHandles();
  });

  /** No more of each kind than before the test (one that was pending then may have ended since). */
  const leftOver = (): Record<string, number> => {
    const now = openHandles();
    return Object.fromEntries(
      Object.entries(now).filter(([name, count]) => count > (baseline[name] ?? 0)),
    );
  };

  afterEach(async () => {
    // Stops every server (one already stopped calls back at once), bounded in time.
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
    // Sockets close on the next turns of the loop: give them a moment, then nothing may be left.
    const deadline = Date.now() + 500;
    while (Date.now() < deadline && Object.keys(leftOver()).length > 0) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(leftOver()).toEqual({});
  });
}

// ---------------------------------------------------------------------------------------------
// A client that counts what it actually sends (each attempt the gate lets through, refused ones
// included: a stopped server cannot count those), and records its breakers' state changes.

export interface Send {
  readonly at: number;
  readonly url: string;
}

export interface TestClient {
  readonly http: AxiosInstance;
  readonly sends: Send[];
  readonly events: CircuitStateChange[];
  /** When each event came, and how many sends had been made by then. */
  readonly marks: Array<{ readonly at: number; readonly sends: number }>;
}

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
    sends.push({ at: Date.now(), url: axios.getUri(config) });
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
              marks.push({ at: Date.now(), sends: sends.length });
              circuitBreaker?.onStateChange?.(event);
            },
          },
  });
  return { http: instance, sends, events, marks };
}

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
};

export const transitions = (events: readonly CircuitStateChange[]) =>
  events.map((e) => `${e.previousState}→${e.state}`);

/** Runs `total` calls, `concurrency` at a time; resolves with each call's outcome, in order. */
export async function runJob<T>(
  total: number,
  concurrency: number,
  call: (index: number) => Promise<T>,
): Promise<Array<{ ok: true; value: T } | { ok: false; error: unknown }>> {
  const results: Array<{ ok: true; value: T } | { ok: false; error: unknown }> = [];
  let next = 0;
  async function worker(): Promise<void> {
    while (next < total) {
      const index = next++;
      results[index] = await call(index).then(
        (value) => ({ ok: true as const, value }),
        (error: unknown) => ({ ok: false as const, error }),
      );
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}

export const describeFailure = (error: unknown): string => {
  const e = error as AxiosError;
  return `${e.code} ${e.response?.status ?? ''} ${e.config?.retryState?.stopReason ?? ''}`;
};
