// What every consumer entry (require, import, Jest) checks, given the package it loaded: a keyed
// POST through a 503 is retried once, against a loopback server, with the same key both times.
const assert = require('node:assert/strict');
const http = require('node:http');

module.exports = async function smoke({ attachRetry, retryInterceptor }, axios) {
  assert.equal(typeof attachRetry, 'function', 'attachRetry is exported');
  assert.equal(typeof retryInterceptor, 'function', 'retryInterceptor is exported');

  const keys = [];
  const server = http.createServer((request, response) => {
    keys.push(request.headers['idempotency-key']);
    request.resume();
    request.on('end', () => response.writeHead(keys.length === 1 ? 503 : 200).end('{}'));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const client = axios.create({ baseURL: `http://127.0.0.1:${server.address().port}` });
    const detach = attachRetry(client, { baseDelayMs: 1, idempotencyKey: true });
    assert.equal(typeof detach, 'function', 'attachRetry returns its eject function');
    const response = await client.post('/payments', { amount: 1 });
    assert.equal(response.status, 200);
    assert.equal(response.config.retryState.retryCount, 1, 'retried once');
    assert.equal(keys.length, 2, 'the server saw two attempts');
    assert.match(keys[0], /^[0-9a-f-]{36}$/, 'the first attempt carried a uuid key');
    assert.equal(keys[1], keys[0], 'the retry carried the same key');
  } finally {
    server.close();
  }
};
