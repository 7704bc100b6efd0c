// Fails when an entry, bundled and minified the way an app's bundler would ship it, gzips above
// its budget. axios and uuid are the app's own dependencies, so they are not counted.
import { existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const entries = [
  {
    entry: 'dist/index.mjs',
    platform: 'neutral',
    // The target was 3 kB, then 6 kB with the breaker and pacing; the package measures about 9.1
    // kB: about 4.1 kB for the per-call core, 1.1 kB for the misuse errors, the per-attempt
    // deadline, long timers and stream release (issues 9 and 10), and 3.9 kB for per-origin load
    // control (the breaker, pacing, rate-limit headers and the gated adapter), and about 0.2 kB
    // for the client side of retrying at one layer (issue 16: server signals, the propagated
    // headers, the hook of the server entry). This limit (9.25 KiB) stops it from growing while
    // the 6 kB target is reconsidered: no single file is large enough to close the gap.
    limitBytes: 9472,
  },
  {
    // axios-safe-retry/server (issue 16), Node only: retryLayer, its error handler and the
    // inbound headers. Measured at 1694 B; the budget (1.75 KiB) leaves a small margin.
    entry: 'dist/server.mjs',
    platform: 'node',
    limitBytes: 1792,
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
