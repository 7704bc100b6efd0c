import type { StoreFailure, StoreHealth } from '../load-control/store';
import { publish } from '../runtime/metrics';

/**
 * How sharing goes: each command's outcome is counted here, `health()` reads it (and
 * `loadControlOf` shows it), and `axios-safe-retry:store` on `diagnostics_channel` hears
 * `{ prefix, sharing, failure, failures, lastSyncAt }` when sharing stops (the first failure after
 * an answer, or before any; again when the failure changes kind) and when it resumes (the first
 * answer after a failure).
 */
export interface Health {
  answered(): void;
  failed(failure: StoreFailure): void;
  health(): StoreHealth;
}

/** The kind of a Redis error: a password or ACL refused, a key of the wrong type, or else. */
export function failureOf(error: unknown): StoreFailure {
  const text = String((error as { message?: unknown } | undefined)?.message ?? error);
  if (text.includes('WRONGTYPE')) return 'wrong-type';
  return /NOAUTH|WRONGPASS|NOPERM|AUTH/.test(text) ? 'auth' : 'error';
}

export function createHealth(prefix: string): Health {
  let connected: boolean | undefined;
  let lastSyncAt: number | undefined;
  let failures = 0;
  let lastFailure: StoreFailure | undefined;
  const tell = (sharing: boolean) =>
    publish('store', () => ({ prefix, sharing, failure: lastFailure, failures, lastSyncAt }));
  return {
    answered() {
      lastSyncAt = Date.now();
      if (connected === false) tell(true);
      connected = true;
    },
    failed(failure) {
      failures++;
      const named = failure !== lastFailure;
      lastFailure = failure;
      if (connected !== false || named) tell(false);
      connected = false;
    },
    health: () => ({ connected: !!connected, lastSyncAt, failures, lastFailure }),
  };
}
