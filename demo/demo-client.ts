import { Agent } from 'node:http';
import axios, { type AxiosInstance } from 'axios';
import { attachRetry, type RetryOptions } from '../src';

/** An axios instance with retries attached, talking to one loopback server over its own keep-alive agent. */
export interface DemoClient {
  readonly http: AxiosInstance;
  /** When each attempt (first ones and retries, refused or not) left the client, in `performance.now()` ms. */
  readonly attempts: number[];
  /** Frees the agent's sockets so the process can exit. */
  close(): void;
}

export function createDemoClient(baseURL: string, options: RetryOptions): DemoClient {
  const agent = new Agent({ keepAlive: true });
  // proxy: false keeps every request on 127.0.0.1 even if HTTP_PROXY is set.
  const http = axios.create({ baseURL, httpAgent: agent, proxy: false });
  attachRetry(http, options);
  const attempts: number[] = [];
  http.interceptors.request.use((config) => {
    attempts.push(performance.now());
    return config;
  });
  return { http, attempts, close: () => agent.destroy() };
}
