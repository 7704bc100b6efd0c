import { createPacer, type Pacer, type PacingSettings } from '../../src/load-control/pacer';

/** A pacer whose state no other client shares, as with the memory store: changes made at once. */
export function soloPacer(
  settings: PacingSettings,
  random: () => number,
  probeEveryMs: number,
): Pacer {
  const p = createPacer(
    { pacing: settings, random, probeEveryMs },
    {
      change: (make) => make(p.shared),
      share: () => 1,
    },
  );
  return p;
}
