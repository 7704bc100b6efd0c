// `npm run bench:fleet`: the fleet benchmark alone (issue 15), printed, and written into its
// section of BENCHMARKS.md. `npm run bench:fleet -- --full` runs every contestant in every
// scenario; `--no-write` only prints; other arguments pick scenarios by name (`failover`), and
// then nothing is written either.
import { join } from 'node:path';
import { describeEnvironment } from '../report/environment';
import { writeSection } from '../report/section';
import { renderTextTable } from '../report/table';
import { fleet, renderFleetSection } from './scenarios';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const full = args.includes('--full');
  const only = args.filter((arg) => !arg.startsWith('--')).map((arg) => arg.toLowerCase());
  const environment = describeEnvironment();
  console.log(`axios-safe-retry fleet benchmark, ${environment.date}`);
  for (const line of environment.lines) console.log(`  ${line}`);
  const report = await fleet({ full, only, progress: (line) => console.log(line) });
  console.log(`\n=== ${report.title} (${report.realSeconds.toFixed(0)} s real) ===\n`);
  for (const line of report.setup) console.log(`  ${line}`);
  for (const table of report.tables) console.log(`\n${renderTextTable(table)}`);
  if (report.targets.length > 0) console.log('\nTargets:');
  for (const check of report.targets) {
    const verdict = check.met === undefined ? 'info' : check.met ? 'met' : 'MISSED';
    console.log(`  [${verdict}] ${check.target}: ${check.measured}`);
  }
  if (args.includes('--no-write') || only.length || report.tables.length === 0) return;
  const command = `npm run bench:fleet${full ? ' -- --full' : ''}`;
  writeSection(
    'fleet',
    join(__dirname, '..', '..', 'BENCHMARKS.md'),
    renderFleetSection(report, command, environment.date),
  );
  console.log('\nWrote the fleet section of BENCHMARKS.md.');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
