import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { AxiosError } from 'axios';
import type { CircuitStateChange } from '../../src';
import { callIdHeader, callIdOf } from '../call-id';
import { createDemoClient } from '../demo-client';
import { FlakyServer } from '../flaky-server';
import { bold, count, cyan, detail, dim, ms, red, seconds, yellow } from '../log';
import type { Story } from '../story';
import { countPerBucket, renderTimelineChart, type Span } from '../svg-chart';

/** One call every `tickMs`, alternately with and without a deadline. */
const tickMs = 20;
const diesAtMs = 1000;
const backAtMs = 3000;
/** The traffic stops here; the story then waits for every call to settle. */
const trafficEndsAtMs = 4000;
const deadlineMs = 5000;
/** Soon after the breaker opens, this many calls without a deadline are made back to back and timed. */
const burstCalls = 100;
const burstDelayMs = 100;
/**
 * How long a call without a deadline waits for an open breaker at most: as long as its retries
 * could have taken at their backoff's ceilings (the defaults: 100 + 200 + 400 ms).
 */
const noDeadlineWaitMs = 700;
const bucketMs = 100;
const chartPath = join(__dirname, '..', 'output', 'breaker.svg');

type Kind = 'deadline' | 'no deadline';
type State = CircuitStateChange['state'];

interface Call {
  readonly id: string;
  readonly kind: Kind;
  readonly burst: boolean;
  /** ms since time zero. */
  readonly startMs: number;
  /** The breaker's state when the call was made. */
  readonly stateAtStart: State;
  endMs?: number;
  /** `200`, or the error code and stop reason. */
  outcome?: string;
  code?: string | undefined;
  waitedMs?: number;
  /** When the server saw it (its last attempt), ms since time zero. */
  arrivedMs?: number;
}

interface Transition {
  readonly atMs: number;
  readonly from: State;
  readonly to: State;
}

export const dependencyDies: Story = {
  title: 'A dependency dies',
  setting:
    `one call every ${tickMs} ms, alternately with retry: { deadlineMs: ${deadlineMs} } and with no deadline; ` +
    `the server refuses connections from t=${seconds(diesAtMs)} to t=${seconds(backAtMs)}; ` +
    'package defaults (circuit breaker and pacing on)',
  async run(report) {
    let zero = performance.now();
    const now = (): number => performance.now() - zero;
    const arrivalsById = new Map<string, number>();
    const server = await FlakyServer.start((request, response) => {
      arrivalsById.set(callIdOf(request), now());
      response.end('{"ok":true}');
    });
    let state: State = 'closed';
    const transitions: Transition[] = [];
    const calls: Call[] = [];
    const settled: Promise<void>[] = [];
    let nextId = 1;

    function call(kind: Kind, burst = false): Promise<void> {
      const record: Call = {
        id: String(nextId++),
        kind,
        burst,
        startMs: now(),
        stateAtStart: state,
      };
      calls.push(record);
      const startedAt = performance.now();
      const done = client.http
        .get('/stock', {
          headers: { [callIdHeader]: record.id },
          // The burst's calls have no retries: one with none left fails fast at an open breaker.
          ...(kind === 'deadline'
            ? { retry: { deadlineMs } }
            : burst
              ? { retry: { retries: 0 } }
              : {}),
        })
        .then(
          (response) => {
            record.outcome = String(response.status);
            record.waitedMs = response.config.retryState?.waitedMs ?? 0;
          },
          (error: AxiosError) => {
            record.code = error.code;
            record.outcome = `${error.code}, stopReason ${error.config?.retryState?.stopReason}`;
          },
        )
        .then(() => {
          record.endMs = record.startMs + (performance.now() - startedAt);
        });
      settled.push(done);
      return done;
    }

    /** Back-to-back calls while the breaker stays open (the retries that opened it have settled by then). */
    async function burstWhileOpen(): Promise<void> {
      for (let i = 0; i < burstCalls && state === 'open'; i += 1) await call('no deadline', true);
    }

    const client = createDemoClient(server.url, {
      circuitBreaker: {
        onStateChange: (event) => {
          transitions.push({ atMs: now(), from: event.previousState, to: event.state });
          state = event.state;
          if (event.state === 'open' && transitions.length === 1) {
            setTimeout(burstWhileOpen, burstDelayMs);
          }
        },
      },
    });

    let downAtMs = Number.NaN;
    let upAtMs = Number.NaN;
    try {
      zero = performance.now();
      const outage = (async () => {
        await sleepUntil(now, diesAtMs);
        downAtMs = now();
        await server.goDown();
        await sleepUntil(now, backAtMs);
        await server.comeBack();
        upAtMs = now();
      })();
      let tick = 0;
      while (now() < trafficEndsAtMs) {
        void call(tick % 2 === 0 ? 'deadline' : 'no deadline');
        tick += 1;
        await sleepUntil(now, tick * tickMs);
      }
      await outage;
      // A burst call may still be pushing more calls: wait until the list stops growing.
      for (let seen = 0; seen < settled.length; ) {
        seen = settled.length;
        await Promise.all(settled);
      }
    } finally {
      client.close();
      await server.close();
    }
    for (const record of calls) record.arrivedMs = arrivalsById.get(record.id);
    const sendsMs = client.attempts.map((time) => time - zero);
    printAndCheck(report, {
      calls,
      transitions,
      downAtMs,
      upAtMs,
      sendsMs,
      serverUrl: server.address,
    });
    await drawChart({ calls, transitions, downAtMs, upAtMs, sendsMs, serverUrl: server.address });
  },
};

interface Run {
  readonly calls: readonly Call[];
  readonly transitions: readonly Transition[];
  readonly downAtMs: number;
  readonly upAtMs: number;
  /** Attempts that left the client (past the breaker and the pacing), refused ones included. */
  readonly sendsMs: readonly number[];
  readonly serverUrl: string;
}

function printAndCheck(report: Parameters<Story['run']>[0], run: Run): void {
  const { calls, transitions, downAtMs, upAtMs, sendsMs } = run;
  const indent = (text: string): void => detail(`  ${text}`);
  detail(
    `server ${run.serverUrl}: healthy, stopped listening at t=${seconds(downAtMs)}, ` +
      `listened again at t=${seconds(upAtMs)}`,
  );
  detail('breaker events (onStateChange):');
  for (const t of transitions) {
    const colour = t.to === 'open' ? red : t.to === 'closed' ? (x: string) => x : yellow;
    indent(`t=${seconds(t.atMs)}  ${t.from} → ${colour(t.to)}`);
  }
  const firstOpen = transitions.find((t) => t.to === 'open');
  const closedAgain = transitions.find((t) => t.to === 'closed' && t.atMs > (firstOpen?.atMs ?? 0));
  const opened = firstOpen !== undefined && firstOpen.atMs > downAtMs && firstOpen.atMs < upAtMs;
  report.check(
    opened && closedAgain !== undefined && closedAgain.atMs > upAtMs,
    `the breaker opened while the server was down (${firstOpen ? `${ms(firstOpen.atMs - downAtMs)} after it died` : 'never'}) ` +
      `and closed once it was back (${closedAgain ? `${ms(closedAgain.atMs - upAtMs)} after it listened again` : 'never'})`,
  );
  if (!firstOpen || !closedAgain) return;
  const openFrom = firstOpen.atMs;
  const openTo = closedAgain.atMs;

  // Before it opened: the breaker waits for a whole window of failures, and retries run as before.
  const dying = calls.filter((c) => c.startMs >= downAtMs && c.startMs < openFrom && !c.burst);
  const dyingFailed = dying.filter((c) => c.outcome !== '200');
  detail(
    `${bold('while the breaker was still closed')} (t=${seconds(downAtMs)}–${seconds(openFrom)}): ` +
      `${count(dying.length, 'call')} made, ${dyingFailed.length} failed ` +
      dim(
        '(it opens only when its 1 s window holds 10 attempts or more and no success; until then, calls retry as before)',
      ),
  );
  for (const [outcome, n] of tally(dyingFailed.map((c) => `${c.kind}: ${c.outcome}`))) {
    indent(`${n} × ${yellow(outcome)}`);
  }

  // While open: nothing sent but one probe per break; no deadline waits no longer than its
  // retries would have taken, and fails fast when the break ends later.
  const breaks = transitions.filter((t) => t.to === 'half-open' && t.atMs <= openTo).length;
  const sentWhileOpen = sendsMs.filter((time) => time > openFrom && time <= openTo).length;
  detail(
    `${bold('while it was open or half-open')} (t=${seconds(openFrom)}–${seconds(openTo)}): ` +
      `${count(breaks, 'break')} ended in a probe; the client sent ${count(sentWhileOpen, 'request')} in that time`,
  );
  report.check(
    breaks > 0 && sentWhileOpen === breaks,
    `one probe per break: ${count(sentWhileOpen, 'request')} sent for ${count(breaks, 'break')}`,
  );
  const duringOpen = (c: Call): boolean => c.startMs > openFrom && c.startMs < openTo;
  const fast = calls.filter((c) => c.kind === 'no deadline' && duringOpen(c));
  const burst = fast.filter((c) => c.burst && c.code === 'ERR_CIRCUIT_OPEN').map(durationOf);
  const stream = fast.filter((c) => !c.burst);
  const streamMs = stream.map(durationOf);
  indent(
    `calls without a deadline: ${count(fast.length, 'call')} made while it was open, ` +
      `${fast.filter((c) => c.code === 'ERR_CIRCUIT_OPEN').length} failed with ${red('ERR_CIRCUIT_OPEN')}, sending nothing` +
      dim(
        ` (the rest: ${[...tally(fast.filter((c) => c.code !== 'ERR_CIRCUIT_OPEN').map((c) => c.outcome ?? ''))].map(([o, n]) => `${n} × ${o}`).join(', ') || 'none'})`,
      ),
  );
  indent(
    `  ${burst.length} with no retries, made back to back ${ms(burstDelayMs)} after it opened: median ${micro(quantile(burst, 0.5))}, ` +
      `p90 ${micro(quantile(burst, 0.9))}, max ${micro(quantile(burst, 1))} each`,
  );
  indent(
    `  ${stream.length} from the ${tickMs * 2} ms stream, with the default 3 retries: median ${micro(quantile(streamMs, 0.5))}, ` +
      `p90 ${micro(quantile(streamMs, 0.9))}, max ${micro(quantile(streamMs, 1))} each`,
  );
  report.check(
    burst.length >= burstCalls * 0.9 && quantile(burst, 0.5) < 0.5 && quantile(burst, 0.9) < 2,
    `calls with no retries left failed fast while it was open: ${burst.length} back-to-back calls ` +
      `rejected with ERR_CIRCUIT_OPEN, median ${micro(quantile(burst, 0.5))}, p90 ${micro(quantile(burst, 0.9))}`,
  );
  // The breaker's wait ends where the retries would have: each such call fails by then, or is
  // let through (a probe, or released once the breaker closed) and succeeds. A call that was a
  // failed probe keeps its probe's error when its retry is stopped at the breaker (stop reason
  // `circuit-open`). A margin for late timers.
  const gaveUp = stream
    .filter((c) => c.outcome?.endsWith('stopReason circuit-open'))
    .map(durationOf);
  const succeeded = stream.filter((c) => c.outcome === '200').length;
  report.check(
    gaveUp.length > 0 &&
      gaveUp.length + succeeded === stream.length &&
      quantile(gaveUp, 1) < noDeadlineWaitMs + 250,
    `the ${stream.length} stream calls without a deadline that met it open: ${gaveUp.length} stopped at the breaker ` +
      `within what their retries would have taken (${ms(noDeadlineWaitMs)}; max ${micro(quantile(gaveUp, 1))}), ${succeeded} waited and succeeded`,
  );

  // With a deadline: waited, then succeeded after the comeback, released spread out.
  const waiting = calls.filter((c) => c.kind === 'deadline' && duringOpen(c));
  // (One of them may have been the probe that closed the breaker: it arrived just before the close.)
  const waitingOk = waiting.filter((c) => c.outcome === '200' && (c.arrivedMs ?? 0) >= upAtMs);
  const waits = waiting.map((c) => c.waitedMs ?? 0);
  indent(
    `calls with a deadline: ${waitingOk.length} of ${waiting.length} waited ` +
      `(retryState.waitedMs median ${ms(quantile(waits, 0.5))}, max ${ms(quantile(waits, 1))}) ` +
      'and succeeded after the comeback',
  );
  for (const [outcome, n] of tally(
    waiting
      .filter((c) => !waitingOk.includes(c))
      .map((c) => `${c.outcome} (made at t=${seconds(c.startMs)}, in state ${c.stateAtStart})`),
  )) {
    indent(`  ${n} × ${yellow(outcome)}`);
  }
  report.check(
    waiting.length > 0 && waitingOk.length === waiting.length,
    `every call with a deadline made while the breaker was open succeeded after the comeback (${waitingOk.length}/${waiting.length})`,
  );

  const released = calls
    .filter((c) => c.startMs < openTo && c.outcome === '200' && (c.arrivedMs ?? 0) >= openTo)
    .sort((a, b) => (a.arrivedMs ?? 0) - (b.arrivedMs ?? 0));
  const outOfOrder = released.filter(
    (c, i) => i > 0 && c.startMs < (released[i - 1]?.startMs ?? 0),
  );
  const lastRelease = Math.max(...released.map((c) => c.arrivedMs ?? 0));
  const arrivals = calls.flatMap((c) => (c.arrivedMs === undefined ? [] : [c.arrivedMs]));
  const steady = steadyPerBucket(arrivals, downAtMs);
  const afterBuckets = countPerBucket(
    arrivals.map((time) => time - openTo),
    bucketMs,
    Math.ceil((lastRelease - openTo) / bucketMs) + 1,
  );
  const peak = Math.max(...afterBuckets);
  detail(
    `${bold('after the comeback')}: ${count(released.length, 'waiting call')} released over ${ms(lastRelease - openTo)}, ` +
      `oldest first (${outOfOrder.length} out of order); arrivals per ${bucketMs} ms: ` +
      `${afterBuckets.join(' ')} ${dim(`(steady rate before the outage: ${steady.toFixed(1)})`)}`,
  );
  report.check(
    released.length >= 10 && peak <= 4 * steady && peak < released.length / 2,
    `released spread out, not at once: at most ${peak} arrivals per ${bucketMs} ms after the comeback ` +
      `(steady ${steady.toFixed(1)}; ${released.length} calls were waiting)`,
  );
  report.check(
    outOfOrder.length <= released.length / 10,
    `released oldest first: ${released.length - outOfOrder.length} of ${released.length} reached the server in the order they were made`,
  );

  const done = calls.filter((c) => !c.burst);
  const ok = done.filter((c) => c.outcome === '200').length;
  report.summary('summary (the stream; the back-to-back calls left out)', {
    calls: done.length,
    successes: ok,
    userVisibleErrors: done.length - ok,
    serverArrivals: arrivals.length,
    elapsedMs: Math.max(...calls.map((c) => c.endMs ?? 0)),
  });
}

async function drawChart(run: Run): Promise<void> {
  // The breaker holds calls from its first opening to its closing (probes included): one span.
  const opened = run.transitions.find((t) => t.to === 'open');
  const closed = [...run.transitions].reverse().find((t) => t.to === 'closed');
  const spans: Span[] = [
    ...(opened
      ? [
          {
            fromMs: opened.atMs,
            toMs: closed?.atMs ?? Math.max(...run.transitions.map((t) => t.atMs)),
            label: 'breaker open: calls held',
            kind: 'held' as const,
          },
        ]
      : []),
    {
      fromMs: run.downAtMs,
      toMs: run.upAtMs,
      label: 'server down: connections refused',
      endLabel: `server back at ${seconds(run.upAtMs)}`,
      kind: 'down',
    },
  ];
  const marks = run.transitions.map((t) => ({
    atMs: t.atMs,
    label: t.to === 'half-open' ? 'probe' : t.to,
  }));
  await mkdir(join(chartPath, '..'), { recursive: true });
  await writeFile(
    chartPath,
    renderTimelineChart({
      title: `A dependency dies for ${seconds(run.upAtMs - run.downAtMs)}: one call every ${tickMs} ms, through the circuit breaker`,
      bucketMs,
      panels: [
        {
          title:
            'package defaults: the breaker opens, probes once per break, and releases the waiting calls paced',
          arrivalsMs: run.calls.flatMap((c) => (c.arrivedMs === undefined ? [] : [c.arrivedMs])),
          attemptsMs: run.sendsMs,
          spans,
          marks,
        },
      ],
    }),
  );
  detail(
    `chart of arrivals per ${bucketMs} ms: ${cyan(relative(process.cwd(), chartPath) || chartPath)}`,
  );
}

function durationOf(c: Call): number {
  return (c.endMs ?? Number.NaN) - c.startMs;
}

/** The value at `share` of the sorted values (0: the least, 1: the greatest); NaN if there are none. */
function quantile(values: readonly number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? Number.NaN;
}

/** The median arrivals per bucket while the server was healthy (the first 200 ms left out: start-up). */
function steadyPerBucket(arrivalsMs: readonly number[], untilMs: number): number {
  const from = 200;
  const buckets = Math.floor((untilMs - from) / bucketMs);
  const counts = countPerBucket(
    arrivalsMs.map((time) => time - from),
    bucketMs,
    buckets,
  );
  return quantile(counts, 0.5);
}

function tally(values: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
}

function micro(valueMs: number): string {
  return `${valueMs.toFixed(2)} ms`;
}

function sleepUntil(now: () => number, atMs: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, atMs - now())));
}
