import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Arrival {
  readonly at: number;
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

export interface LoopbackServer {
  readonly url: string;
  readonly port: number;
  readonly arrivals: Arrival[];
  /** Stops listening (new connections are refused) and drops open ones. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  restart(): Promise<void>;
}

type Handler = (arrival: Arrival, res: http.ServerResponse, req: http.IncomingMessage) => void;

/** A real HTTP server on 127.0.0.1 that records every request it receives, body included. */
export async function startServer(handle: Handler): Promise<LoopbackServer> {
  const arrivals: Arrival[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const arrival = {
        at: Date.now(),
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      };
      arrivals.push(arrival);
      handle(arrival, res, req);
    });
  });
  const listen = (port: number) =>
    new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  await listen(0);
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    arrivals,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
    restart: () => listen(port),
  };
}
