// The README's quick start, as written there: plain JavaScript (no TypeScript syntax: it is
// compiled here as JavaScript), an ES module with top-level `await`, run as `node quick-start.mjs`
// would run it, with what it prints checked against the output the README shows.
import events from 'node:events';
import http from 'node:http';
import axios from 'axios';
import * as library from '../../src';
import { example, readDoc, runExample } from './doc-examples';

const section = /\n## Quick start\n([\s\S]*?)\n## /.exec(readDoc('README.md'))?.[1] ?? '';

test('says how to run it: a .mjs file, node, no other tool', () => {
  expect(section).toMatch(/save it as `quick-start\.mjs`/);
  expect(section).toMatch(/run `node quick-start\.mjs`/);
  expect(section).not.toMatch(/\.mts|ts-node|tsx/);
  expect(example('README.md', 'quick-start')).toMatch(/^await /m);
});

test('runs as written, and prints what the README says it prints', async () => {
  const printed: string[] = [];
  await runExample(example('README.md', 'quick-start'), {
    modules: {
      'node:events': events,
      'node:http': http,
      axios: { default: axios },
      'axios-safe-retry': library,
    },
    globals: { console: { log: (...parts: unknown[]) => printed.push(parts.join(' ')) } },
  });
  const shown = /It prints[^\n]*\n\n```text\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/;
  expect(shown).toMatch(uuid);
  expect(printed.map((line) => line.replace(uuid, 'KEY'))).toEqual(
    shown
      .trimEnd()
      .split('\n')
      .map((line) => line.replace(uuid, 'KEY')),
  );
});
