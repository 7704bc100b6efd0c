import http from 'node:http';
import type { AddressInfo } from 'node:net';
import axios, { type AxiosInstance } from 'axios';
import express from 'express';
import { attachRetry } from '../../src';
import { retryLayer } from '../../src/server';

// Issue 23: `app.use(retryLayer())` alone is enough. A handler whose call below gave up on
// overload answers a 5xx however it likes, and the answer carries `Stripe-Should-Retry: false`;
// any other answer is left alone. Real servers on 127.0.0.1: express 5, plain node:http, Fastify.

const servers: http.Server[] = [];
const closers: (() => Promise<unknown>)[] = [];

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    ),
  );
});

/** The dependency: answers `status` to everything (503: overloaded). */
async function dependency(status: number): Promise<AxiosInstance> {
  const url = await listen(
    http.createServer((_req, res) => {
      res.statusCode = status;
      res.end('{}');
    }),
  );
  const client = axios.create({ baseURL: url });
  attachRetry(client, { baseDelayMs: 1 });
  return client;
}

/** What the layer answered its caller: status and the "don't retry" header. */
async function ask(url: string): Promise<{ status: number; shouldRetry: unknown; body: string }> {
  const response = await axios.get(url, { validateStatus: () => true, responseType: 'text' });
  return {
    status: response.status,
    shouldRetry: response.headers['stripe-should-retry'],
    body: String(response.data),
  };
}

type Answer = (res: express.Response, next: express.NextFunction, error: unknown) => void;

/** An express 5 layer with only `app.use(retryLayer())`: calls below, then answers as told. */
async function expressLayer(below: AxiosInstance, answer: Answer): Promise<string> {
  const app = express();
  app.use(retryLayer());
  app.get('/', async (_req, res, next) => {
    try {
      await below.get('/');
      res.json({ ok: true });
    } catch (error) {
      answer(res, next, error);
    }
  });
  return listen(http.createServer(app));
}

describe('express 5, app.use(retryLayer()) alone: a 5xx after a call that gave up is marked', () => {
  it.each<[string, Answer]>([
    ['res.status(502).json(…)', (res) => res.status(502).json({ error: 'bad gateway' })],
    ['res.sendStatus(500)', (res) => res.sendStatus(500)],
    ['res.writeHead(503).end()', (res) => res.writeHead(503).end()],
    [
      'res.writeHead(502, headers)',
      (res) => res.writeHead(502, { 'content-type': 'text/plain' }).end('x'),
    ],
    [
      'res.writeHead(502, message, raw headers)',
      (res) => res.writeHead(502, 'Bad Gateway', ['content-type', 'text/plain']).end('x'),
    ],
    [
      'res.statusCode = 502, then res.end()',
      (res) => {
        res.statusCode = 502;
        res.end();
      },
    ],
    [
      'a streamed body: res.statusCode = 500, res.write() × 3, res.end()',
      (res) => {
        res.statusCode = 500;
        res.write('a');
        res.write('b');
        res.write('c');
        res.end();
      },
    ],
    ["express's default error page: next(error)", (_res, next, error) => next(error)],
  ])('%s', async (_, answer) => {
    const url = await expressLayer(await dependency(503), answer);
    const answered = await ask(url);
    expect(answered.status).toBeGreaterThanOrEqual(500);
    expect(answered.shouldRetry).toBe('false');
  });

  it('the streamed body arrives whole', async () => {
    const url = await expressLayer(await dependency(503), (res) => {
      res.statusCode = 500;
      for (const chunk of ['a', 'b', 'c']) res.write(chunk);
      res.end('d');
    });
    expect(await ask(url)).toMatchObject({ status: 500, shouldRetry: 'false', body: 'abcd' });
  });

  it('with retryLayer.errorHandler() as well: its 503, marked once', async () => {
    const below = await dependency(503);
    const app = express();
    app.use(retryLayer());
    app.get('/', async () => {
      await below.get('/');
    });
    app.use(retryLayer.errorHandler());
    const answered = await ask(await listen(http.createServer(app)));
    expect(answered).toMatchObject({ status: 503, shouldRetry: 'false' });
    expect(JSON.parse(answered.body)).toEqual({ error: 'upstream gave up' });
  });
});

describe('what is left alone', () => {
  it('a 2xx after a call that gave up (a fallback)', async () => {
    const url = await expressLayer(await dependency(503), (res) => res.json({ cached: true }));
    expect(await ask(url)).toMatchObject({ status: 200, shouldRetry: undefined });
  });

  it('a 4xx the handler chose', async () => {
    const url = await expressLayer(await dependency(503), (res) => res.status(409).end());
    expect(await ask(url)).toMatchObject({ status: 409, shouldRetry: undefined });
  });

  it('a 5xx that no overloaded call led to: a bug in the handler', async () => {
    const app = express();
    app.use(retryLayer());
    app.get('/', () => {
      throw new Error('a bug');
    });
    expect(await ask(await listen(http.createServer(app)))).toMatchObject({
      status: 500,
      shouldRetry: undefined,
    });
  });

  it('a 5xx after a call that failed with nothing retried (a 404 below)', async () => {
    const url = await expressLayer(await dependency(404), (res) => res.status(502).end());
    expect(await ask(url)).toMatchObject({ status: 502, shouldRetry: undefined });
  });

  it('but a 5xx after a call that retried a 500 below and used up its retries is marked: retried from above, the 500 would be multiplied', async () => {
    const url = await expressLayer(await dependency(500), (res) => res.status(502).end());
    expect(await ask(url)).toMatchObject({ status: 502, shouldRetry: 'false' });
  });

  it('a 5xx after a call that succeeded', async () => {
    const below = await dependency(200);
    const app = express();
    app.use(retryLayer());
    app.get('/', async (_req, res) => {
      await below.get('/');
      res.status(500).end();
    });
    expect(await ask(await listen(http.createServer(app)))).toMatchObject({
      status: 500,
      shouldRetry: undefined,
    });
  });

  it('a 5xx after a call that gave up but ignores the layer (propagate: false)', async () => {
    const below = await dependency(503);
    const app = express();
    app.use(retryLayer());
    app.get('/', async (_req, res) => {
      await below.get('/', { retry: { propagate: false } }).catch(() => undefined);
      res.status(502).end();
    });
    expect(await ask(await listen(http.createServer(app)))).toMatchObject({
      status: 502,
      shouldRetry: undefined,
    });
  });

  it("a handler's own Stripe-Should-Retry", async () => {
    const url = await expressLayer(await dependency(503), (res) =>
      res.set('Stripe-Should-Retry', 'true').status(503).end(),
    );
    expect(await ask(url)).toMatchObject({ status: 503, shouldRetry: 'true' });
  });

  it('each request on its own: a request without an overloaded call is not marked by another', async () => {
    const overloaded = await dependency(503);
    const fine = await dependency(200);
    const app = express();
    app.use(retryLayer());
    app.get('/:which', async (req, res) => {
      await (req.params.which === 'bad' ? overloaded : fine).get('/').catch(() => undefined);
      res.status(502).end();
    });
    const url = await listen(http.createServer(app));
    const [bad, good] = await Promise.all([ask(`${url}/bad`), ask(`${url}/good`)]);
    expect(bad.shouldRetry).toBe('false');
    expect(good.shouldRetry).toBeUndefined();
  });
});

describe('plain node:http and Fastify', () => {
  it('node:http: layer(req, res, () => handler(req, res)), the handler answers 502 itself', async () => {
    const below = await dependency(503);
    const layer = retryLayer();
    const handler = async (_req: http.IncomingMessage, res: http.ServerResponse) => {
      try {
        await below.get('/');
        res.end('ok');
      } catch {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end('bad gateway');
      }
    };
    const url = await listen(
      http.createServer((req, res) => layer(req, res, () => handler(req, res))),
    );
    expect(await ask(url)).toMatchObject({
      status: 502,
      shouldRetry: 'false',
      body: 'bad gateway',
    });
  });

  // Fastify 5 declares Node ≥ 20.
  const onFastify = Number(process.versions.node.split('.')[0]) >= 20 ? it : it.skip;
  onFastify('Fastify: one hook on reply.raw, the handler answers reply.code(502)', async () => {
    // Loaded here, not imported at the top: Node 18 (the matrix) skips this test.
    const fastify = require('fastify') as typeof import('fastify').default;
    const below = await dependency(503);
    const app = fastify();
    const layer = retryLayer();
    app.addHook('onRequest', (req, reply, done) => layer(req.raw, reply.raw, done));
    app.get('/', async (_req, reply) => {
      try {
        return (await below.get('/')).data;
      } catch {
        return reply.code(502).send({ error: 'bad gateway' });
      }
    });
    app.get('/bug', async (_req, reply) => reply.code(500).send({ error: 'a bug' }));
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => app.close());
    expect(await ask(url)).toMatchObject({ status: 502, shouldRetry: 'false' });
    expect(await ask(`${url}/bug`)).toMatchObject({ status: 500, shouldRetry: undefined });
  });
});
