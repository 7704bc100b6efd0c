// Fails when the ESM entry, bundled and minified the way an app's bundler would ship it, gzips
// above the budget. axios and uuid are the app's own dependencies, so they are not counted.
import { existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const entry = 'dist/index.mjs';
// The target was 3 kB; the package measured about 4.1 kB, and even without its option
// validation it would be 3.5 kB; issues 9 and 10 (misuse errors, the per-attempt deadline, long
// timers, stream release) took it to about 5.2 kB, and per-origin load control (the breaker,
// pacing, rate-limit headers) to the limit below: 6 kB, the budget the load-control issues set.
const limitBytes = 6144;

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
