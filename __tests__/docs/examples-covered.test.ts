// Every code example of README.md and docs/*.md is under test: each ```ts / ```js block carries
// an `<!-- example: name -->` marker, and some test loads it by that name (see doc-examples.ts).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { CODE_LANGUAGES, codeBlocks, docFiles, ROOT } from './doc-examples';

/** Every test source under __tests__/, but this file and the helper that defines `example`. */
function testSources(dir = join(ROOT, '__tests__')): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testSources(path);
    return /\.ts$/.test(name) && path !== __filename && !path.endsWith('doc-examples.ts')
      ? [path]
      : [];
  });
}

/** `file name` for each `example('file', 'name')` call in the test sources. */
function loaded(): Set<string> {
  const found = new Set<string>();
  for (const path of testSources()) {
    const source = readFileSync(path, 'utf8');
    for (const m of source.matchAll(/\bexample\(\s*'([^']+)',\s*'([^']+)'\s*\)/g)) {
      found.add(`${m[1]} ${m[2]}`);
    }
  }
  return found;
}

const blocks = docFiles().flatMap(codeBlocks);
const code = blocks.filter((b) => CODE_LANGUAGES.test(b.language));
const where = (b: { file: string; line: number }) => `${b.file}:${b.line}`;

test('the docs have code blocks to check (the scan works)', () => {
  expect(code.length).toBeGreaterThan(10);
  expect(code.some((b) => b.file === 'README.md')).toBe(true);
});

test('every code block carries an example marker', () => {
  expect(code.filter((b) => b.name === undefined).map(where)).toEqual([]);
});

test('no two examples of one file share a name', () => {
  const seen = new Map<string, string>();
  const twice = code.filter((b) => {
    const key = `${b.file} ${b.name}`;
    if (seen.has(key)) return true;
    seen.set(key, where(b));
    return false;
  });
  expect(twice.map(where)).toEqual([]);
});

test('every marked example is loaded by some test', () => {
  const tested = loaded();
  const untested = code.filter((b) => b.name && !tested.has(`${b.file} ${b.name}`));
  expect(untested.map((b) => `${where(b)} (${b.name})`)).toEqual([]);
});

test('every example a test loads exists (no test checks a block that is gone)', () => {
  const marked = new Set(code.map((b) => `${b.file} ${b.name}`));
  expect([...loaded()].filter((key) => !marked.has(key))).toEqual([]);
});

test('the test sources it scans are the repository’s', () => {
  expect(testSources().map((path) => relative(ROOT, path))).toContain(
    join('__tests__', 'docs', 'readme-quick-start.test.ts'),
  );
});
