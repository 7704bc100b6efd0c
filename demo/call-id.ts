import type { IncomingMessage } from 'node:http';

/** The header a demo call carries on every attempt, so the server can count attempts per call. */
export const callIdHeader = 'x-demo-call';

export function callIdOf(request: IncomingMessage): string {
  return String(request.headers[callIdHeader] ?? 'unknown');
}

/** Counts the attempts the server has seen for each call. */
export class AttemptCounter {
  private readonly counts = new Map<string, number>();

  /** Records one more attempt of this request's call and returns its number (1 for the first). */
  next(request: IncomingMessage): number {
    const id = callIdOf(request);
    const count = (this.counts.get(id) ?? 0) + 1;
    this.counts.set(id, count);
    return count;
  }
}
