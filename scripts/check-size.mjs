// Fails when an entry, bundled and minified the way an app's bundler would ship it, gzips above
// its budget. axios and uuid are the app's own dependencies, so they are not counted.
import { existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const entries = [
  {
    entry: 'dist/index.mjs',
    platform: 'neutral',
    // History: 3 kB, then 6 kB with the breaker and pacing; 9.1 kB at 0.1.0 (per-call core 4.1 kB,
    // misuse errors, per-attempt deadline, long timers and stream release 1.1 kB, load control
    // 3.9 kB). Issue 13 (route scopes, bounded waits, a monotonic clock, sane holds, a pacer that
    // learns leaky buckets) took it to about 11.2 kB, issues 16 (the client side: server signals,
    // the propagated headers, the server entry's hook) and 17 (async shouldRetry, retryDelay,
    // maybePerformed, exported codes) to 11.6 kB. The 9.25 KiB budget of issue 14 is NOT met:
    // this guard stops it from growing silently while the consolidation of issue 14 pays it back.
    // Issue 17's load-control view (loadControlOf, isolate) and diagnostics_channel metrics
    // added 635 B (11 869 → 12 504 B). Issue 14's split, one options schema and one header
    // reader cost about 200 B; the store seam (issue 15: the pacer's and breaker's state as
    // plain data changed through a store, the probe lease, the fleet's share) about 1.4 kB, to
    // 14 096 B. The guard is at that plus 48 B of slack: the budget of issue 14 is missed by
    // 4.6 kB, said in its closing note.
    limitBytes: 14_144,
  },
  {
    // axios-safe-retry/server (issue 16), Node only: retryLayer, its error handler and the
    // inbound headers. Measured at 1694 B; the budget (1.75 KiB) leaves a small margin.
    entry: 'dist/server.mjs',
    platform: 'node',
    limitBytes: 1792,
  },
  {
    // axios-safe-retry/redis (issue 15), Node only: the Redis store (its Lua scripts, the codec
    // that checks what Redis returns, both clients' adapters). ioredis and redis are the app's
    // own (peer dependencies, never imported). Measured at 3583 B (with the scope reads and the
    // clients heard between heartbeats); the budget is 3.6 KiB.
    entry: 'dist/redis.mjs',
    platform: 'node',
    limitBytes: 3686,
  },
];

let failed = false;
for (const { entry, platform, limitBytes } of entries) {
  if (!existsSync(entry)) {
    console.error(`FAIL size: ${entry} is missing; run \`npm run build\` first`);
    failed = true;
    continue;
  }
  const bundled = await build({
    entryPoints: [entry],
    bundle: true,
    external: ['axios', 'uuid'],
    format: 'esm',
    platform,
    minify: true,
    write: false,
  });
  const minified = bundled.outputFiles[0].contents;
  const gzipped = gzipSync(minified, { level: 9 }).length;
  const ok = gzipped <= limitBytes;
  if (!ok) failed = true;
  console.log(
    `${ok ? 'PASS' : 'FAIL'} size: ${entry} minified ${minified.length} B, gzipped ${gzipped} B (limit ${limitBytes} B)`,
  );
}
process.exit(failed ? 1 : 0);
