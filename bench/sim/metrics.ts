import { breakerOff, loadControlOff } from '../contestants';
import type { CallRecord, SimulationResult } from './simulation';

export function failedCalls(result: SimulationResult): number {
  return result.calls.filter((call) => !call.ok).length;
}

/** When the last call settled, in virtual ms since the start. */
export function completionMs(result: SimulationResult): number {
  // A loop, not Math.max(...): a job's re-issued calls can outnumber the argument limit.
  let last = 0;
  for (const call of result.calls) last = Math.max(last, call.settledAtMs);
  return last;
}

export function requestsSent(result: SimulationResult): number {
  return result.traffic.arrivals.length;
}

export function requestsPerCall(result: SimulationResult): number {
  return requestsSent(result) / result.calls.length;
}

function latency(call: CallRecord): number {
  return call.settledAtMs - call.startedAtMs;
}

/** Nearest-rank percentile of call latency (`p` in 0..100). */
export function latencyPercentileMs(result: SimulationResult, p: number): number {
  return latencyPercentileBetweenMs(result, p, Number.NEGATIVE_INFINITY);
}

/** Failure reasons and how many calls ended with each, e.g. "503×12, ECONNREFUSED×3". */
export function failureBreakdown(result: SimulationResult): string {
  const counts = new Map<string, number>();
  for (const call of result.calls) {
    if (call.failure !== undefined) counts.set(call.failure, (counts.get(call.failure) ?? 0) + 1);
  }
  return [...counts].map(([reason, count]) => `${reason}×${count}`).join(', ') || '–';
}

/** Share of calls that succeeded, 0..1. */
export function successRatio(result: SimulationResult): number {
  return result.calls.length === 0
    ? 1
    : (result.calls.length - failedCalls(result)) / result.calls.length;
}

/** How often the circuit breaker opened (0 for contestants without one). */
export function breakerOpenings(result: SimulationResult): number {
  return result.circuitEvents.filter((event) => event.state === 'open').length;
}

/** Nearest-rank percentile of the latency of the calls started in [fromMs, toMs). */
export function latencyPercentileBetweenMs(
  result: SimulationResult,
  p: number,
  fromMs: number,
  toMs = Number.POSITIVE_INFINITY,
): number {
  const sorted = result.calls
    .filter((call) => call.startedAtMs >= fromMs && call.startedAtMs < toMs)
    .map(latency)
    .sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] ?? 0;
}

/** The "breaker opened" cell: "3×", or "–" for a contestant without a breaker. */
export function breakerOpenedCell(result: SimulationResult): string {
  const hasBreaker =
    result.contestant.kind === 'ours' &&
    result.contestant.name !== breakerOff.name &&
    result.contestant.name !== loadControlOff.name;
  return hasBreaker ? `${breakerOpenings(result)}×` : '–';
}
