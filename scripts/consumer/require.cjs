const assert = require('node:assert/strict');
const smoke = require('./smoke.cjs');
const smokeServer = require('./smoke-server.cjs');

assert.match(
  require.resolve('axios-safe-retry'),
  /node_modules\/axios-safe-retry\/dist\/index\.js$/,
);
assert.match(
  require.resolve('axios-safe-retry/server'),
  /node_modules\/axios-safe-retry\/dist\/server\.js$/,
);
smoke(require('axios-safe-retry'), require('axios'))
  .then(() =>
    smokeServer(require('axios-safe-retry/server'), require('axios-safe-retry'), require('axios')),
  )
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
