// What every consumer entry checks of axios-safe-retry/server, given the server entry and the
// main entry it loaded (from the same build or not: they meet on a Symbol.for registry): a call
// made while a request is handled under retryLayer carries the attempt and deadline headers.
const assert = require('node:assert/strict');
const http = require('node:http');

const listen = (server) =>
  new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}`)),
  );

module.exports = async function smokeServer({ retryLayer }, { attachRetry }, axios) {
  assert.equal(typeof retryLayer, 'function', 'retryLayer is exported');
  assert.equal(typeof retryLayer.errorHandler, 'function', 'retryLayer.errorHandler is exported');

  const seen = [];
  const bottom = http.createServer((request, response) => {
    seen.push(request.headers);
    response.end('{}');
  });
  const client = axios.create({ baseURL: await listen(bottom) });
  const detach = attachRetry(client);
  const layer = retryLayer();
  const front = http.createServer((request, response) =>
    layer(request, response, () =>
      client.get('/').then(
        () => response.end('ok'),
        () => response.writeHead(500).end(),
      ),
    ),
  );
  try {
    const url = await listen(front);
    await axios.get(url, { headers: { 'request-deadline-ms': '5000' } });
    assert.equal(seen.length, 1);
    assert.equal(seen[0]['retry-attempt'], '1', 'the call carried its attempt number');
    const left = Number(seen[0]['request-deadline-ms']);
    assert.ok(
      left > 0 && left <= 4950,
      `the call carried the inbound deadline less 50 ms: ${left}`,
    );
  } finally {
    detach();
    bottom.close();
    front.close();
  }
};
