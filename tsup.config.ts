import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: false,
  target: 'es2020',
  tsconfig: 'tsconfig.build.json',
  outExtension: ({ format }) => ({ js: format === 'esm' ? '.mjs' : '.js' }),
});
