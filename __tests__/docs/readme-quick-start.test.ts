// The README's quick start, as written there, run against a loopback server: it must define
// everything it uses, and say that it is an ES module (it uses top-level await).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import axios from 'axios';
import { attachRetry } from '../../src';
import { type LoopbackServer, startServer } from '../helpers/loopback-server';

const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
const section = /## Quick start\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? '';
const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? '';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

test('says that it is an ES module, for its top-level await', () => {
  expect(code).toMatch(/^await /m);
  expect(section.slice(0, section.indexOf('```'))).toMatch(/ES module.*top-level `await`/s);
});

test('runs as written, against a loopback server', async () => {
  server = await startServer((_arrival, res) => res.end('ok'));
  const body = code
    .replace(/^import .*$/gm, '')
    .replace("'https://api.example.com'", JSON.stringify(server.url));
  // An async function body runs the top-level awaits; the imports are passed in.
  const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
    ...args: string[]
  ) => (...values: unknown[]) => Promise<void>;
  await new AsyncFunction('axios', 'attachRetry', body)(axios, attachRetry);
  expect(server.arrivals.map((a) => `${a.method} ${a.url}`)).toEqual([
    'GET /items',
    'GET /health',
    'POST /charges',
  ]);
  expect(server.arrivals[2]!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
});
