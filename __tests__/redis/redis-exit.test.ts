import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { type RedisServer, startRedisServer } from '../../support/redis-server';
import { describeRedis, LIBRARIES, type Library } from '../helpers/redis';

// Issue 22: `store.close()` is not needed to exit. A process that quits its Redis client without
// closing the store exits within a second of the quit: the store closes its own subscriber
// connection when the client given ends.

jest.setTimeout(60_000);

const FIXTURE = join(__dirname, 'fixtures', 'quit-without-close.ts');

/** Runs the fixture: the ms from its quit to its exit (Infinity: still running after 10 s). */
function exitAfterQuit(library: Library, url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', FIXTURE, library, url],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let quitAt: number | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      const match = /quit (\d+)/.exec(chunk.toString());
      if (match) quitAt = Number(match[1]);
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve(Infinity);
    }, 20_000);
    child.on('error', reject);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve(quitAt === undefined ? Number.NaN : Date.now() - quitAt);
    });
  });
}

describeRedis('a process that quits its Redis client without store.close()', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  test.each(LIBRARIES)('with %s, exits within 1 s of the quit', async (library) => {
    const ms = await exitAfterQuit(library, server.url);
    expect(ms).toBeLessThan(1000);
  });
});
