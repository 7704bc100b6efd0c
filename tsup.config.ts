import { defineConfig } from 'tsup';
import internal from './etc/internal-properties.json';

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
  // Internal property names are shortened, as an app's minifier can't: they are 1 in 30 of the
  // minified bytes. Only names in etc/internal-properties.json, which nobody outside sees.
  esbuildOptions(options) {
    options.mangleProps = new RegExp(`^(${internal.names.join('|')})$`);
  },
  outExtension: ({ format }) => ({ js: format === 'esm' ? '.mjs' : '.js' }),
});
