import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createServer, Socket } from 'node:net';

/**
 * A real redis-server of our own, for the tests, the bench and the demo: started on a free port
 * of 127.0.0.1 with nothing saved to disk, stopped (and restarted, for fault tests) on demand.
 */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Stops the server (SIGKILL: as abrupt as a crash); `start` brings it back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

export const REDIS_MISSING =
  'redis-server was not found on PATH: the Redis suites were skipped. ' +
  'Install it (Debian/Ubuntu: `apt-get install -y redis-server`; macOS: `brew install redis`) to run them.';

/** Whether a redis-server binary is on PATH. */
export function hasRedisServer(): boolean {
  const probe = spawnSync('redis-server', ['--version'], { stdio: 'ignore' });
  return probe.error === undefined && probe.status === 0;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.connect(port, '127.0.0.1');
  });
}

export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    const deadline = Date.now() + 10_000;
    while (!(await accepts(port))) {
      if (Date.now() > deadline) throw new Error(`redis-server did not start on port ${port}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const stop = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  await start();
  return { port, url: `redis://127.0.0.1:${port}`, stop, start };
}
