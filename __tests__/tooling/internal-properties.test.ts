import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import internal from '../../etc/internal-properties.json';

// The build shortens the internal property names of etc/internal-properties.json (tsup.config.ts).
// A name that anyone outside sees must never be among them: these are the checks that need no
// build. `npm run test:dist` (CI) runs the public-API tests against the build itself.

const ROOT = join(__dirname, '..', '..');
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');
const withoutComments = (code: string): string =>
  code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$|\s\/\/.*$/gm, '');
/** The property and method names a declaration text declares (`name:`, `name?:`, `name(`). */
const declared = (text: string): Set<string> =>
  new Set(
    [...withoutComments(text).matchAll(/([A-Za-z_$][\w$]*)\??\s*[:(]/g)].map((m) => m[1] as string),
  );
const sources = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(dir, f));

const names: readonly string[] = internal.names;

describe('the internal property names the build shortens', () => {
  it('are each listed once, in order', () => {
    expect(names).toEqual([...new Set(names)].sort());
    expect(names.length).toBeGreaterThan(0);
  });

  it('name nothing of the public API (its reports in etc/, which CI keeps current)', () => {
    const api = new Set(
      ['index', 'server', 'redis'].flatMap((e) => [...declared(read(`etc/${e}.api.md`))]),
    );
    expect(api.has('retryState')).toBe(true);
    expect(names.filter((name) => api.has(name))).toEqual([]);
  });

  it("name nothing of what axios hands over or is handed (its types' names)", () => {
    const axios = declared(read('node_modules/axios/index.d.ts'));
    expect(axios.has('synchronous')).toBe(true);
    expect(names.filter((name) => axios.has(name))).toEqual([]);
  });

  it('are never read by a string key: no string in src/ is one', () => {
    const strings = new Set(
      sources('src').flatMap((file) =>
        [...withoutComments(read(file)).matchAll(/'([\w$]+)'|"([\w$]+)"/g)].map(
          (m) => m[1] ?? m[2],
        ),
      ),
    );
    expect(strings.has('success')).toBe(true);
    expect(names.filter((name) => strings.has(name))).toEqual([]);
  });
});
