// The links between README.md and docs/*.md lead somewhere: a file that exists and, after `#`,
// a heading (GitHub's anchor for it) or an `<a id>` of that file.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { docFiles, ROOT, readDoc } from './doc-examples';

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');
}

/** The text of a markdown file outside its fenced blocks. */
const prose = (text: string): string => text.replace(/^```[\s\S]*?^```/gm, '');

function anchors(file: string): Set<string> {
  const text = prose(readDoc(file));
  const found = new Set<string>();
  const counts = new Map<string, number>();
  for (const m of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const base = anchorOf(m[1] as string);
    const n = counts.get(base) ?? 0;
    counts.set(base, n + 1);
    found.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const m of text.matchAll(/<a id="([^"]+)"><\/a>/g)) found.add(m[1] as string);
  return found;
}

test('anchors are made as GitHub makes them', () => {
  expect(anchorOf('`shouldRetry` and `retryDelay`')).toBe('shouldretry-and-retrydelay');
  expect(anchorOf('Many processes, one API key')).toBe('many-processes-one-api-key');
});

describe.each(docFiles())('%s', (file) => {
  const links = [...prose(readDoc(file)).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string);
  const local = links.filter((link) => !/^[a-z]+:/.test(link));

  it.each(local.length > 0 ? local : ['(none)'])('links to %s, which exists', (link) => {
    if (link === '(none)') return;
    const [path = '', anchor] = link.split('#');
    const target = path === '' ? file : normalize(join(dirname(file), path));
    expect(existsSync(join(ROOT, target))).toBe(true);
    if (anchor !== undefined && target.endsWith('.md')) {
      expect([...anchors(target)]).toContain(anchor);
    }
  });
});

/** Every .ts file under src/. */
function sources(dir = join(ROOT, 'src')): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : name.endsWith('.ts') ? [path] : [];
  });
}

test('the pages and anchors that messages of src/ point to exist', () => {
  const pointers = sources().flatMap((path) => [
    ...readFileSync(path, 'utf8').matchAll(/\b((?:README|docs\/[\w-]+)\.md)(?:#([\w-]+))?/g),
  ]);
  for (const [, page = '', anchor] of pointers) {
    expect(existsSync(join(ROOT, page))).toBe(true);
    if (anchor) expect([...anchors(page)]).toContain(anchor);
  }
});
