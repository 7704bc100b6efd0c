// `npm run test:dist` (CI, after `npm run build`): the tests that use only the package's public
// entries run a second time against the built files in dist/, as an app gets them. The build
// shortens internal property names (etc/internal-properties.json); a name read by a string key,
// or seen from outside, would break these runs and not the ones on src/.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import type { Config } from 'jest';
import base from './jest.config';

const ENTRIES: Record<string, string> = {
  src: 'index',
  'src/server': 'server',
  'src/redis': 'redis',
};

/** Whether `file`, and what it imports from this repository, reach src/ only through an entry. */
function publicOnly(file: string, seen = new Set<string>()): boolean {
  if (seen.has(file)) return true;
  seen.add(file);
  const imports = readFileSync(file, 'utf8').matchAll(
    /^(?:import|export)(\s+type)?[^;]*?from\s+'(\.[^']*)'/gms,
  );
  return [...imports].every(([, typeOnly, spec]) => {
    const path = relative(__dirname, resolve(dirname(file), spec as string));
    if (path.startsWith('src')) return typeOnly !== undefined || path in ENTRIES;
    const source = [`${path}.ts`, join(path, 'index.ts'), path].find(
      (f) => existsSync(f) && f.endsWith('.ts'),
    );
    return source === undefined || publicOnly(source, seen);
  });
}

const tests = readdirSync('__tests__', { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => join('__tests__', f))
  .filter((f) => publicOnly(f));

const config: Config = {
  ...base,
  testMatch: tests.map((file) => `<rootDir>/${file}`),
  moduleNameMapper: Object.fromEntries(
    Object.entries(ENTRIES).map(([path, entry]) => [
      `^(\\.\\./)+${path}$`,
      `<rootDir>/dist/${entry}.js`,
    ]),
  ),
};

export default config;
