// A server that sends no rate-limit signal and only gets slower (issue 24), shared by the tests,
// the benchmark and the demo: node:http on 127.0.0.1 with `slots` workers and a FIFO queue. Each
// request takes `serviceMs` of a worker; work whose client has gone is still done (it is
// wasted), as most servers do. Optionally it sheds with a bare 503 when `shedAbove` are queued,
// as Envoy, HAProxy and many gateways do. Real time, real sockets.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface QueueingServerOptions {
  /** Workers: requests served at once. */
  slots: number;
  /** Time each request takes of a worker. */
  readonly serviceMs: number;
  /** With this many queued, a new request is answered 503 at once (no `Retry-After`). */
  readonly shedAbove?: number;
}

export interface QueueingStats {
  /** Requests served to a client still waiting for the answer. */
  served: number;
  /** Requests served after their client had gone (timed out, aborted). */
  wasted: number;
  /** Requests answered 503 at once, unserved. */
  shed: number;
  /** The most requests queued (waiting for a worker) at once. */
  mostQueued: number;
  /** The most requests in the server (queued or served) at once. */
  mostInside: number;
}

export interface QueueingServer {
  readonly url: string;
  readonly stats: QueueingStats;
  /** Requests in the server now: queued, and served. */
  inside(): { queued: number; serving: number };
  /** Changes the number of workers (capacity that drops mid-job). */
  setSlots(slots: number): void;
  close(): Promise<void>;
}

interface Job {
  readonly res: http.ServerResponse;
  gone: boolean;
}

export async function startQueueingServer(options: QueueingServerOptions): Promise<QueueingServer> {
  let { slots } = options;
  const queue: Job[] = [];
  let serving = 0;
  const stats: QueueingStats = { served: 0, wasted: 0, shed: 0, mostQueued: 0, mostInside: 0 };
  const pump = (): void => {
    while (serving < slots && queue.length > 0) {
      const job = queue.shift() as Job;
      serving++;
      setTimeout(() => {
        serving--;
        if (job.gone) stats.wasted++;
        else {
          stats.served++;
          job.res.end('ok');
        }
        pump();
      }, options.serviceMs);
    }
  };
  const server = http.createServer((req, res) => {
    req.resume();
    if (options.shedAbove !== undefined && queue.length >= options.shedAbove) {
      stats.shed++;
      res.writeHead(503).end('overloaded');
      return;
    }
    const job: Job = { res, gone: false };
    res.on('close', () => {
      if (!res.writableFinished) job.gone = true;
    });
    queue.push(job);
    pump();
    stats.mostQueued = Math.max(stats.mostQueued, queue.length);
    stats.mostInside = Math.max(stats.mostInside, queue.length + serving);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    inside: () => ({ queued: queue.length, serving }),
    setSlots(n) {
      slots = n;
      pump();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
