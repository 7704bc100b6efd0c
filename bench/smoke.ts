import { contestants } from './contestants';
import { simulateHerd } from './scenarios/contention-herd';
import { completionMs, failedCalls, requestsSent } from './sim/metrics';

export interface SmokeResult {
  readonly contestant: string;
  readonly calls: number;
  readonly failedCalls: number;
  readonly requestsSent: number;
  /** Virtual milliseconds until the last call settled. */
  readonly completionMs: number;
}

/**
 * One small scenario, fast enough for `npm test`: a contention herd of `clients` clients
 * (default 20) against the bench's server (10 requests per 100 ms, 503 to the rest),
 * for axios-safe-retry with and without its retry budget. Deterministic (seeded, virtual time).
 */
export async function runSmokeBenchmark(clients = 20): Promise<SmokeResult[]> {
  const ours = contestants.filter((contestant) => contestant.kind === 'ours');
  const results = await simulateHerd(clients, ours);
  return results.map((result) => ({
    contestant: result.contestant.name,
    calls: result.calls.length,
    failedCalls: failedCalls(result),
    requestsSent: requestsSent(result),
    completionMs: completionMs(result),
  }));
}
