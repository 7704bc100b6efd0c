import assert from 'node:assert/strict';
import axios from 'axios';
import * as retry from 'axios-safe-retry';
import smoke from './smoke.cjs';

assert.match(
  import.meta.resolve('axios-safe-retry'),
  /node_modules\/axios-safe-retry\/dist\/index\.mjs$/,
);
await smoke(retry, axios);
