import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { AxiosError } from 'axios';
import type { RetryOptions } from '../../src';
import { callIdHeader } from '../call-id';
import { createDemoClient } from '../demo-client';
import { type FlakyServerThread, startFlakyServerThread } from '../flaky-server-thread';
import { bold, cyan, detail, dim, red, seconds, yellow } from '../log';
import { describeFailure } from '../retry-log';
import type { Story } from '../story';
import type { StoryReport } from '../story-report';
import { countPerBucket, renderTimelineChart } from '../svg-chart';

const calls = 300;
/** Before the blip the client sends steady traffic, one GET every `warmUpEveryMs`: what the breaker learns as the origin's normal rate. */
const warmUpCalls = 120;
const warmUpEveryMs = 5;
const blipMs = 2000;
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

const retriesAlone: Variant = {
  label: 'retries alone',
  description:
    'circuitBreaker: false: every call retries into the dead port on its own full-jitter schedule',
  options: { ...options, circuitBreaker: false },
};
const withBreaker: Variant = {
  label: 'package defaults',
  description:
    'the circuit breaker holds the calls once the port is known dead, then releases them paced',
  options,
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
  /** Attempts that left the client (past the breaker), refused ones included. */
  readonly attemptsMs: number[];
  /** Arrivals per bucket during the steady traffic before the blip (median). */
  readonly steadyPerBucket: number;
  readonly retriesByCall: Map<string, RetryRecord[]>;
  readonly settledAtMs: number[];
  /** How each call ended: its final status, or why it failed. */
  readonly endingByCall: Map<string, string>;
  readonly successes: number;
  readonly stopReasons: Map<string, number>;
  /** `retryState.waitedMs` of each call that waited at the gate. */
  readonly waitedMs: number[];
  readonly breakerEvents: { readonly atMs: number; readonly state: string }[];
}

export const failoverBlip: Story = {
  title: 'A failover blip',
  setting:
    `after 1 s of steady traffic (one GET every ${warmUpEveryMs} ms), the server stops listening for ${seconds(blipMs)} ` +
    `(dropping its open keep-alive connections), then listens again on the same port; ${calls} concurrent GETs with ` +
    Object.entries(options)
      .map(([name, value]) => `${name}: ${value}`)
      .join(', '),
  async run(report) {
    // One run at a time: 300 clients already keep one event loop busy enough on a small machine.
    // One server thread serves both runs in turn (starting one costs a second or two).
    const server = await startFlakyServerThread();
    const runs: BlipRun[] = [];
    try {
      for (const variant of [retriesAlone, withBreaker]) {
        const run = await runBlip(server, variant);
        printRun(run, report);
        runs.push(run);
      }
    } finally {
      await server.close();
    }
    const [aloneRun, breakerRun] = runs as [BlipRun, BlipRun];

    for (const run of runs) {
      const refused = run.attemptsMs.filter((time) => time >= 0 && time < run.upAtMs).length;
      const arrivedWhileDown = run.arrivalsMs.filter(
        (time) => time >= 0 && time < run.upAtMs,
      ).length;
      report.check(
        run.successes === calls && refused > 0 && arrivedWhileDown === 0,
        `${run.variant.label}: all ${calls} calls rode through a real blip (${calls - run.successes} user-visible errors; ` +
          `${refused} attempts sent into the dead port, ${arrivedWhileDown} requests reached the server while it was down)`,
      );
    }
    const breakerPeak = peakAfter(breakerRun, breakerRun.upAtMs);
    const alonePeak = peakAfter(aloneRun, aloneRun.upAtMs);
    // How big the comeback herd of retries alone is depends on how many of their jittered
    // schedules the machine lines up: it is printed, not claimed against.
    report.check(
      breakerPeak <= 3 * breakerRun.steadyPerBucket,
      `the breaker released the waiting calls paced: at most ${breakerPeak} arrivals per ${bucketMs} ms ` +
        `after the comeback, within 3× the steady ${breakerRun.steadyPerBucket} before the blip (retries alone: ${alonePeak})`,
    );
    const oneProbe = breakerRun.arrivalsMs.filter(
      (time) => time >= breakerRun.upAtMs && time < firstCloseMs(breakerRun),
    ).length;
    report.check(
      breakerRun.breakerEvents.some((event) => event.state === 'open') && oneProbe <= 1,
      `the breaker opened during the blip and, once the port listened again, let ${oneProbe} probe through before it closed`,
    );
    detail(
      dim(
        `calls settled at median t=${seconds(median(breakerRun.settledAtMs))} with the breaker, ${seconds(median(aloneRun.settledAtMs))} with retries alone: ` +
          `the breaker finds the comeback at its next probe (up to 2 s late) and releases at about the rate it saw before; ` +
          `it opens only after a whole 1 s window of failures, so in a ${seconds(blipMs)} blip the calls still sent ` +
          `${sentWhileDown(breakerRun)} attempts into the dead port (${sentWhileDown(aloneRun)} with retries alone)`,
      ),
    );

    await mkdir(join(chartPath, '..'), { recursive: true });
    await writeFile(
      chartPath,
      renderTimelineChart({
        title: `${calls} GETs through a ${seconds(blipMs)} failover blip: when did they reach the server?`,
        bucketMs,
        panels: [aloneRun, breakerRun].map((run) => ({
          title: `${run.variant.label} (${run.variant.options.circuitBreaker === false ? 'circuitBreaker: false' : 'breaker on'}): at most ${peakAfter(run, 0)} arrivals per ${bucketMs} ms`,
          arrivalsMs: run.arrivalsMs,
          attemptsMs: run.attemptsMs,
          spans: [
            {
              fromMs: 0,
              toMs: run.upAtMs,
              label: 'server down: connections refused',
              kind: 'down' as const,
            },
          ],
          marks: run.breakerEvents.map((event) => ({
            atMs: event.atMs,
            label: event.state === 'half-open' ? 'probe' : event.state,
          })),
        })),
      }),
    );
    detail(
      `chart of arrivals per ${bucketMs} ms: ${cyan(relative(process.cwd(), chartPath) || chartPath)}`,
    );
  },
};

async function runBlip(server: FlakyServerThread, variant: Variant): Promise<BlipRun> {
  const retriesByCall = new Map<string, RetryRecord[]>();
  const events: { readonly at: number; readonly state: string }[] = [];
  const client = createDemoClient(server.url, {
    ...variant.options,
    ...(variant.options.circuitBreaker === false
      ? {}
      : {
          circuitBreaker: {
            onStateChange: (event) => events.push({ at: performance.now(), state: event.state }),
          },
        }),
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
    // Steady traffic: it fills the client's keep-alive pool, so the blip has open connections to
    // drop, and it is the rate the breaker will release the waiting calls at. Sent on schedule:
    // a late timer sends the calls that were due.
    await server.collect();
    const warmUp: Promise<unknown>[] = [];
    const warmUpStart = performance.now();
    while (warmUp.length < warmUpCalls) {
      const due = Math.min(
        warmUpCalls,
        Math.floor((performance.now() - warmUpStart) / warmUpEveryMs) + 1,
      );
      while (warmUp.length < due) warmUp.push(client.http.get('/warm-up', { retry: false }));
      await new Promise((resolve) => setTimeout(resolve, warmUpEveryMs));
    }
    await Promise.all(warmUp);
    const blip = await server.blip(blipMs);
    const since = (time: number): number => time - blip.downAt;
    const settledAtMs: number[] = [];
    const waitedMs: number[] = [];
    const stopReasons = new Map<string, number>();
    let successes = 0;
    const endingByCall = new Map<string, string>();
    const outcomes = Array.from({ length: calls }, (_, index) => {
      const id = String(index + 1);
      return client.http.get('/items', { headers: { [callIdHeader]: id } }).then(
        (response) => {
          successes += 1;
          const waited = response.config.retryState?.waitedMs;
          if (waited !== undefined) waitedMs.push(waited);
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
    const arrivals = (await server.collect()).map(since);
    const warmUpFrom = -warmUpCalls * warmUpEveryMs;
    const steady = countPerBucket(
      arrivals.map((time) => time - warmUpFrom),
      bucketMs,
      Math.floor(-warmUpFrom / bucketMs),
    ).sort((a, b) => a - b);
    return {
      variant,
      address: server.address,
      droppedConnections: blip.droppedConnections,
      upAtMs,
      arrivalsMs: arrivals.filter((time) => time >= 0),
      attemptsMs: client.attempts.map(since).filter((time) => time >= 0),
      steadyPerBucket: steady[Math.floor(steady.length / 2)] ?? 0,
      waitedMs: waitedMs.sort((a, b) => a - b),
      breakerEvents: events
        .map((event) => ({ atMs: since(event.at), state: event.state }))
        .filter((event) => event.atMs >= 0),
      retriesByCall,
      settledAtMs: settledAtMs.sort((a, b) => a - b),
      endingByCall,
      successes,
      stopReasons,
    };
  } catch (error) {
    client.close();
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
  if (run.breakerEvents.length > 0) {
    indent(
      `breaker: ${run.breakerEvents.map((event) => `${event.state} at t=${seconds(event.atMs)}`).join(' · ')}`,
    );
    const waited = run.waitedMs;
    indent(
      `${waited.length} calls waited at the breaker (retryState.waitedMs median ${seconds(waited[Math.floor(waited.length / 2)] ?? 0)}, ` +
        `max ${seconds(waited[waited.length - 1] ?? 0)}), then went out paced: ` +
        `at most ${peakAfter(run, run.upAtMs)} arrivals per ${bucketMs} ms after the comeback, steady ${run.steadyPerBucket} before the blip`,
    );
  }
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

function sentWhileDown(run: BlipRun): number {
  return run.attemptsMs.filter((time) => time >= 0 && time < run.upAtMs).length;
}

/** When the breaker closed after the comeback (Infinity if it never did). */
function firstCloseMs(run: BlipRun): number {
  return (
    run.breakerEvents.find((event) => event.state === 'closed' && event.atMs >= run.upAtMs)?.atMs ??
    Number.POSITIVE_INFINITY
  );
}

function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
}

/** The most requests that reached the server within one bucket from `fromMs` on. */
function peakAfter(run: BlipRun, fromMs: number): number {
  const times = run.arrivalsMs.map((time) => time - fromMs);
  const buckets = Math.ceil(Math.max(1, ...times) / bucketMs) + 1;
  return Math.max(...countPerBucket(times, bucketMs, buckets));
}
