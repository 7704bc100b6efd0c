import { delay, virtualNow } from './clock';

/** Where a call goes: its path, and which of the simulation's axios instances makes it. */
export interface CallTarget {
  /** Default: '/resource'. */
  readonly path?: string;
  /** Default: 0, the only instance unless the simulation has several. */
  readonly instance?: number;
}

/**
 * Makes one call (to `target`); resolves `true` if it succeeded, `false` if it failed.
 * Never rejects.
 */
export type Call = (target?: CallTarget) => Promise<boolean>;

/** Drives calls through a contestant; resolves when every call has settled. */
export type Workload = (call: Call) => Promise<void>;

/**
 * Open loop: one call at each start time (ascending), whatever happened to the earlier ones.
 * Starts are scheduled one at a time, not all up front: fake-timers looks through every
 * pending timer at each step.
 */
export function openLoop(
  startTimesMs: readonly number[],
  job: (call: Call) => Promise<boolean> = (call) => call(),
): Workload {
  return async (call) => {
    const calls: Promise<boolean>[] = [];
    for (const atMs of startTimesMs) {
      const waitMs = atMs - virtualNow();
      if (waitMs > 0) await delay(waitMs);
      calls.push(job(call));
    }
    await Promise.all(calls);
  };
}

/** `count` calls at a steady rate, the first at 0. */
export function steadyRate(count: number, perSecond: number): Workload {
  return openLoop(Array.from({ length: count }, (_, index) => (index * 1000) / perSecond));
}

/**
 * Closed loop: `concurrency` workers each take the next of `total` jobs once their last one is
 * done. A job whose call fails is called again at once by its worker (the job must finish), up
 * to `maxCallsPerJob` calls, so a contestant that never succeeds still ends.
 */
export function closedLoop(total: number, concurrency: number, maxCallsPerJob = 1_000): Workload {
  return async (call) => {
    let taken = 0;
    const worker = async (): Promise<void> => {
      while (taken < total) {
        taken += 1;
        for (let calls = 1; !(await call()) && calls < maxCallsPerJob; calls += 1) {}
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  };
}

/**
 * Open loop with re-issue: one job at each start time; a job whose call fails is called again
 * at once (the job must finish), up to `maxCallsPerJob` calls, as in `closedLoop`.
 */
export function openLoopUntilDone(
  startTimesMs: readonly number[],
  maxCallsPerJob = 1_000,
): Workload {
  return openLoop(startTimesMs, async (call) => {
    for (let calls = 1; !(await call()) && calls < maxCallsPerJob; calls += 1) {}
    return true;
  });
}

/** `workload` with every call sent to `target` (a path, an instance, or both). */
export function onTarget(workload: Workload, target: CallTarget): Workload {
  return (call) => workload((inner) => call({ ...target, ...inner }));
}

/** Runs `workloads` side by side; resolves when all of them have. */
export function inParallel(...workloads: readonly Workload[]): Workload {
  return async (call) => {
    await Promise.all(workloads.map((workload) => workload(call)));
  };
}

/** Runs `workloads` one after the other. */
export function inSequence(...workloads: readonly Workload[]): Workload {
  return async (call) => {
    for (const workload of workloads) await workload(call);
  };
}
