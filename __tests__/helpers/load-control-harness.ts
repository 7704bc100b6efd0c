import type { AxiosError } from 'axios';
import type { CircuitStateChange } from '../../src';

// What the per-origin load-control suites (load-control-*.integration.test.ts) add to the
// loopback plumbing of loopback-client.ts (servers, agents, the counting client, the leak check):
// the breaker's transitions, a job of generic calls, and a failure in one line.

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
