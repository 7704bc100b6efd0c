// The map of src/, enforced: `npm run lint` (and so CI) fails on any import that breaks it.
//
// src/ is in layers, bottom up. A folder imports only from itself and the folders below it, never
// from one above; type-only imports count like any other (a type that points up is a design that
// points up).
//
//   index.ts       the main entry (`axios-safe-retry`): exports only, no code of its own
//   axios/         attach the interceptors, the retry loop, the gate, reissue, idempotency, the view
//   load-control/  circuit breaker, pacer, throttle signal, outcome windows, scopes, the memory store
//   retry/         the retry policy, backoff, the retry budget
//   options/       option rules, defaults and resolution, usage errors
//   http/          what a response says: classification, Retry-After, rate-limit headers, origin, route
//   runtime/       clock, sleep, long timers, cancellation, metrics
//   contract/      the vocabulary: public types, the store's shared-state types, the stop errors,
//                  axios's values (imported in one module),
//                  the key and headers that couple the main entry to the server entry
//
// Beside the chain, two entries of their own (Node only; nothing of them reaches the main one):
//   server/        `axios-safe-retry/server`
//   redis/         `axios-safe-retry/redis`

/** The chain, bottom up. */
const chain = ['contract', 'runtime', 'http', 'options', 'retry', 'load-control', 'axios'];

const folder = (names) => `^src/(${names.join('|')})/`;
const mainEntry = '^src/index\\.ts$';

// One rule per folder of the chain: it may not import the folders above it, the main entry, nor
// the two Node entries.
const noUpwardImports = chain.map((name, at) => ({
  name: `${name}-imports-only-below`,
  comment: `src/${name}/ may import only ${
    at === 0 ? 'itself' : `src/{${chain.slice(0, at).join(',')}}/ and itself`
  }: the folders above it, the entries and server/ and redis/ are out of bounds.`,
  severity: 'error',
  from: { path: `^src/${name}/` },
  to: {
    path: [folder([...chain.slice(at + 1), 'server', 'redis']), mainEntry],
  },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...noUpwardImports,
    {
      name: 'server-imports-contract-to-options',
      comment:
        'src/server/ (retryLayer) may import src/{contract,runtime,http,options}/: the types, the ' +
        'clock, the header readers and the option rules. Never load control, the retry loop, the ' +
        'main entry or the Redis entry. (Today it imports contract/ only.)',
      severity: 'error',
      from: { path: '^src/server/' },
      to: { path: [folder(['retry', 'load-control', 'axios', 'redis']), mainEntry] },
    },
    {
      name: 'redis-imports-contract-runtime-options',
      comment:
        'src/redis/ (the Redis store) may import src/contract/ (the store interface and the ' +
        'shared-state types it keeps), src/runtime/ (the clock) and src/options/ (the one form of ' +
        'option rules and their errors): it keeps state, it makes no decision, so it needs none ' +
        'of the layers that do.',
      severity: 'error',
      from: { path: '^src/redis/' },
      to: {
        path: [folder(['http', 'retry', 'load-control', 'axios', 'server']), mainEntry],
      },
    },
    {
      name: 'main-entry-reaches-no-node-entry',
      comment:
        'Nothing reached from src/index.ts imports src/server/ or src/redis/: they are Node-only ' +
        'entries, and the main one runs in browsers too.',
      severity: 'error',
      from: { path: mainEntry },
      to: { path: '^src/(server|redis)/', reachable: true },
    },
    {
      name: 'main-bundle-imports-no-node-module',
      comment:
        'The main entry and every folder of the chain import no Node built-in (node:*): the main ' +
        'bundle is platform-neutral (browsers, Deno, workers). Only src/server/ and src/redis/ may.',
      severity: 'error',
      from: { path: [folder(chain), mainEntry] },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'no-circular',
      comment:
        'No import circles, type-only ones included: a circle has no bottom, so no layer order. ' +
        '(One was contract/types → load-control/store → breaker and pacer → contract/types; the ' +
        "store's state types now live in contract/store.ts.)",
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'Every import resolves to a file or an installed package.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-non-package-json',
      comment:
        'src/ imports only packages that package.json names (a package that is merely installed ' +
        'as some dependency of a dependency is not ours to import).',
      severity: 'error',
      from: {},
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'src-imports-only-src-and-packages',
      comment: 'src/ ships: it imports no test helper, bench, demo or script.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(__tests__|bench|demo|support|scripts|browser|types-test)/' },
    },
  ],
  options: {
    // Type-only imports are dependencies too (see no-circular and the layer rules).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.d.ts'],
    },
  },
};
