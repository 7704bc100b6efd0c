// What the parent of the fleet benchmark and its worker processes say to each other over IPC.

/** The contestants of the fleet benchmark, by name (the worker builds each from its name). */
export const FLEET_CONTESTANTS = [
  'axios-safe-retry',
  'axios-safe-retry + Redis store',
  'axios-retry 4.5',
  'Bottleneck 2.19 on Redis',
] as const;

export type FleetContestant = (typeof FLEET_CONTESTANTS)[number];

/** What one worker runs: its share of the job, against the limiter at `url`. */
export interface WorkerSpec {
  readonly worker: number;
  readonly workers: number;
  readonly contestant: FleetContestant;
  /** The limiter, `http://127.0.0.1:port`. */
  readonly url: string;
  readonly redis: { readonly host: string; readonly port: number };
  /** This worker's calls: ids `firstCall` … `firstCall + calls - 1`. */
  readonly firstCall: number;
  readonly calls: number;
  /** Calls in flight at a time; `'all'` starts every call at once. */
  readonly inFlight: number | 'all';
  readonly retries: number;
  /** axios-safe-retry only. */
  readonly deadlineMs?: number;
  /** The Redis store's `prefix`, or Bottleneck's `id`: one per run, shared by its workers. */
  readonly sharedName: string;
  /** Bottleneck only: whether this worker clears the datastore (the first one, alone). */
  readonly clearDatastore: boolean;
  /** Bottleneck only: the limit it is given, per second. */
  readonly perSecond: number;
}

/** One request as the worker's adapter saw it. */
export interface AttemptRecord {
  /** `Date.now()` when it was handed to the HTTP adapter. */
  readonly at: number;
  /** The HTTP status, or the error code when there was no response. */
  readonly outcome: number | string;
}

export interface CallRecord {
  readonly id: number;
  readonly worker: number;
  readonly startedAt: number;
  readonly settledAt: number;
  readonly ok: boolean;
  /** Why it failed: status or error code, and our stop reason when there is one. */
  readonly failure?: string;
  readonly attempts: readonly AttemptRecord[];
}

export type ToWorker =
  | { readonly type: 'setup'; readonly spec: WorkerSpec }
  | { readonly type: 'go' };

export type ToParent =
  | { readonly type: 'ready' }
  /** The contestant cannot run here (the Redis store not there yet, say). */
  | { readonly type: 'unavailable'; readonly reason: string }
  | {
      readonly type: 'done';
      readonly calls: readonly CallRecord[];
      readonly breakerOpenings: number;
    }
  /** It let go of the run's contestant (Redis connections, timers): ready for the next setup. */
  | { readonly type: 'closed' }
  | { readonly type: 'error'; readonly message: string };
