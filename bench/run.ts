import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { allContestants } from './contestants';
import { fleet, renderFleetSection } from './fleet/scenarios';
import { measureOverhead } from './overhead';
import { OURS, PEER } from './overhead-clients';
import { measureLoopbackOverhead } from './overhead-loopback';
import { describeEnvironment } from './report/environment';
import { fixed } from './report/format';
import { BENCH_COMMAND, renderBenchmarksMarkdown } from './report/markdown';
import { renderSection, withSection, writeSection } from './report/section';
import { renderArrivalChart } from './report/svg';
import { renderTextTable, type Table } from './report/table';
import { contentionHerd } from './scenarios/contention-herd';
import { failover } from './scenarios/failover';
import { fullOutage } from './scenarios/full-outage';
import { leakyBucket } from './scenarios/leaky-bucket';
import { neverWorse } from './scenarios/never-worse';
import { occasional429 } from './scenarios/occasional-429';
import { partialFailure } from './scenarios/partial-failure';
import { quotaWithHeaders } from './scenarios/quota-with-headers';
import { rateLimitedJob, rateLimitedJobAllAtOnce } from './scenarios/rate-limited-job';
import { routeScope } from './scenarios/route-scope';
import type { ScenarioReport, TargetCheck } from './scenarios/scenario';
import { sharedLimit } from './scenarios/shared-limit';
import { throughLayers } from './scenarios/through-layers';
import { wholeSecondResets } from './scenarios/whole-second-resets';

const REPO_ROOT = join(__dirname, '..');
const CHARTS_DIR = join(__dirname, 'charts');

function printTargets(targets: readonly TargetCheck[]): void {
  for (const check of targets) {
    const verdict = check.met === undefined ? 'info' : check.met ? 'met' : 'MISSED';
    console.log(`  [${verdict}] ${check.target}: ${check.measured}`);
  }
}

function printScenario(report: ScenarioReport): void {
  console.log(`\n=== ${report.title} (${fixed(report.realSeconds, 1)} s real) ===\n`);
  for (const line of report.setup) console.log(`  ${line}`);
  for (const table of report.tables) console.log(`\n${renderTextTable(table)}`);
  if (report.targets.length > 0) console.log('\nTargets:');
  printTargets(report.targets);
}

/** Ours against bare axios and against axios-retry, on one transport. */
function overheadTargets(where: string, ratioToBare: ReadonlyMap<string, number>): TargetCheck[] {
  const ours = ratioToBare.get(OURS) ?? 0;
  const peer = ratioToBare.get(PEER) ?? 0;
  return [
    {
      target: `overhead (${where}): ours within 5% of bare axios`,
      met: ours >= 0.95,
      measured: `${fixed(ours)}× bare axios`,
    },
    {
      target: `overhead (${where}): ours at least axios-retry's ratio`,
      met: ours >= peer,
      measured: `${fixed(ours)}× vs ${fixed(peer)}× bare axios`,
    },
  ];
}

/** Both overhead tables, measured in one run, and their targets. */
async function runOverhead(): Promise<{ tables: Table[]; targets: TargetCheck[] }> {
  console.log('\n=== Overhead (real time) ===\n');
  const mock = await measureOverhead();
  console.log(renderTextTable(mock.table));
  const loopback = await measureLoopbackOverhead();
  console.log(`\n${renderTextTable(loopback.table)}`);
  const targets = [
    ...overheadTargets('mock adapter', mock.ratioToBare),
    ...overheadTargets('loopback, keep-alive', loopback.ratioToBare),
  ];
  printTargets(targets);
  return { tables: [mock.table, loopback.table], targets };
}

async function main(): Promise<void> {
  const startedAt = performance.now();
  const environment = describeEnvironment();
  console.log(`axios-safe-retry benchmarks, ${environment.date}`);
  for (const line of environment.lines) console.log(`  ${line}`);

  // `npm run bench -- failover herd`: only the scenarios whose function name matches, printed
  // but not written (BENCHMARKS.md always holds a whole run).
  const only = process.argv.slice(2).map((name) => name.toLowerCase());
  const all = [
    contentionHerd,
    fullOutage,
    partialFailure,
    failover,
    rateLimitedJob,
    rateLimitedJobAllAtOnce,
    quotaWithHeaders,
    leakyBucket,
    occasional429,
    routeScope,
    sharedLimit,
    wholeSecondResets,
    // Real time on loopback (issue 16): `npm run bench -- layers`.
    throughLayers,
  ];
  const chosen = all.filter(
    (s) => !only.length || only.some((n) => s.name.toLowerCase().includes(n)),
  );
  const scenarios: ScenarioReport[] = [];
  for (const scenario of chosen) {
    const report = await scenario();
    printScenario(report);
    scenarios.push(report);
  }
  // Real processes on loopback with a real redis-server (issue 15), about 5 minutes:
  // `npm run bench -- fleet`, or alone with `npm run bench:fleet`. Its own section of BENCHMARKS.md.
  let fleetReport: ScenarioReport | undefined;
  if (!only.length || only.some((name) => 'fleet'.includes(name))) {
    console.log('\n=== Fleet (real processes) ===\n');
    fleetReport = await fleet({ progress: (line) => console.log(line) });
    printScenario(fleetReport);
  }

  // The "never worse than off" search (issue 21), about 15 minutes: `npm run bench -- never-worse`
  // rewrites its own section of BENCHMARKS.md; a whole run writes it with the rest.
  let neverWorseSection: string | undefined;
  if (!only.length || only.includes('never-worse')) {
    console.log('\n=== Never worse than off (virtual time) ===\n');
    const cases = Number(process.env.NEVER_WORSE_CASES) || undefined;
    // `NEVER_WORSE_BASELINE=main`: each case judged against the package at that ref too (printed,
    // not written: BENCHMARKS.md holds the run against off alone).
    const baseline = process.env.NEVER_WORSE_BASELINE || undefined;
    const report = await neverWorse({
      cases,
      baseline,
      progress: (line) => console.log(`  ${line}`),
    });
    printScenario(report);
    neverWorseSection = renderSection('never-worse', report, {
      command: 'npm run bench -- never-worse',
      date: environment.date,
    });
    if (only.length && !cases && !baseline)
      writeSection('never-worse', join(REPO_ROOT, 'BENCHMARKS.md'), neverWorseSection);
  }

  // `npm run bench -- overhead`: both overhead tables, printed but not written.
  if (only.includes('overhead')) await runOverhead();
  if (only.length) return;
  const overhead = await runOverhead();
  const { targets } = overhead;

  mkdirSync(CHARTS_DIR, { recursive: true });
  for (const chart of scenarios.flatMap((scenario) => scenario.charts)) {
    writeFileSync(join(CHARTS_DIR, chart.file), renderArrivalChart(chart));
  }
  const realSeconds = (performance.now() - startedAt) / 1000;
  const document = renderBenchmarksMarkdown({
    environment,
    contestants: allContestants,
    scenarios,
    overhead,
    realSeconds,
  });
  const withFleet = fleetReport
    ? withSection(
        'fleet',
        document,
        renderFleetSection(fleetReport, BENCH_COMMAND, environment.date),
      )
    : document;
  writeFileSync(
    join(REPO_ROOT, 'BENCHMARKS.md'),
    neverWorseSection ? withSection('never-worse', withFleet, neverWorseSection) : withFleet,
  );
  const checks = [
    ...scenarios.flatMap((scenario) => scenario.targets),
    ...(fleetReport?.targets ?? []),
    ...targets,
  ].filter((check) => check.met !== undefined);
  console.log(`\nTargets met: ${checks.filter((check) => check.met).length} of ${checks.length}`);
  console.log(
    `Wrote BENCHMARKS.md and ${scenarios.flatMap((scenario) => scenario.charts).length} charts in bench/charts/ (${fixed(realSeconds, 0)} s).`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
