/** What the simulated server saw: one entry per request that reached it (refused connections too). */
export interface Arrival {
  /** Virtual milliseconds since the scenario started. */
  readonly atMs: number;
  /** The HTTP status answered, or the axios error code of a connection failure. */
  readonly outcome: number | 'ECONNREFUSED' | 'ECONNRESET' | 'ECONNABORTED' | 'ERR_CANCELED';
  /** The request path (no query): the server models that route by path tell routes apart by it. */
  readonly path?: string;
  /** The call it belongs to (the bench's `x-bench-call` header), if the request carried one. */
  readonly callId?: number;
}

export class TrafficLog {
  readonly arrivals: Arrival[] = [];

  record(arrival: Arrival): void {
    this.arrivals.push(arrival);
  }

  count(outcome: Arrival['outcome']): number {
    return this.arrivals.filter((arrival) => arrival.outcome === outcome).length;
  }

  /** How many requests to `path` were answered `outcome`. */
  countOn(path: string, outcome: Arrival['outcome']): number {
    return this.arrivals.filter((arrival) => arrival.path === path && arrival.outcome === outcome)
      .length;
  }

  /** How many distinct calls met `outcome` at least once. */
  callsThatMet(outcome: Arrival['outcome']): number {
    const calls = new Set<number | undefined>();
    for (const arrival of this.arrivals) if (arrival.outcome === outcome) calls.add(arrival.callId);
    return calls.size;
  }

  /** Arrivals per bin of `binMs`, from 0 up to `untilMs` (or the last arrival). */
  histogram(binMs: number, untilMs?: number): number[] {
    let lastMs = untilMs ?? 0;
    if (untilMs === undefined)
      for (const { atMs } of this.arrivals) lastMs = Math.max(lastMs, atMs);
    const bins = new Array<number>(Math.floor(lastMs / binMs) + 1).fill(0);
    for (const { atMs } of this.arrivals) {
      const bin = Math.floor(atMs / binMs);
      if (bin < bins.length) bins[bin] = (bins[bin] ?? 0) + 1;
    }
    return bins;
  }
}
