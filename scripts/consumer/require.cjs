const assert = require('node:assert/strict');
const smoke = require('./smoke.cjs');

assert.match(
  require.resolve('axios-safe-retry'),
  /node_modules\/axios-safe-retry\/dist\/index\.js$/,
);
smoke(require('axios-safe-retry'), require('axios')).catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
