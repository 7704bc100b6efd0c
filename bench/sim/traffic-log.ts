/** What the simulated server saw: one entry per request that reached it (refused connections too). */
export interface Arrival {
  /** Virtual milliseconds since the scenario started. */
  readonly atMs: number;
  /** The HTTP status answered, or the axios error code of a connection failure. */
  readonly outcome: number | 'ECONNREFUSED' | 'ECONNRESET' | 'ECONNABORTED' | 'ERR_CANCELED';
}

export class TrafficLog {
  readonly arrivals: Arrival[] = [];

  record(arrival: Arrival): void {
    this.arrivals.push(arrival);
  }

  count(outcome: Arrival['outcome']): number {
    return this.arrivals.filter((arrival) => arrival.outcome === outcome).length;
  }

  /** Arrivals per bin of `binMs`, from 0 up to `untilMs` (or the last arrival). */
  histogram(binMs: number, untilMs?: number): number[] {
    const lastMs = untilMs ?? Math.max(0, ...this.arrivals.map((arrival) => arrival.atMs));
    const bins = new Array<number>(Math.floor(lastMs / binMs) + 1).fill(0);
    for (const { atMs } of this.arrivals) {
      const bin = Math.floor(atMs / binMs);
      if (bin < bins.length) bins[bin] = (bins[bin] ?? 0) + 1;
    }
    return bins;
  }
}
