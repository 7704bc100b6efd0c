// "Never worse than off" (issue 21): one case is a seeded workload against a server of the
// family, run twice in virtual time: load control on (the defaults) and off
// (`circuitBreaker: false, pacing: false`: per-call retries and the budget only). The invariants
// compare the two runs. Optionally a third run, the package at a git ref (`baseline.ts`), is
// judged by the same invariants in place of off.
import type { AxiosInstance } from 'axios';
import { attachRetry, type RetryOptions } from '../../src';
import type { Contestant } from '../contestants';
import type { AttachRetry } from './baseline';
import {
  type Answered,
  familyServer,
  isLimitedRoute,
  quotaOf,
  type ServerSpec,
} from './server-family';
import { sharedStoreHub } from './shared-store';
import { simulate } from './simulation';
import type { Call } from './workload';

export interface WorkloadSpec {
  /** Jobs of the application; each is one call, re-issued when it fails up to `callsPerJob` calls. */
  readonly jobs: number;
  /** Workers taking the next job (closed loop), over all clients. */
  readonly concurrency: number;
  readonly callsPerJob: number;
  /** Job j goes to route j mod `routes` (`/r<k>/…`), with an id in its path when `ids`. */
  readonly routes: number;
  readonly ids: boolean;
  /** Processes sharing the server (one key), each its own axios instance; job j is client j mod n's. */
  readonly clients: number;
  /** Load control on: the clients share one store. */
  readonly store: boolean;
  readonly retries: number;
  readonly deadlineMs?: number | undefined;
  /** axios's `timeout`. */
  readonly timeoutMs?: number | undefined;
  /** The clients' jitter. */
  readonly seed: number;
}

export interface Case {
  readonly server: ServerSpec;
  readonly workload: WorkloadSpec;
}

/** `baseline`: load control on (the defaults), with the package at a git ref. */
export type Mode = 'on' | 'off' | 'baseline';

export interface RunOutcome {
  readonly jobs: number;
  readonly jobsOk: number;
  readonly completionMs: number;
  /** Requests that reached the server (refused connections too). */
  readonly requests: number;
  /** Attempts sent before the `Retry-After` of the call's last answer asked. */
  readonly early: number;
  readonly breakerOpenings: number;
  readonly failures: Readonly<Record<string, number>>;
}

export type Invariant = 'a-succeeds' | 'b-time' | 'c-requests' | 'd-retry-after';

export interface Violation {
  readonly invariant: Invariant;
  /** How far past the bound: on ÷ what was allowed (> 1), or the count of early attempts. */
  readonly ratio: number;
  readonly detail: string;
}

export interface CaseResult {
  readonly on: RunOutcome;
  readonly off: RunOutcome;
  readonly capacityMs: number;
  readonly violations: readonly Violation[];
  /** With a baseline: its run, and how this tree's run is worse than it ((a)–(c), judged as against off). */
  readonly baseline?: RunOutcome;
  readonly vsBaseline?: readonly Violation[];
}

// The tolerances of the invariants (issue 21), and the one this bench adds: a time within 20 ms
// of the bound is within it (a job of a few dozen milliseconds would otherwise fail on a wait of
// one round trip).
export const TOLERANCE = {
  okShare: 0.005,
  time: 1.1,
  timeSlackMs: 20,
  requests: 1.02,
  requestsSlack: 2,
} as const;

function contestant(
  mode: Mode,
  c: Case,
  { openings, attach }: { openings: { count: number }; attach: AttachRetry },
): Contestant {
  const w = c.workload;
  const hub = w.store && w.clients > 1 ? sharedStoreHub() : undefined;
  return {
    name: mode,
    kind: 'ours',
    describe: () => mode,
    attach: (instance: AxiosInstance, s) => {
      if (w.timeoutMs) instance.defaults.timeout = w.timeoutMs;
      const options: RetryOptions = {
        retries: w.retries,
        random: s.random,
        ...(w.deadlineMs ? { deadlineMs: w.deadlineMs } : {}),
      };
      if (mode === 'off') {
        attach(instance, { ...options, circuitBreaker: false, pacing: false });
        return;
      }
      attach(instance, {
        ...options,
        ...(hub ? { store: hub() } : {}),
        circuitBreaker: {
          onStateChange: (event) => {
            if (event.state === 'open') openings.count += 1;
          },
        },
      });
    },
  };
}

export const pathOf = (w: WorkloadSpec, job: number): string =>
  `/r${job % w.routes}/${w.ids ? `items/${job}` : 'items'}`;

/** The closed loop of the case: `concurrency` workers; a job re-issued at once when its call fails. */
function jobLoop(w: WorkloadSpec, done: { ok: number }) {
  return async (call: Call): Promise<void> => {
    let taken = 0;
    const worker = async (): Promise<void> => {
      while (taken < w.jobs) {
        const job = taken++;
        const target = { path: pathOf(w, job), instance: job % w.clients };
        for (let calls = 0; calls < w.callsPerJob; calls++) {
          if (await call(target)) {
            done.ok += 1;
            break;
          }
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(w.concurrency, w.jobs) }, worker));
  };
}

/**
 * Attempts of a call sent before its previous answer's `Retry-After` asked. An answer that came
 * after the call's `timeout` was never read (axios had aborted the attempt): it asks nothing.
 */
function earlyAttempts(notes: readonly Answered[], timeoutMs = Infinity): number {
  const byCall = new Map<number, Answered[]>();
  for (const note of notes) {
    if (note.callId === undefined) continue;
    const list = byCall.get(note.callId) ?? [];
    list.push(note);
    byCall.set(note.callId, list);
  }
  let early = 0;
  for (const list of byCall.values()) {
    list.sort((a, b) => a.arrivedAtMs - b.arrivedAtMs);
    for (let i = 1; i < list.length; i++) {
      const before = list[i - 1] as Answered;
      const asked = before.retryAfterUntilMs;
      const read = before.answeredAtMs - before.arrivedAtMs < timeoutMs;
      if (asked !== undefined && read && (list[i]?.arrivedAtMs ?? 0) < asked - 1) early += 1;
    }
  }
  return early;
}

export async function runMode(
  c: Case,
  mode: Mode,
  attach: AttachRetry = attachRetry,
): Promise<RunOutcome> {
  return (await traceMode(c, mode, attach)).outcome;
}

/** A run of one mode, with every answer the server gave in it (a case's trace: trace-case.ts). */
export async function traceMode(
  c: Case,
  mode: Mode,
  attach: AttachRetry = attachRetry,
): Promise<{ readonly outcome: RunOutcome; readonly answers: readonly Answered[] }> {
  const notes: Answered[] = [];
  const done = { ok: 0 };
  const openings = { count: 0 };
  const result = await simulate(contestant(mode, c, { openings, attach }), {
    settings: { retries: c.workload.retries },
    server: () => familyServer(c.server, c.workload.routes, (note) => notes.push(note)),
    workload: jobLoop(c.workload, done),
    seed: c.workload.seed,
    instances: c.workload.clients,
  });
  let completionMs = 0;
  const failures: Record<string, number> = {};
  for (const call of result.calls) {
    completionMs = Math.max(completionMs, call.settledAtMs);
    if (call.failure) failures[call.failure] = (failures[call.failure] ?? 0) + 1;
  }
  const outcome: RunOutcome = {
    jobs: c.workload.jobs,
    jobsOk: done.ok,
    completionMs,
    requests: result.traffic.arrivals.length,
    early: earlyAttempts(notes, c.workload.timeoutMs || Infinity),
    breakerOpenings: openings.count,
    failures,
  };
  return { outcome, answers: notes };
}

/**
 * The least time the server needs for the jobs of its limited routes at its limit (0 without a
 * limiter), and the end of its outage: no client can finish sooner.
 */
export function capacityBoundMs(c: Case, offMs = Infinity): number {
  const { server: s, workload: w } = c;
  // An outage bounds the job only if the job was still running when it began.
  const outageEnd = s.outage && s.outage.atMs < offMs ? s.outage.atMs + s.outage.forMs : 0;
  const l = s.limiter;
  if (!l) return outageEnd;
  let limited = 0;
  for (let job = 0; job < w.jobs; job++) {
    if (isLimitedRoute(s, job % w.routes, w.routes)) limited += 1;
  }
  const rate = (n: number) => (Math.max(0, n) * 1000) / l.rate;
  const bound = {
    fixed: () => Math.max(0, Math.ceil(limited / quotaOf(l)) - 1) * l.windowMs,
    sliding: () => Math.max(0, Math.ceil(limited / quotaOf(l)) - 1) * l.windowMs,
    token: () => rate(limited - Math.max(1, l.burst)),
    leaky: () => rate(limited - 1),
    concurrency: () => (limited / Math.max(1, Math.round(l.rate))) * s.latency.baseMs,
  }[l.algorithm]();
  return Math.max(bound + s.latency.baseMs, outageEnd);
}

/** The invariants of one case (a)–(d); `against` names the run compared with (off, or a baseline). */
export function judge(c: Case, on: RunOutcome, off: RunOutcome, against = 'off'): Violation[] {
  const violations: Violation[] = [];
  const tolerated = Math.floor(TOLERANCE.okShare * c.workload.jobs);
  if (on.jobsOk < off.jobsOk - tolerated) {
    violations.push({
      invariant: 'a-succeeds',
      ratio: (off.jobsOk - on.jobsOk) / Math.max(1, tolerated),
      detail: `${on.jobsOk} jobs done vs ${off.jobsOk} ${against} (of ${c.workload.jobs})`,
    });
  }
  const capacityMs = capacityBoundMs(c, off.completionMs);
  const allowedMs = TOLERANCE.time * Math.max(off.completionMs, capacityMs) + TOLERANCE.timeSlackMs;
  // Time is compared for the same work: a run that did more jobs than off spent its time on them.
  if (on.jobsOk <= off.jobsOk + tolerated && on.completionMs > allowedMs) {
    violations.push({
      invariant: 'b-time',
      ratio: on.completionMs / allowedMs,
      detail: `${on.completionMs} ms vs ${off.completionMs} ms ${against}, capacity bound ${Math.round(capacityMs)} ms`,
    });
  }
  const perJob = off.jobsOk ? Math.max(1, on.jobsOk / off.jobsOk) : 1;
  const allowedRequests = TOLERANCE.requests * off.requests * perJob + TOLERANCE.requestsSlack;
  if (on.requests > allowedRequests) {
    violations.push({
      invariant: 'c-requests',
      ratio: on.requests / allowedRequests,
      detail: `${on.requests} requests vs ${off.requests} ${against}`,
    });
  }
  for (const [mode, run] of [
    ['on', on],
    ['off', off],
  ] as const) {
    if (run.early > 0) {
      violations.push({
        invariant: 'd-retry-after',
        ratio: run.early,
        detail: `${run.early} attempts sent before Retry-After asked (load control ${mode})`,
      });
    }
  }
  return violations;
}

export async function runCase(c: Case, baseline?: AttachRetry): Promise<CaseResult> {
  const off = await runMode(c, 'off');
  const on = await runMode(c, 'on');
  const capacityMs = capacityBoundMs(c, off.completionMs);
  const result = { on, off, capacityMs, violations: judge(c, on, off) };
  if (!baseline) return result;
  const then = await runMode(c, 'baseline', baseline);
  const vsBaseline = judge(c, on, then, 'baseline').filter((v) => v.invariant !== 'd-retry-after');
  return { ...result, baseline: then, vsBaseline };
}
