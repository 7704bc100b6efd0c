/**
 * `npm run demo`: real axios calls through axios-safe-retry against flaky servers on 127.0.0.1.
 * Every number printed is measured in this run; the exit code is non-zero if any claim fails.
 */
import { bold, dim, green, heading, print, red, seconds } from './log';
import { ambiguousWrite } from './stories/ambiguous-write';
import { dependencyDies } from './stories/dependency-dies';
import { failoverBlip } from './stories/failover-blip';
import { manyProcesses } from './stories/many-processes';
import { rateLimited } from './stories/rate-limited';
import { riding503s } from './stories/riding-503s';
import { throughServices } from './stories/through-services';
import type { Story } from './story';
import { StoryReport } from './story-report';

// axios reads the stack of every failed attempt, and ts-node's source-map support makes each read
// cost about a millisecond: with thousands of refused connections that starves the event loop and
// bunches timers that should be spread out. V8's own stack traces are enough for a demo.
Reflect.deleteProperty(Error, 'prepareStackTrace');

const stories: readonly Story[] = [
  riding503s,
  failoverBlip,
  dependencyDies,
  rateLimited,
  manyProcesses,
  ambiguousWrite,
  throughServices,
];
/** If something still holds the event loop this long after the last story, the demo leaked it. */
const exitGraceMs = 3000;

let finished = false;
process.on('exit', (code) => {
  if (!finished && code === 0) {
    process.stderr.write(
      'demo: the event loop emptied before the stories finished (a promise never settled)\n',
    );
    process.exitCode = 1;
  }
});

async function main(): Promise<void> {
  const startedAt = performance.now();
  print(bold('axios-safe-retry demo') + dim(' — real axios calls to flaky servers on 127.0.0.1'));
  let claims = 0;
  let failed = 0;
  for (const [index, story] of stories.entries()) {
    heading(index + 1, story.title, story.setting);
    const report = new StoryReport();
    try {
      await story.run(report);
    } catch (error) {
      report.crashed(error);
    }
    claims += report.claimCount;
    failed += report.failedCount;
  }
  print();
  const elapsed = seconds(performance.now() - startedAt);
  if (failed === 0) {
    print(green(`All ${claims} claims held`) + dim(` (${elapsed})`));
  } else {
    print(red(`${failed} of ${claims} claims failed`) + dim(` (${elapsed})`));
    process.exitCode = 1;
  }
  finished = true;
  // The process should now exit by itself; if a socket or timer was left open, say so and exit anyway.
  setTimeout(() => {
    process.stderr.write(
      `demo: something kept the process alive ${exitGraceMs} ms after the last story\n`,
    );
    process.exit(1);
  }, exitGraceMs).unref();
}

main().catch((error: unknown) => {
  finished = true;
  process.stderr.write(
    `demo: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
