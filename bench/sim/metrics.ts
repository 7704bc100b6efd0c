import type { CallRecord, SimulationResult } from './simulation';

export function failedCalls(result: SimulationResult): number {
  return result.calls.filter((call) => !call.ok).length;
}

/** When the last call settled, in virtual ms since the start. */
export function completionMs(result: SimulationResult): number {
  return Math.max(0, ...result.calls.map((call) => call.settledAtMs));
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
  const sorted = result.calls.map(latency).sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] ?? 0;
}

/** Failure reasons and how many calls ended with each, e.g. "503×12, ECONNREFUSED×3". */
export function failureBreakdown(result: SimulationResult): string {
  const counts = new Map<string, number>();
  for (const call of result.calls) {
    if (call.failure !== undefined) counts.set(call.failure, (counts.get(call.failure) ?? 0) + 1);
  }
  return [...counts].map(([reason, count]) => `${reason}×${count}`).join(', ') || '–';
}
