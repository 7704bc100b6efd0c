// Fails when the ESM entry, bundled and minified the way an app's bundler would ship it, gzips
// above the budget. axios and uuid are the app's own dependencies, so they are not counted.
import { existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const entry = 'dist/index.mjs';
// The target was 3 kB, then 6 kB with the breaker and pacing; the package measures about 9.1 kB:
// about 4.1 kB for the per-call core, 1.1 kB for the misuse errors, the per-attempt deadline,
// long timers and stream release (issues 9 and 10), and 3.9 kB for per-origin load control (the
// breaker, pacing, rate-limit headers and the gated adapter). This limit (9.25 KiB) stops it from
// growing while the 6 kB target is reconsidered: no single file is large enough to close the gap.
// Issue 13 (load control that never hurts: route scopes, bounded waits, a monotonic clock, sane
// holds, a pacer that learns leaky buckets) took it to about 11.2 kB. The 9.25 KiB budget of
// issue 14 is NOT met: this guard is at 11.25 KiB so that it cannot grow silently while the
// consolidation of issue 14 pays it back.
const limitBytes = 11_520;

if (!existsSync(entry)) {
  console.error(`FAIL size: ${entry} is missing; run \`npm run build\` first`);
  process.exit(1);
}

const bundled = await build({
  entryPoints: [entry],
  bundle: true,
  external: ['axios', 'uuid'],
  format: 'esm',
  minify: true,
  write: false,
});
const minified = bundled.outputFiles[0].contents;
const gzipped = gzipSync(minified, { level: 9 }).length;

const ok = gzipped <= limitBytes;
console.log(
  `${ok ? 'PASS' : 'FAIL'} size: ${entry} minified ${minified.length} B, gzipped ${gzipped} B (limit ${limitBytes} B)`,
);
process.exit(ok ? 0 : 1);
