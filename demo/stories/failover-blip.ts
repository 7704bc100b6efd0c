import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { AxiosError } from 'axios';
import type { RetryOptions } from '../../src';
import { callIdHeader } from '../call-id';
import { createDemoClient } from '../demo-client';
import { startFlakyServerThread } from '../flaky-server-thread';
import { bold, cyan, detail, dim, red, seconds, yellow } from '../log';
import { describeFailure } from '../retry-log';
import type { Story } from '../story';
import type { StoryReport } from '../story-report';
import { countPerBucket, renderTimelineChart } from '../svg-chart';

const calls = 300;
const warmUpCalls = 20;
const blipMs = 3000;
const bucketMs = 100;
/**
 * A 2 s backoff cap keeps the comeback short: under the default 20 s cap, a call that has failed
 * 8 times draws its next wait from up to 12.8 s, so stragglers would arrive until the deadline.
 */
const options: RetryOptions = { retries: 15, maxDelayMs: 2000, deadlineMs: 15000 };
const chartPath = join(__dirname, '..', 'output', 'arrivals.svg');

interface Variant {
  readonly label: string;
  readonly description: string;
  readonly options: RetryOptions;
}

const fullJitter: Variant = {
  label: 'full jitter',
  description: 'the package default: each wait drawn from [0, ceiling)',
  options,
};
const synchronised: Variant = {
  label: 'synchronised',
  description: 'random: () => 1, so every client waits exactly the backoff ceiling',
  options: { ...options, random: () => 1 },
};

interface RetryRecord {
  readonly attempt: number;
  readonly reason: string;
  readonly delayMs: number;
}

/** What one run of the blip measured; times are in ms since the server went down. */
interface BlipRun {
  readonly variant: Variant;
  readonly address: string;
  readonly droppedConnections: number;
  readonly upAtMs: number;
  readonly arrivalsMs: number[];
  readonly attemptsMs: number[];
  readonly retriesByCall: Map<string, RetryRecord[]>;
  readonly settledAtMs: number[];
  /** How each call ended: its final status, or why it failed. */
  readonly endingByCall: Map<string, string>;
  readonly successes: number;
  readonly stopReasons: Map<string, number>;
}

export const failoverBlip: Story = {
  title: 'A failover blip',
  setting:
    `the server stops listening for ${seconds(blipMs)} (dropping its open keep-alive connections), then listens again ` +
    `on the same port; ${calls} concurrent GETs with ` +
    Object.entries(options)
      .map(([name, value]) => `${name}: ${value}`)
      .join(', '),
  async run(report) {
    // One run at a time: 300 clients already keep one event loop busy enough on a small machine.
    const runs: BlipRun[] = [];
    for (const variant of [synchronised, fullJitter]) {
      const run = await runBlip(variant);
      printRun(run, report);
      runs.push(run);
    }
    const [syncRun, jitterRun] = runs as [BlipRun, BlipRun];

    const [syncPeak, jitterPeak] = runs.map(peakArrivals) as [number, number];
    report.check(
      jitterRun.successes === calls,
      `with full jitter, all ${calls} calls rode through the blip (${calls - jitterRun.successes} user-visible errors)`,
    );
    for (const run of runs) {
      const refused = [...run.retriesByCall.values()]
        .flat()
        .filter((retry) => retry.reason === 'ECONNREFUSED').length;
      const arrivedWhileDown = run.arrivalsMs.filter(
        (time) => time >= 0 && time < run.upAtMs,
      ).length;
      report.check(
        refused > 0 && arrivedWhileDown === 0,
        `${run.variant.label}: the blip was real (${refused} connections refused, ` +
          `${arrivedWhileDown} requests reached the server while it was down)`,
      );
    }
    report.check(
      jitterPeak < syncPeak,
      `full jitter spread the comeback: at most ${jitterPeak} arrivals per ${bucketMs} ms, against ${syncPeak} when synchronised`,
    );

    await mkdir(join(chartPath, '..'), { recursive: true });
    await writeFile(
      chartPath,
      renderTimelineChart({
        title: `${calls} GETs through a ${seconds(blipMs)} failover blip: when did they reach the server?`,
        bucketMs,
        panels: [syncRun, jitterRun].map((run) => ({
          title: `${run.variant.label} (${run.variant.description}): at most ${peakArrivals(run)} arrivals per ${bucketMs} ms`,
          arrivalsMs: run.arrivalsMs,
          attemptsMs: run.attemptsMs,
          downMs: [0, run.upAtMs] as const,
        })),
      }),
    );
    detail(
      `chart of arrivals per ${bucketMs} ms: ${cyan(relative(process.cwd(), chartPath) || chartPath)}`,
    );
  },
};

async function runBlip(variant: Variant): Promise<BlipRun> {
  const server = await startFlakyServerThread();
  const retriesByCall = new Map<string, RetryRecord[]>();
  const client = createDemoClient(server.url, {
    ...variant.options,
    onRetry: (event) => {
      const id = String(event.config.headers.get(callIdHeader));
      const records = retriesByCall.get(id) ?? [];
      records.push({
        attempt: event.retryCount,
        reason: describeFailure(event.error),
        delayMs: event.delayMs,
      });
      retriesByCall.set(id, records);
    },
  });
  try {
    // Fill the client's keep-alive pool, so the blip has open connections to drop.
    await Promise.all(
      Array.from({ length: warmUpCalls }, () => client.http.get('/warm-up', { retry: false })),
    );
    const blip = await server.blip(blipMs);
    const since = (time: number): number => time - blip.downAt;
    const settledAtMs: number[] = [];
    const stopReasons = new Map<string, number>();
    let successes = 0;
    const endingByCall = new Map<string, string>();
    const outcomes = Array.from({ length: calls }, (_, index) => {
      const id = String(index + 1);
      return client.http.get('/items', { headers: { [callIdHeader]: id } }).then(
        (response) => {
          successes += 1;
          endingByCall.set(id, String(response.status));
          settledAtMs.push(since(performance.now()));
        },
        (error: AxiosError) => {
          const reason = `${describeFailure(error)}, stopReason ${error.config?.retryState?.stopReason}`;
          stopReasons.set(reason, (stopReasons.get(reason) ?? 0) + 1);
          endingByCall.set(id, red(reason));
          settledAtMs.push(since(performance.now()));
        },
      );
    });
    const upAtMs = since(await blip.backUpAt);
    await Promise.all(outcomes);
    client.close();
    const arrivals = await server.close();
    return {
      variant,
      address: server.address,
      droppedConnections: blip.droppedConnections,
      upAtMs,
      arrivalsMs: arrivals.map(since).filter((time) => time >= 0),
      attemptsMs: client.attempts.map(since).filter((time) => time >= 0),
      retriesByCall,
      settledAtMs: settledAtMs.sort((a, b) => a - b),
      endingByCall,
      successes,
      stopReasons,
    };
  } catch (error) {
    client.close();
    await server.close();
    throw error;
  }
}

function printRun(run: BlipRun, report: StoryReport): void {
  detail(`${bold(run.variant.label)} ${dim(`(${run.variant.description})`)}`);
  const indent = (text: string): void => detail(`  ${text}`);
  indent(
    `server ${run.address} went down at t=0 (dropped ${run.droppedConnections} open connections), ` +
      `listened again on the same port at t=${seconds(run.upAtMs)}`,
  );
  const retries = [...run.retriesByCall.values()].flat();
  const byReason = new Map<string, number>();
  for (const retry of retries) byReason.set(retry.reason, (byReason.get(retry.reason) ?? 0) + 1);
  indent(
    `${retries.length} retries: ` +
      [...byReason].map(([reason, count]) => `${yellow(reason)} ×${count}`).join(' · '),
  );
  const perCall = Array.from(
    { length: calls },
    (_, index) => run.retriesByCall.get(String(index + 1))?.length ?? 0,
  );
  const sorted = [...perCall].sort((a, b) => a - b);
  indent(
    `retries per call: min ${sorted[0]} · median ${sorted[Math.floor(calls / 2)]} · max ${sorted[calls - 1]}`,
  );
  const mostRetried = perCall.indexOf(sorted[calls - 1] ?? 0) + 1;
  const trail = run.retriesByCall.get(String(mostRetried)) ?? [];
  indent(
    `call ${mostRetried} (most retries): ${describeReasons(trail)}; ` +
      `waits ${trail.map((retry) => Math.round(retry.delayMs)).join(', ')} ms; attempt ${trail.length + 1} → ${run.endingByCall.get(String(mostRetried))}`,
  );
  const settled = run.settledAtMs;
  const at = (share: number): string =>
    seconds(settled[Math.min(settled.length - 1, Math.floor(share * settled.length))] ?? 0);
  indent(
    `calls settled at t = ${at(0)} first · ${at(0.5)} median · ${at(0.9)} p90 · ${at(1)} last`,
  );
  for (const [reason, count] of run.stopReasons) indent(red(`${count} calls failed: ${reason}`));
  const budgetStops = [...run.stopReasons]
    .filter(([reason]) => reason.endsWith('budget-exhausted'))
    .reduce((sum, [, count]) => sum + count, 0);
  indent(
    `retry budget (default): stopped ${budgetStops} calls; ` +
      dim('refused connections are never charged to it, only retries of requests that were sent'),
  );
  report.summary('  summary', {
    calls,
    successes: run.successes,
    userVisibleErrors: calls - run.successes,
    serverArrivals: run.arrivalsMs.length,
    elapsedMs: settled[settled.length - 1] ?? 0,
  });
}

/** `attempt 1 ECONNRESET, attempts 2–5 ECONNREFUSED`: the reasons of consecutive attempts, run-length grouped. */
function describeReasons(trail: readonly RetryRecord[]): string {
  const groups: { first: number; last: number; reason: string }[] = [];
  for (const retry of trail) {
    const previous = groups[groups.length - 1];
    if (previous?.reason === retry.reason) previous.last = retry.attempt;
    else groups.push({ first: retry.attempt, last: retry.attempt, reason: retry.reason });
  }
  return groups
    .map(({ first, last, reason }) =>
      first === last
        ? `attempt ${first} ${yellow(reason)}`
        : `attempts ${first}–${last} ${yellow(reason)}`,
    )
    .join(', ');
}

/** The most requests that reached the server within one bucket. */
function peakArrivals(run: BlipRun): number {
  const buckets = Math.ceil(Math.max(1, ...run.arrivalsMs) / bucketMs) + 1;
  return Math.max(...countPerBucket(run.arrivalsMs, bucketMs, buckets));
}
