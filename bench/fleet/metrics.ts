import type { FleetRun } from './fleet';
import type { AttemptRecord } from './protocol';

/** When the last call settled, in ms after the start. */
export function completionMs(run: FleetRun): number {
  let last = run.startedAt;
  for (const call of run.calls) last = Math.max(last, call.settledAt);
  return last - run.startedAt;
}

export function failedCalls(run: FleetRun): number {
  return run.calls.filter((call) => !call.ok).length;
}

/** Failure reasons and how many calls ended with each, e.g. "429 (retries-exhausted)×12". */
export function failureBreakdown(run: FleetRun): string {
  const counts = new Map<string, number>();
  for (const call of run.calls) {
    if (call.failure !== undefined) counts.set(call.failure, (counts.get(call.failure) ?? 0) + 1);
  }
  return [...counts].map(([reason, count]) => `${reason}×${count}`).join(', ') || '–';
}

/** Every request the workers' adapters were handed, refused connections included. */
export function attempts(run: FleetRun): AttemptRecord[] {
  return run.calls.flatMap((call) => call.attempts);
}

export function answeredWith(run: FleetRun, status: number): number {
  return attempts(run).filter((attempt) => attempt.outcome === status).length;
}

export function requestsPerCall(run: FleetRun): number {
  return attempts(run).length / Math.max(1, run.calls.length);
}

export function redisCommandsPerCall(run: FleetRun): number {
  return run.redisCommands / Math.max(1, run.calls.length);
}

/** Nearest-rank percentile of call latency (`p` in 0..100), in ms. */
export function latencyPercentileMs(run: FleetRun, p: number): number {
  const sorted = run.calls.map((call) => call.settledAt - call.startedAt).sort((a, b) => a - b);
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

/** Requests sent in [fromMs, toMs) after the start. */
export function attemptsBetween(run: FleetRun, fromMs: number, toMs: number): number {
  return attempts(run).filter((attempt) => {
    const atMs = attempt.at - run.startedAt;
    return atMs >= fromMs && atMs < toMs;
  }).length;
}

/**
 * For each worker, ms from `atMs` (after the start) to the first request it sent from then on
 * that was answered 200; `undefined` for a worker with none.
 */
export function firstSuccessAfter(run: FleetRun, atMs: number): (number | undefined)[] {
  const workers = new Map<number, number | undefined>();
  for (const call of run.calls) {
    let first = workers.get(call.worker);
    for (const attempt of call.attempts) {
      const sinceMs = attempt.at - run.startedAt - atMs;
      if (attempt.outcome === 200 && sinceMs >= 0) first = Math.min(first ?? sinceMs, sinceMs);
    }
    workers.set(call.worker, first);
  }
  return [...workers.keys()].sort((a, b) => a - b).map((worker) => workers.get(worker));
}

/** The most requests sent in any one second within `windowMs` after `fromMs` (sliding). */
export function peakPerSecond(run: FleetRun, fromMs: number, windowMs: number): number {
  const times = attempts(run)
    .map((attempt) => attempt.at - run.startedAt)
    .filter((atMs) => atMs >= fromMs && atMs < fromMs + windowMs)
    .sort((a, b) => a - b);
  let peak = 0;
  let from = 0;
  for (let to = 0; to < times.length; to += 1) {
    while ((times[to] as number) - (times[from] as number) >= 1000) from += 1;
    peak = Math.max(peak, to - from + 1);
  }
  return peak;
}
