// Checks the package as it would be published (`npm run build` first): the tarball's metadata
// (publint, attw), then a scratch project that installs it from the tarball and uses it through
// require, import, TypeScript (nodenext and bundler resolution) and Jest.
import {
  copyFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { createReport } from './lib/report.mjs';
import { makeTempDir, run, tail } from './lib/run.mjs';

const repo = resolve(import.meta.dirname, '..');
const fixture = join(repo, 'scripts', 'consumer');
const bin = (name) => join(repo, 'node_modules', '.bin', name);
const report = createReport();

const REDIS_REQUIRE = `const assert = require('node:assert/strict');
assert.match(require.resolve('axios-safe-retry/redis'), /node_modules\\/axios-safe-retry\\/dist\\/redis\\.js$/);
const { createRedisStore } = require('axios-safe-retry/redis');
assert.throws(() => createRedisStore({}), TypeError);
assert.equal(require('axios-safe-retry').createRedisStore, undefined);
`;
const REDIS_IMPORT = `import assert from 'node:assert/strict';
import { createRedisStore } from 'axios-safe-retry/redis';
import * as main from 'axios-safe-retry';
assert.match(import.meta.resolve('axios-safe-retry/redis'), /\\/dist\\/redis\\.mjs$/);
assert.throws(() => createRedisStore({}), TypeError);
assert.equal('createRedisStore' in main, false);
`;
// Compiled (not run): the entry's public types, as a user of either client library writes them.
const REDIS_USAGE = `import {
  createRedisStore,
  type RedisClient,
  type RedisStore,
  type RedisStoreOptions,
} from 'axios-safe-retry/redis';
declare const client: RedisClient;
const options: RedisStoreOptions = { prefix: 'sync-job', stateTtlMs: 600_000, timeoutMs: 50 };
export const store: RedisStore = createRedisStore(client, options);
export const probe: boolean | Promise<boolean> = store.lease('api', 1000);
export const closed: Promise<void> = store.close();
`;
const REDIS_TSCONFIG = `${JSON.stringify(
  {
    compilerOptions: {
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
      lib: ['es2022'],
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      skipDefaultLibCheck: true,
      // A Node-only entry: its users have Node's types (axios' declarations need them or DOM's).
      types: ['node'],
    },
    files: ['usage-redis.ts', 'usage-redis.mts'],
  },
  null,
  2,
)}\n`;

function checkCommand(name, command, args, options) {
  const result = run(command, args, options);
  report.check(
    `${name} (${result.seconds.toFixed(1)} s)`,
    result.ok,
    result.ok ? [] : [tail(result.output)],
  );
  return result.ok;
}

if (!existsSync(join(repo, 'dist', 'index.js'))) {
  console.error('FAIL dist/ is missing: run `npm run build` first');
  process.exit(1);
}

// One tarball is judged by every check below, and it is what the consumer installs.
const packDir = makeTempDir('pack');
const packed = run('npm', ['pack', '--json', '--pack-destination', packDir], { cwd: repo });
if (!packed.ok) {
  console.error(`FAIL npm pack\n${tail(packed.output)}`);
  process.exit(1);
}
const [{ filename, files, size }] = JSON.parse(packed.stdout);
const tarball = join(packDir, filename);
console.log(
  `packed ${filename}: ${files.length} files, ${size} B (${files.map((file) => file.path).join(', ')})`,
);

const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
const { messages } = await publint({
  pack: { tarball: Uint8Array.from(readFileSync(tarball)).buffer },
  strict: true,
});
report.check(
  'publint (strict): no errors, warnings or suggestions',
  messages.length === 0,
  messages.map((message) => `${message.type}: ${formatMessage(message, pkg)}`),
);

// attw's default profile is "strict": node10, node16 (CJS and ESM) and bundler resolution.
checkCommand('attw: types resolve right under every module resolution', bin('attw'), [
  tarball,
  '--no-color',
  '--no-emoji',
]);

const consumer = makeTempDir('consumer');
writeFileSync(
  join(consumer, 'package.json'),
  `${JSON.stringify({ name: 'consumer', version: '0.0.0', private: true }, null, 2)}\n`,
);
for (const file of readdirSync(fixture)) copyFileSync(join(fixture, file), join(consumer, file));
// The same usage, compiled once as a CommonJS module (.ts here) and once as an ES module (.mts).
copyFileSync(join(fixture, 'usage.ts'), join(consumer, 'usage.mts'));

const installed = checkCommand(
  `consumer installs the tarball and axios (${consumer})`,
  'npm',
  // @types/node: the server entry's declarations use node:http's types, as its users' code does.
  ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, 'axios@1', '@types/node@20'],
  { cwd: consumer },
);
if (installed) {
  const axiosVersion = JSON.parse(
    readFileSync(join(consumer, 'node_modules', 'axios', 'package.json'), 'utf8'),
  ).version;
  console.log(`consumer has axios ${axiosVersion}`);
  checkCommand(
    'require() loads dist/index.js and dist/server.js, retries, and a call under retryLayer carries the headers',
    process.execPath,
    ['require.cjs'],
    { cwd: consumer },
  );
  checkCommand(
    'import loads dist/index.mjs and dist/server.mjs, retries, and a call under retryLayer (ESM or CJS server) carries the headers',
    process.execPath,
    ['import.mjs'],
    { cwd: consumer },
  );
  checkCommand(
    'TypeScript, moduleResolution nodenext (CJS .ts and ESM .mts)',
    bin('tsc'),
    ['-p', 'tsconfig.nodenext.json'],
    { cwd: consumer },
  );
  checkCommand(
    'TypeScript, moduleResolution bundler',
    bin('tsc'),
    ['-p', 'tsconfig.bundler.json'],
    { cwd: consumer },
  );
  checkCommand(
    'TypeScript, axios-safe-retry/server with Node types, moduleResolution nodenext',
    bin('tsc'),
    ['-p', 'tsconfig.server.json'],
    { cwd: consumer },
  );
  // The Redis entry (issue 15): its own files under require and import, its types, and nothing
  // of it in the main entry. ioredis and redis are optional peers, not installed here: the entry
  // loads without them.
  writeFileSync(join(consumer, 'redis.cjs'), REDIS_REQUIRE);
  writeFileSync(join(consumer, 'redis.mjs'), REDIS_IMPORT);
  writeFileSync(join(consumer, 'usage-redis.ts'), REDIS_USAGE);
  writeFileSync(join(consumer, 'usage-redis.mts'), REDIS_USAGE);
  writeFileSync(join(consumer, 'tsconfig.redis.json'), REDIS_TSCONFIG);
  checkCommand(
    'axios-safe-retry/redis: require() and import load dist/redis.*, without ioredis or redis installed, and not from the main entry',
    process.execPath,
    [
      '-e',
      'require("./redis.cjs"); import("./redis.mjs").catch((e) => { console.error(e); process.exit(1); })',
    ],
    { cwd: consumer },
  );
  checkCommand(
    'TypeScript, axios-safe-retry/redis, moduleResolution nodenext (CJS .ts and ESM .mts)',
    bin('tsc'),
    ['-p', 'tsconfig.redis.json'],
    { cwd: consumer },
  );
  checkCommand(
    'Jest loads the package from node_modules as CommonJS and retries',
    bin('jest'),
    ['--rootDir', consumer, '--ci'],
    { cwd: consumer },
  );
}

const passed = report.finish();
// Keep the scratch project of a failed run, to look into; it installs from the npm cache.
if (passed) for (const dir of [packDir, consumer]) rmSync(dir, { recursive: true, force: true });
process.exitCode = passed ? 0 : 1;
