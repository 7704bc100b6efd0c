import { type LoopbackServer, startServer } from './loopback-server';

export interface LeakyBucketOptions {
  /** Requests per second the bucket drains (nginx `rate=20r/s`). */
  readonly ratePerSecond: number;
  /** Requests the bucket holds above the rate (nginx `burst=5`). */
  readonly burst: number;
  /** The status of a rejected request: nginx answers 503 unless `limit_req_status` says 429. */
  readonly rejectStatus: 429 | 503;
  /** The limiter's clock in milliseconds (`performance.now` unless given). */
  readonly now?: () => number;
}

export interface LeakyBucketServer extends LoopbackServer {
  /** Each request's fate, in arrival order. */
  readonly answers: Array<{
    readonly at: number;
    readonly status: number;
    readonly delayMs: number;
  }>;
}

/**
 * A leaky-bucket limiter on 127.0.0.1, as nginx's `limit_req zone=… burst=N` runs it (no
 * `nodelay`): each request adds one to the excess, which drains at `ratePerSecond`; a request
 * that would take the excess above `burst` is rejected at once (with no headers, as nginx does);
 * one within the burst is delayed until its turn (excess / rate), then served. The state is
 * nginx's: `excess` in requests and `last`, the time of the last request let in.
 */
export async function startLeakyBucket(options: LeakyBucketOptions): Promise<LeakyBucketServer> {
  const { ratePerSecond, burst, rejectStatus, now: clock = () => performance.now() } = options;
  const answers: Array<{ at: number; status: number; delayMs: number }> = [];
  const timers = new Set<NodeJS.Timeout>();
  let excess = 0;
  let last: number | undefined;
  const server = await startServer((arrival, res) => {
    const now = clock();
    let next = 0;
    if (last !== undefined) {
      next = Math.max(0, excess - (ratePerSecond * (now - last)) / 1000 + 1);
      if (next > burst) {
        answers.push({ at: arrival.at, status: rejectStatus, delayMs: 0 });
        res.writeHead(rejectStatus, { 'Content-Type': 'text/html' }).end('limited');
        return;
      }
    }
    excess = next;
    last = now;
    const delayMs = (excess * 1000) / ratePerSecond;
    answers.push({ at: arrival.at, status: 200, delayMs });
    if (delayMs <= 0) {
      res.end('ok');
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      res.end('ok');
    }, delayMs);
    timers.add(timer);
  });
  return {
    ...server,
    answers,
    stop: () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      return server.stop();
    },
  };
}
