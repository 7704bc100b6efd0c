import { readFileSync, writeFileSync } from 'node:fs';
import { renderMarkdownTable } from '../report/table';
import type { ScenarioReport } from '../scenarios/scenario';

// The fleet section of BENCHMARKS.md sits between these two lines, so that `npm run bench:fleet`
// can rewrite it alone, and `npm run bench` writes it with the rest.
const BEGIN = '<!-- fleet: begin (generated; do not edit by hand) -->';
const END = '<!-- fleet: end -->';

export function renderFleetSection(report: ScenarioReport, command: string, date: string): string {
  return [
    BEGIN,
    `## ${report.title}`,
    '',
    `Written by \`${command}\` on ${date} (${report.realSeconds.toFixed(0)} s of real time). Real time on a shared machine: figures move a little from run to run.`,
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
    END,
    '',
  ].join('\n');
}

/** `document` with its fleet section replaced by `section` (appended when it has none). */
export function withFleetSection(document: string, section: string): string {
  const from = document.indexOf(BEGIN);
  const to = document.indexOf(END);
  if (from === -1 || to === -1) return `${document.trimEnd()}\n\n${section}`;
  return document.slice(0, from) + section + document.slice(to + END.length).replace(/^\n/, '');
}

/** Rewrites the fleet section of the file at `path`, and nothing else. */
export function writeFleetSection(path: string, section: string): void {
  writeFileSync(path, withFleetSection(readFileSync(path, 'utf8'), section));
}
