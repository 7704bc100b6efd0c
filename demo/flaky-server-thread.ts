/**
 * A FlakyServer (answering 200 to everything) in a worker thread: serving requests and listening
 * again on time then do not wait on the event loop of the hundreds of clients in the main thread.
 */
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { FlakyServer } from './flaky-server';

type Command =
  | { readonly kind: 'blip'; readonly durationMs: number }
  | { readonly kind: 'collect' }
  | { readonly kind: 'close' };

/** Messages from the worker; times are epoch milliseconds (`performance.timeOrigin + now()`), shared by both threads. */
type Report =
  | { readonly kind: 'ready'; readonly url: string; readonly address: string }
  | { readonly kind: 'down'; readonly droppedConnections: number; readonly at: number }
  | { readonly kind: 'up'; readonly at: number }
  | { readonly kind: 'failed'; readonly error: string }
  | { readonly kind: 'collected'; readonly arrivals: readonly number[] }
  | { readonly kind: 'closed'; readonly arrivals: readonly number[] };

export interface Blip {
  readonly droppedConnections: number;
  /** When the server stopped listening, in this thread's `performance.now()` ms. */
  readonly downAt: number;
  /** When it listened again on the same port; rejects if it could not. */
  readonly backUpAt: Promise<number>;
}

export interface FlakyServerThread {
  readonly url: string;
  readonly address: string;
  /** Stops listening and drops open connections now, then listens again after `durationMs`. */
  blip(durationMs: number): Promise<Blip>;
  /**
   * Returns the arrival times recorded since the start (or the last call), in this thread's
   * `performance.now()` ms, and forgets them: one server can serve several runs in turn.
   */
  collect(): Promise<number[]>;
  /** Stops the server and the thread; returns the arrival times not collected yet, in this thread's `performance.now()` ms. */
  close(): Promise<number[]>;
}

const fromEpoch = (epoch: number): number => epoch - performance.timeOrigin;
const toEpoch = (time: number): number => time + performance.timeOrigin;

export async function startFlakyServerThread(): Promise<FlakyServerThread> {
  // A worker is a new isolate: ts-node must be registered again there to load this file.
  const worker = new Worker(
    `require(${JSON.stringify(require.resolve('ts-node'))}).register({ transpileOnly: true });` +
      `require(${JSON.stringify(__filename)});`,
    { eval: true },
  );
  const next = <Kind extends Report['kind']>(
    kind: Kind,
  ): Promise<Extract<Report, { kind: Kind }>> =>
    new Promise((resolve, reject) => {
      const onMessage = (report: Report): void => {
        if (report.kind !== kind && report.kind !== 'failed') return;
        worker.off('message', onMessage);
        worker.off('error', reject);
        if (report.kind === 'failed') reject(new Error(report.error));
        else resolve(report as Extract<Report, { kind: Kind }>);
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
    });
  const send = (command: Command): void => worker.postMessage(command);

  const { url, address } = await next('ready');
  return {
    url,
    address,
    async blip(durationMs) {
      const down = next('down');
      const up = next('up');
      up.catch(() => undefined); // a failure to come back is reported through `backUpAt`
      send({ kind: 'blip', durationMs });
      const { droppedConnections, at } = await down;
      return {
        droppedConnections,
        downAt: fromEpoch(at),
        backUpAt: up.then((report) => fromEpoch(report.at)),
      };
    },
    async collect() {
      const collected = next('collected');
      send({ kind: 'collect' });
      const { arrivals } = await collected;
      return arrivals.map(fromEpoch);
    },
    async close() {
      const closed = next('closed');
      send({ kind: 'close' });
      const { arrivals } = await closed;
      await worker.terminate();
      return arrivals.map(fromEpoch);
    },
  };
}

async function serveInWorker(port: NonNullable<typeof parentPort>): Promise<void> {
  const report = (message: Report): void => port.postMessage(message);
  const server = await FlakyServer.start((_request, response) => response.end('{"ok":true}'));
  port.on('message', async (command: Command) => {
    try {
      if (command.kind === 'collect' || command.kind === 'close') {
        if (command.kind === 'close') await server.close();
        const arrivals = server.arrivals.splice(0).map(toEpoch);
        report(
          command.kind === 'close' ? { kind: 'closed', arrivals } : { kind: 'collected', arrivals },
        );
        return;
      }
      const downAt = performance.now();
      report({ kind: 'down', droppedConnections: await server.goDown(), at: toEpoch(downAt) });
      await new Promise((resolve) =>
        setTimeout(resolve, downAt + command.durationMs - performance.now()),
      );
      await server.comeBack();
      report({ kind: 'up', at: toEpoch(performance.now()) });
    } catch (error) {
      report({ kind: 'failed', error: error instanceof Error ? error.message : String(error) });
    }
  });
  report({ kind: 'ready', url: server.url, address: server.address });
}

if (!isMainThread && parentPort) void serveInWorker(parentPort);
