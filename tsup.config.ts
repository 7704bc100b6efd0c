import { defineConfig } from 'tsup';

export default defineConfig({
  // The server entry (node:async_hooks) and the Redis store are bundles of their own: nothing of
  // them reaches the main one.
  entry: { index: 'src/index.ts', server: 'src/server/index.ts', redis: 'src/redis/index.ts' },
  splitting: false,
  removeNodeProtocol: false,
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: false,
  target: 'es2020',
  tsconfig: 'tsconfig.build.json',
  outExtension: ({ format }) => ({ js: format === 'esm' ? '.mjs' : '.js' }),
});
