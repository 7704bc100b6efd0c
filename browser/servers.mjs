// The two loopback origins of the browser test: the page's own (origin A) and a cross-origin
// API (origin B) whose behaviour each request picks through its query string.
import { createServer } from 'node:http';

function listen(handler) {
  const server = createServer(handler);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({
        origin: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/** Origin A: serves the test page and its bundle, nothing else. */
export function startPageServer(files) {
  return listen((request, response) => {
    const file = files[new URL(request.url, 'http://page').pathname];
    if (!file) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'Content-Type': file.type, 'Cache-Control': 'no-store' });
    response.end(file.body);
  });
}

/**
 * Origin B: records every request it receives, preflights included. Each path is one scenario;
 * its query string says how to answer:
 * - `fail=N`: the first N requests (not counting preflights) get a 503;
 * - `retryAfter=S`: those 503s carry `Retry-After: S`;
 * - `exposeRetryAfter=0`: CORS does not expose `Retry-After`, so the page cannot read it;
 * - `allowKey=0`: the preflight does not allow the `Idempotency-Key` request header.
 */
export async function startApiServer(pageOrigin) {
  const requests = [];
  const attemptsByPath = new Map();

  const server = await listen((request, response) => {
    const url = new URL(request.url, 'http://api');
    const query = url.searchParams;
    const allowedHeaders = ['Content-Type'];
    if (query.get('allowKey') !== '0') allowedHeaders.push('Idempotency-Key');
    const cors = {
      'Access-Control-Allow-Origin': pageOrigin,
      ...(query.get('exposeRetryAfter') === '0'
        ? {}
        : { 'Access-Control-Expose-Headers': 'Retry-After' }),
    };

    requests.push({
      method: request.method,
      path: url.pathname,
      idempotencyKey: request.headers['idempotency-key'],
      requestedHeaders: request.headers['access-control-request-headers'],
      at: performance.now(),
    });

    if (request.method === 'OPTIONS') {
      response.writeHead(204, {
        ...cors,
        'Access-Control-Allow-Methods': 'GET, POST, PUT, PATCH, DELETE',
        'Access-Control-Allow-Headers': allowedHeaders.join(', '),
      });
      response.end();
      return;
    }

    // Drain the body before answering, so the connection can be reused for the retry.
    request.resume();
    request.on('end', () => {
      const attempt = (attemptsByPath.get(url.pathname) ?? 0) + 1;
      attemptsByPath.set(url.pathname, attempt);
      const failing = attempt <= Number(query.get('fail') ?? 0);
      const headers = { ...cors, 'Content-Type': 'application/json' };
      if (failing && query.has('retryAfter')) headers['Retry-After'] = query.get('retryAfter');
      response.writeHead(failing ? 503 : 200, headers);
      response.end(JSON.stringify({ attempt }));
    });
  });

  return {
    ...server,
    /** The requests received on `path` so far, in arrival order. */
    requestsTo: (path) => requests.filter((entry) => entry.path === path),
  };
}
