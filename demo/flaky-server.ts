import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type RequestHandler = (request: IncomingMessage, response: ServerResponse) => void;

const host = '127.0.0.1';
/** How long `comeBack` keeps trying to listen again on its port before it gives up. */
const relistenPatienceMs = 2000;
const relistenPauseMs = 50;

/**
 * A loopback HTTP server that records when each request arrives and can refuse connections for a
 * while, as during a failover: it stops listening, then listens again on the same port.
 */
export class FlakyServer {
  /** Arrival time of every request, in `performance.now()` milliseconds. */
  readonly arrivals: number[] = [];
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private port = 0;
  private up = false;

  private constructor(handler: RequestHandler) {
    this.server = createServer((request, response) => {
      this.arrivals.push(performance.now());
      handler(request, response);
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  /** Listens on an ephemeral port of 127.0.0.1. */
  static async start(handler: RequestHandler): Promise<FlakyServer> {
    const flaky = new FlakyServer(handler);
    await flaky.listen(0);
    flaky.port = (flaky.server.address() as AddressInfo).port;
    return flaky;
  }

  get url(): string {
    return `http://${host}:${this.port}`;
  }

  get address(): string {
    return `${host}:${this.port}`;
  }

  /**
   * Stops listening, so new connections are refused, and drops every open connection (idle
   * keep-alive ones and those with a request in flight). Returns how many it dropped.
   */
  async goDown(): Promise<number> {
    const dropped = this.sockets.size;
    this.up = false;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
    return dropped;
  }

  /**
   * Listens again on the same port. Retries briefly if the port is still taken, and throws if it
   * stays taken: the demo then reports that rather than pretending.
   */
  async comeBack(): Promise<void> {
    const giveUpAt = performance.now() + relistenPatienceMs;
    for (;;) {
      try {
        await this.listen(this.port);
        return;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'EADDRINUSE' || performance.now() > giveUpAt) {
          throw new Error(`could not listen again on ${this.address}: ${code ?? String(error)}`);
        }
        await new Promise((resolve) => setTimeout(resolve, relistenPauseMs));
      }
    }
  }

  /** Stops the server and drops its connections, so nothing keeps the process alive. */
  async close(): Promise<void> {
    if (this.up) await this.goDown();
  }

  private listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const onError = (error: Error): void => {
        this.server.off('listening', onListening);
        reject(error);
      };
      const onListening = (): void => {
        this.server.off('error', onError);
        this.up = true;
        resolve();
      };
      this.server.once('error', onError);
      this.server.once('listening', onListening);
      this.server.listen({ port, host });
    });
  }
}
