// Mutation testing, one file set at a time (docs/mutation.md):
//   npm run test:mutation -- --mutate 'src/options/**/*.ts'
// The set is the folder under src/ that `--mutate` names; it picks the unit tests that run
// (its own folder under __tests__/, plus the few listed below) and the report's file names.
// Without `--mutate`, all of src/ against every unit test (hours on two cores).
const unit = (folder) => `<rootDir>/__tests__/${folder}/**/*.test.ts`;
const file = (path) => `<rootDir>/__tests__/${path}.test.ts`;

// Tests beyond the set's own folder that pin its behaviour.
const tests = {
  options: [unit('options'), file('docs/readme-options')],
  retry: [unit('retry')],
  http: [unit('http')],
  runtime: [
    unit('runtime'),
    file('retry/budget'),
    file('load-control/outcome-window'),
    file('axios/interceptor-cancellation'),
  ],
  contract: [
    unit('contract'),
    file('options/migration'),
    file('load-control/load-control'),
    file('server/retry-layer'),
    file('server/inbound-headers'),
  ],
  axios: [unit('axios')],
  'load-control': [
    unit('load-control'),
    file('axios/view'),
    file('runtime/clock-step'),
    file('retry/budget-one-rule'),
  ],
  server: [unit('server')],
  redis: [unit('redis')],
};

// Loopback suites that take seconds per test: left out of every set.
const slow = [
  '\\.integration\\.test\\.ts$',
  '/__tests__/end-to-end/',
  '/__tests__/tooling/',
  '/__tests__/load-control/rate-limit-burst\\.test\\.ts$',
  '/__tests__/docs/readme-quick-start\\.test\\.ts$',
];

const argv = process.argv.slice(2);
const at = argv.findIndex((a) => a === '--mutate' || a === '-m');
const pattern = at >= 0 ? argv[at + 1] : argv.find((a) => a.startsWith('--mutate='))?.slice(9);
const set = /^src\/([\w-]+)\//.exec(pattern ?? '')?.[1];
if (pattern && !(set in tests)) {
  throw new TypeError(`stryker.config.mjs: --mutate names no file set: ${pattern}`);
}
const name = set ?? 'all';

export default {
  $schema: './node_modules/@stryker-mutator/core/schema/stryker-schema.json',
  packageManager: 'npm',
  testRunner: 'jest',
  jest: {
    configFile: 'jest.config.ts',
    enableFindRelatedTests: false,
    config: {
      reporters: ['default'],
      testMatch: set ? tests[set] : [unit('**')],
      testPathIgnorePatterns: ['/node_modules/', ...slow],
    },
  },
  mutate: ['src/**/*.ts', '!src/**/types.ts'],
  coverageAnalysis: 'perTest',
  concurrency: 1,
  timeoutMS: 10000,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${name}.html` },
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  incrementalFile: `reports/mutation/${name}.incremental.json`,
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
