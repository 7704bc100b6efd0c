import { Agent } from 'node:http';
import axios, { type AxiosAdapter, type AxiosInstance } from 'axios';
import { attachRetry, type RetryOptions } from '../src';

/** An axios instance with retries attached, talking to one loopback server over its own keep-alive agent. */
export interface DemoClient {
  readonly http: AxiosInstance;
  /**
   * When each attempt (first ones and retries, refused or not) left the client, in
   * `performance.now()` ms. Recorded by the transport under the package's gate: an attempt that
   * the circuit breaker or the pacing held back is recorded when it is finally sent, and one that
   * failed fast at the breaker is not recorded at all.
   */
  readonly attempts: number[];
  /** Frees the agent's sockets so the process can exit. */
  close(): void;
}

const send: AxiosAdapter = axios.getAdapter('http');

export function createDemoClient(baseURL: string, options: RetryOptions): DemoClient {
  const agent = new Agent({ keepAlive: true });
  const attempts: number[] = [];
  // proxy: false keeps every request on 127.0.0.1 even if HTTP_PROXY is set.
  const http = axios.create({
    baseURL,
    httpAgent: agent,
    proxy: false,
    adapter: (config) => {
      attempts.push(performance.now());
      return send(config);
    },
  });
  attachRetry(http, options);
  return { http, attempts, close: () => agent.destroy() };
}
