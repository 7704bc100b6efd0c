import { defineConfig } from 'tsup';

export default defineConfig({
  // The server entry (node:async_hooks) is a bundle of its own: nothing of it reaches the main one.
  entry: ['src/index.ts', 'src/server.ts'],
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
