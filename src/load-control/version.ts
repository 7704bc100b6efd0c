/**
 * The version of a shared scope counts the changes a remote store kept. It counts round, modulo
 * `VERSIONS` (2^48): a version read from a store (which anyone may have written) can be anything
 * below it, and counting on from there never leaves the safe integers, so no value ends sharing.
 */
export const VERSIONS = 2 ** 48;

export const nextVersion = (version: number): number => (version + 1) % VERSIONS;

/** Whether version `a` comes after `b`: less than half the span ahead (RFC 1982's serial numbers). */
export function isNewer(a: number, b: number): boolean {
  const ahead = (a - b + VERSIONS) % VERSIONS;
  return ahead > 0 && ahead < VERSIONS / 2;
}

/**
 * A state this many versions behind the one known, or more, is no late message (they are late by
 * the few changes made meanwhile): the store started the scope afresh (its key expired), or the
 * version known was never the store's (a hostile one). It replaces the one known.
 */
export const RESTART_LAG = 1000;

/** Whether a state of version `a` replaces the one known, of version `b`. */
export function supersedes(a: number, b: number): boolean {
  const ahead = (a - b + VERSIONS) % VERSIONS;
  return ahead > 0 && (ahead < VERSIONS / 2 || VERSIONS - ahead >= RESTART_LAG);
}

/** Whether `value` is a version: a whole number in [0, VERSIONS). */
export const isVersion = (value: unknown): value is number =>
  Number.isInteger(value) && (value as number) >= 0 && (value as number) < VERSIONS;
