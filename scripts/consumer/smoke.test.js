// Loaded by Jest the way a user's test suite loads the package: CommonJS, from node_modules.
const smoke = require('./smoke.cjs');
const smokeServer = require('./smoke-server.cjs');

test('the package loads from node_modules as CommonJS', () => {
  expect(require.resolve('axios-safe-retry')).toMatch(
    /node_modules\/axios-safe-retry\/dist\/index\.js$/,
  );
});

test('a keyed POST is retried through a 503 with the same key', () =>
  smoke(require('axios-safe-retry'), require('axios')));

test('axios-safe-retry/server: a call under retryLayer carries the headers', () =>
  smokeServer(require('axios-safe-retry/server'), require('axios-safe-retry'), require('axios')));
