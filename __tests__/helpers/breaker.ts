import {
  type BreakerParts,
  type CircuitBreaker,
  createCircuitBreaker,
} from '../../src/load-control/circuit-breaker';

/**
 * A breaker whose state no other client shares, as with the memory store: its changes are made
 * on its own state at once, and its probe's lease is always given.
 */
export function soloBreaker(parts: Omit<BreakerParts, 'sharing'>): CircuitBreaker {
  const b = createCircuitBreaker({
    ...parts,
    sharing: {
      change: (make) => make(b.shared),
      lease: () => true,
      unlease: () => {},
      wake: () => {},
      share: () => 1,
    },
  });
  return b;
}
