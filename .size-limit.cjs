// Size budgets, checked by `npm run check:size` (size-limit) after `npm run build`, in CI.
//
// Each entry of the package is bundled and minified the way an app's bundler would ship it
// (esbuild), then gzipped (level 9). axios and uuid are the app's own dependencies, and node:*
// is the runtime's, so none of them is counted. size-limit subtracts what esbuild emits for an
// empty file (32 B gzipped), so its figure is about 32 B under
// `esbuild src/index.ts --bundle --minify --format=esm --platform=neutral --target=es2020
// --external:axios --external:uuid --external:'node:*' | gzip -9 | wc -c`.
//
// Budgets never move up: pay a new feature with savings elsewhere.

/** The esbuild settings of an entry: ES module, es2020, for `platform` (neutral or node). */
const bundledFor = (platform) => (config) => ({
  ...config,
  format: 'esm',
  platform,
  target: 'es2020',
});

const external = ['axios', 'uuid', 'node:*'];

module.exports = [
  {
    // History: 3 kB, then 6 kB with the breaker and pacing; 9.1 kB at 0.1.0; the 9.25 KiB budget
    // of issue 14 was missed and the guard moved up with each feature, to 14 144 B (load control
    // views, diagnostics_channel metrics, the store seam of issue 15). Issue 25 stops that: the
    // TARGET is 12 KiB (12 288 B); this guard is lowered to what each pay-down reaches, and only
    // ever lowered. Issue 25's session: 14 078 B measured here (its features paid for by
    // consolidation and by leaving three quota dialects out); the guard down to 14 100 B. Then
    // internal property names shortened by the build (-420 B) paid for the store guard of issue
    // 22 (+316 B): 13 983 B, the guard down to 14 000 B. Nine small rewrites of http/, options/
    // and retry/ (-66 B) then paid for the success path's memo of the last route key (+76 B):
    // 13 993 B. Then load-control and the gate written shorter, and a probe's give-back made
    // whole (-138 B; the inlining that broke the 60-line rule left out): 13 855 B, the guard down
    // to 13 870 B. Then issue 21's fixes (a success's rounded reset holds nothing, another
    // client's hold probed within a second, a burst's requests in flight counted) were paid by
    // one import of axios, dead branches and fallbacks left out: 13 832 B, the guard down to
    // 13 840 B. Then 23 small rewrites (-202 B) paid for issue 21's next rules (a success with
    // room unpaces, +130 B): 13 778 B, the guard down to 13 780 B. No positional parameter list
    // over 3 (issue 25: the lint's exceptions for nine files removed), paid within: 13 780 B.
    // Then no function over 60 lines counted with its comments, and a throttle's hold replaced
    // rather than extended (the probe's flag gone): 13 751 B, the guard down to 13 760 B.
    // Then fields left unset until known, not written as undefined, 0 or false, and names the
    // build shortens (-96 B) paid for a store unused with load control off, an unknown option's
    // nearest name and baseDelayMs ≤ maxDelayMs (+78 B): 13 733 B, the guard down to 13 740 B.
    // Then a cut wakes the calls waiting for slots and the first slot comes a gap after a
    // decision (+29 B), paid by five rewrites in load-control/ (-23 B): 13 739 B. Then a call
    // held by a hold it has no evidence of waits for the hold's probe rather than fail (+41 B,
    // after a first try at +106 B), paid by the gate's shorter message, three functions used
    // once inlined and small rewrites (sleep's wake, the breaker's announce): 13 740 B. Then
    // nine rewrites (-47 B: the scope cache and the wait queue are a Map and a Set of their own,
    // seven internal names the build shortens, the gate's verdicts one if/else) paid for a
    // release with no rate known that paces its second only (+30 B): 13 723 B, the guard down to
    // 13 723 B. That release reverted (-30 B: real fleets recovered worse) paid for a fault on a
    // kept-alive socket the server had closed being no failure of the origin (+29 B): 13 722 B.
    // Then twenty rewrites (-57 B: checks and fallbacks that cannot change a result, fields
    // read where destructured once, the breaker's denial written once) paid for three of issue
    // 21's fixes (+14 B: a status the caller's validateStatus accepts counts for nothing; an
    // origin opened by its routes' breakers only when none of them succeeds, and released at the
    // rate it handled): 13 679 B, the guard down to 13 679 B.
    // Then eleven rewrites (-64 B: two rate-limit header helpers, the 409 rule, a random check and
    // a header reader inlined where each was used once; a budget's empty case through NaN) paid
    // for a release that paces its spread's second only when the origin never succeeded here
    // (+24 B): 13 650 B, the guard down to 13 650 B. Then the gate keeps one wrapper, for the
    // last retry options and list of adapters it saw (axios copies a list for each call: Node's
    // default made a wrapper per call), with the admit closure gone, a call's start read once and
    // an axios method no longer defaulted where axios always sets it (-8 B): 13 642 B, the guard
    // down to 13 642 B. Then 21 rewrites (-121 B: the breaker's window, scope and state read where
    // made, a release's climb written where it is made, the failure codes as arrays, `resolve`
    // spreading defaults once, `nextState` folded into `decideRetry`, one rule for a non-empty
    // string...) paid for seed 154's capped backoff (+13 B), an unknown option's suggestion from
    // a name it ends (+9 B), a moved end of a client's own hold probed as another's (+22 B) and a
    // shorter ERR_RATE_LIMITED message (-4 B): 13 584 B, the guard down to 13 584 B. Then
    // createPacer back to 60 lines (its foreign-hold probe's constant named shorter): 13 583 B.
    // Still 1 295 B over the target, a product decision: what each capability costs, removed
    // alone (gzip, 2026-12-04): breaker 1 726 B, learned pacing 1 491, the store's sharing
    // 1 052, rate-limit headers 828, route scopes 807, option checks 730, idempotency 411,
    // loadControlOf/isolate 391, usage errors 329, retry budget 304, metrics 170.
    name: 'axios-safe-retry (main entry)',
    path: 'dist/index.mjs',
    limit: '13583 B',
    gzip: true,
    ignore: external,
    modifyEsbuildConfig: bundledFor('neutral'),
  },
  {
    // axios-safe-retry/server (issue 16), Node only: retryLayer, its error handler and the
    // inbound headers. 1.75 KiB; 1 776 B once a used-up retry of any failure marks the answer
    // (the refused connection's own check left out). Then a call stopped on its deadline by the
    // gate, after a retry, or on a 503 or 429 counts as giving up (+20 B), paid by the gate's
    // own `circuit-open` check it covers, a shorter test of no inbound deadline, and checks the
    // walk of `cause` needs not (-26 B): 1 767 B, the guard down to 1 767 B.
    name: 'axios-safe-retry/server',
    path: 'dist/server.mjs',
    limit: '1767 B',
    gzip: true,
    ignore: external,
    modifyEsbuildConfig: bundledFor('node'),
  },
  {
    // axios-safe-retry/redis (issue 15), Node only: the Redis store (its Lua scripts, the codec
    // that checks what Redis returns, both clients' adapters). ioredis and redis are the app's
    // own (peer dependencies, never imported). 3.6 KiB; down to 3 664 B when each of its scripts
    // took one argument list, its key first (issue 25's three-parameter rule: 3 661 B). Then the
    // codec's copy of isObject and its Number.POSITIVE_INFINITY left out paid for a client error
    // that shows the call's form (`createRedisStore(redis, { prefix })`): 3 648 B.
    name: 'axios-safe-retry/redis',
    path: 'dist/redis.mjs',
    limit: '3650 B',
    gzip: true,
    ignore: external,
    modifyEsbuildConfig: bundledFor('node'),
  },
];
