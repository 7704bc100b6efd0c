import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import axios from 'axios';
import * as retry from 'axios-safe-retry';
import * as server from 'axios-safe-retry/server';
import smoke from './smoke.cjs';
import smokeServer from './smoke-server.cjs';

assert.match(
  import.meta.resolve('axios-safe-retry'),
  /node_modules\/axios-safe-retry\/dist\/index\.mjs$/,
);
await smoke(retry, axios);
assert.match(
  import.meta.resolve('axios-safe-retry/server'),
  /node_modules\/axios-safe-retry\/dist\/server\.mjs$/,
);
await smokeServer(server, retry, axios);
// An app whose dependencies load the other build (CommonJS here) still meets this one.
await smokeServer(createRequire(import.meta.url)('axios-safe-retry/server'), retry, axios);
