import { readFileSync, writeFileSync } from 'node:fs';
import type { ScenarioReport } from '../scenarios/scenario';
import { renderMarkdownTable } from './table';

// A section of BENCHMARKS.md that one command can rewrite alone sits between two marker lines
// named after it (the fleet's, the never-worse search's): `npm run bench:fleet` and
// `npm run bench -- never-worse` rewrite theirs alone, `npm run bench` writes them with the rest.
const begin = (name: string) => `<!-- ${name}: begin (generated; do not edit by hand) -->`;
const end = (name: string) => `<!-- ${name}: end -->`;

/** The section `name` of one report: what wrote it and when (then `remark`), setup, tables, targets. */
export function renderSection(
  name: string,
  report: ScenarioReport,
  written: { readonly command: string; readonly date: string; readonly remark?: string },
): string {
  const seconds = report.realSeconds.toFixed(0);
  return [
    begin(name),
    `## ${report.title}`,
    '',
    `Written by \`${written.command}\` on ${written.date} (${seconds} s of real time).${written.remark ?? ''}`,
    '',
    ...report.setup.map((line) => `- ${line}`),
    '',
    ...report.tables.flatMap((table) => [renderMarkdownTable(table), '']),
    ...(report.targets.length === 0
      ? []
      : [
          '| target | met | measured |',
          '| :-- | :-: | :-- |',
          ...report.targets.map(
            (check) =>
              `| ${check.target} | ${check.met === undefined ? 'reported' : check.met ? 'yes' : '**no**'} | ${check.measured.replace(/\|/g, '\\|')} |`,
          ),
          '',
        ]),
    end(name),
    '',
  ].join('\n');
}

/** `document` with its section `name` replaced by `section` (appended when it has none). */
export function withSection(name: string, document: string, section: string): string {
  const from = document.indexOf(begin(name));
  const to = document.indexOf(end(name));
  if (from === -1 || to === -1) return `${document.trimEnd()}\n\n${section}`;
  return (
    document.slice(0, from) + section + document.slice(to + end(name).length).replace(/^\n/, '')
  );
}

/** Rewrites the section `name` of the file at `path`, and nothing else. */
export function writeSection(name: string, path: string, section: string): void {
  writeFileSync(path, withSection(name, readFileSync(path, 'utf8'), section));
}
