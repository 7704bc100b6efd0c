import { readFileSync, writeFileSync } from 'node:fs';
import type { ScenarioReport } from '../scenarios/scenario';
import { renderMarkdownTable } from './table';

// A section of BENCHMARKS.md that one command can rewrite alone sits between two marker lines
// named after it (the fleet's, the never-worse search's).
const begin = (name: string) => `<!-- ${name}: begin (generated; do not edit by hand) -->`;
const end = (name: string) => `<!-- ${name}: end -->`;

export function renderSection(
  name: string,
  report: ScenarioReport,
  command: string,
  date: string,
): string {
  return [
    begin(name),
    `## ${report.title}`,
    '',
    `Written by \`${command}\` on ${date} (${report.realSeconds.toFixed(0)} s of real time).`,
    '',
    ...report.setup.map((line) => `- ${line}`),
    '',
    ...report.tables.flatMap((table) => [renderMarkdownTable(table), '']),
    '| target | met | measured |',
    '| :-- | :-: | :-- |',
    ...report.targets.map(
      (check) =>
        `| ${check.target} | ${check.met === undefined ? 'reported' : check.met ? 'yes' : '**no**'} | ${check.measured.replace(/\|/g, '\\|')} |`,
    ),
    '',
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
