import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { AxiosError } from 'axios';
import { AttemptCounter, callIdHeader, callIdOf } from '../call-id';
import { createDemoClient } from '../demo-client';
import { FlakyServer } from '../flaky-server';
import { bold, cyan, detail, dim, ms, seconds } from '../log';
import { describeFinalFailure, describeRetry, describeSuccess } from '../retry-log';
import type { Story } from '../story';
import type { StoryReport } from '../story-report';
import { countPerBucket, renderTimelineChart } from '../svg-chart';

type RetryAfterForm = 'seconds' | 'http-date';

/** What the server told one call to wait, and when that call came back. */
interface Throttle {
  readonly form: RetryAfterForm;
  readonly askedMs: number;
  /** For the HTTP-date form: the wall-clock instant before which the server asked not to be called. */
  notBefore?: number;
  /** `performance.now()` when the 429 was fully sent. */
  sentAt?: number;
  /** `performance.now()` and wall clock when the retry arrived. */
  retriedAt?: number;
  retriedAtWall?: number;
}

const askedSeconds: Record<RetryAfterForm, number> = { seconds: 1, 'http-date': 2 };
/** How much later than asked the retry may arrive: the first retry's jitter ceiling (100 ms) plus room for a busy machine. */
const lateToleranceMs = 100 + 400;
/** Timers and clocks are whole milliseconds: allow that much rounding. */
const earlyToleranceMs = 2;

/** The job: this many GETs, this many at a time, against a fixed window of `limit` per second. */
const jobCalls = 70;
const jobConcurrency = 10;
const limit = 20;
const windowMs = 1000;
const chartPath = join(__dirname, '..', 'output', 'rate-limit.svg');

export const rateLimited: Story = {
  title: 'A rate-limited API',
  setting:
    'first the server answers 429 with Retry-After once per call (seconds form, then HTTP-date form against its Date header), then 200; ' +
    `then a job of ${jobCalls} GETs, ${jobConcurrency} at a time, meets a fixed-window limit of ${limit} per second (429 + Retry-After), package defaults`,
  async run(report) {
    await retryAfterForms(report);
    await learningTheLimit(report);
  },
};

async function retryAfterForms(report: StoryReport): Promise<void> {
  {
    const counter = new AttemptCounter();
    const throttles = new Map<string, Throttle>();
    const server = await FlakyServer.start((request, response) => {
      const id = callIdOf(request);
      const attempt = counter.next(request);
      const throttle = throttles.get(id);
      if (attempt > 1 || throttle === undefined) {
        if (throttle) {
          throttle.retriedAt = performance.now();
          throttle.retriedAtWall = Date.now();
        }
        response.end('{"ok":true}');
        return;
      }
      // HTTP dates have whole seconds, so the Date header is rounded down and the wait counts from it.
      const serverDate = Math.floor(Date.now() / 1000) * 1000;
      response.statusCode = 429;
      response.setHeader('Date', new Date(serverDate).toUTCString());
      if (throttle.form === 'seconds') {
        response.setHeader('Retry-After', String(askedSeconds.seconds));
      } else {
        throttle.notBefore = serverDate + throttle.askedMs;
        response.setHeader('Retry-After', new Date(throttle.notBefore).toUTCString());
      }
      response.on('finish', () => {
        throttle.sentAt = performance.now();
      });
      response.end();
    });
    const startedAt = performance.now();
    const client = createDemoClient(server.url, {
      onRetry: (event) => {
        detail(`        ${describeRetry(event)}`);
        const headers = event.error.response?.headers;
        if (headers && !/^\d+$/.test(String(headers['retry-after']))) {
          detail(dim(`          (the server's Date header said ${headers.date})`));
        }
      },
    });
    let successes = 0;
    const forms: RetryAfterForm[] = ['seconds', 'http-date'];
    try {
      for (const form of forms) {
        const askedMs = askedSeconds[form] * 1000;
        const throttle: Throttle = { form, askedMs };
        throttles.set(form, throttle);
        detail(`call with Retry-After in ${form} form`);
        try {
          const response = await client.http.get('/quota', { headers: { [callIdHeader]: form } });
          successes += 1;
          const chosen = response.config.retryState?.delays[0];
          detail(describeSuccess(response));
          report.check(
            checkWait(throttle, chosen),
            `waited as asked: asked ${ms(askedMs)}` +
              `${form === 'http-date' ? " after the server's Date" : ''}, client chose ${chosen === undefined ? 'no wait' : ms(chosen)}, ` +
              `server measured ${throttle.sentAt && throttle.retriedAt ? ms(throttle.retriedAt - throttle.sentAt) : 'no retry'} from 429 to retry`,
          );
        } catch (error) {
          detail(describeFinalFailure(error as AxiosError));
        }
      }
    } finally {
      client.close();
      await server.close();
    }
    report.summary('summary', {
      calls: forms.length,
      successes,
      userVisibleErrors: forms.length - successes,
      serverArrivals: server.arrivals.length,
      elapsedMs: performance.now() - startedAt,
    });
    report.check(
      successes === forms.length,
      `every call returned 200 (${successes}/${forms.length})`,
    );
  }
}

/**
 * A job against a fixed-window limiter: the first window's burst meets 429s; the client holds for
 * the Retry-After, learns the rate the server accepts, and paces every send to it.
 */
async function learningTheLimit(report: StoryReport): Promise<void> {
  detail(
    bold(`a job of ${jobCalls} GETs, ${jobConcurrency} at a time, against ${limit} per second`),
  );
  let firstArrival: number | undefined;
  const served: number[] = [];
  const throttled: number[] = [];
  const server = await FlakyServer.start((_request, response) => {
    const now = performance.now();
    const origin = firstArrival ?? now;
    firstArrival = origin;
    // Windows of one second from the first request: the server's own clock.
    const window = Math.floor((now - origin) / windowMs);
    const inWindow = served.filter(
      (time) => Math.floor((time - origin) / windowMs) === window,
    ).length;
    if (inWindow < limit) {
      served.push(now);
      response.end('{"ok":true}');
      return;
    }
    throttled.push(now);
    const resetMs = origin + (window + 1) * windowMs - now;
    response.statusCode = 429;
    response.setHeader('Retry-After', String(Math.ceil(resetMs / 1000)));
    response.end();
  });
  const client = createDemoClient(server.url, {});
  const startedAt = performance.now();
  let next = 0;
  let failed = 0;
  const waited: number[] = [];
  const failures = new Map<string, number>();
  try {
    await Promise.all(
      Array.from({ length: jobConcurrency }, async () => {
        while (next < jobCalls) {
          next += 1;
          try {
            const response = await client.http.get('/records');
            waited.push(response.config.retryState?.waitedMs ?? 0);
          } catch (error) {
            failed += 1;
            const reason = describeFinalFailure(error as AxiosError).trim();
            failures.set(reason, (failures.get(reason) ?? 0) + 1);
          }
        }
      }),
    );
  } finally {
    client.close();
    await server.close();
  }
  const elapsedMs = performance.now() - startedAt;
  const zero = firstArrival ?? startedAt;
  const windows = Math.ceil((Math.max(...served, ...throttled) - zero + 1) / windowMs);
  const servedPer = countPerBucket(
    served.map((t) => t - zero),
    windowMs,
    windows,
  );
  const throttledPer = countPerBucket(
    throttled.map((t) => t - zero),
    windowMs,
    windows,
  );
  detail(
    `  second by second (server windows): ` +
      servedPer
        .map((ok, i) => `${ok + (throttledPer[i] ?? 0)} arrived/${throttledPer[i] ?? 0} × 429`)
        .join(' · '),
  );
  const sortedWaits = [...waited].sort((a, b) => a - b);
  detail(
    `  ${jobCalls - failed} of ${jobCalls} calls succeeded in ${seconds(elapsedMs)} (ideal at ${limit}/s: ${seconds((jobCalls / limit) * 1000)}); ` +
      `${throttled.length} × 429 in all; calls waited for the pacing ${ms(sortedWaits[Math.floor(sortedWaits.length / 2)] ?? 0)} median (retryState.waitedMs)`,
  );
  for (const [reason, n] of failures) detail(`  ${n} × ${reason}`);
  report.check(failed === 0, `the job finished without a failed call (${failed} failed)`);
  const later429 = throttled.length - (throttledPer[0] ?? 0);
  report.check(
    (throttledPer[0] ?? 0) > 0 && later429 <= 3,
    `a few 429s while the client learned the limit (${throttledPer[0] ?? 0} in the first second), then almost none (${later429} after it)`,
  );
  // The rate the client settled on: the windows after the first that began with at least a
  // window's worth of the job still to do (later ones may run out of work).
  const settled: number[] = [];
  for (let window = 1, done = servedPer[0] ?? 0; window < windows; window += 1) {
    if (jobCalls - done < limit) break;
    settled.push((servedPer[window] ?? 0) + (throttledPer[window] ?? 0));
    done += servedPer[window] ?? 0;
  }
  report.check(
    settled.length >= 1 && settled.every((n) => n >= limit * 0.75 && n <= limit + 3),
    `then it sent at about the limit: ${settled.join(', ')} arrivals per second in the windows after the first that had work enough for a full one (limit ${limit})`,
  );

  await mkdir(join(chartPath, '..'), { recursive: true });
  await writeFile(
    chartPath,
    renderTimelineChart({
      title: `A job of ${jobCalls} GETs, ${jobConcurrency} at a time, against a limit of ${limit} per second`,
      bucketMs: windowMs,
      panels: [
        {
          title: `package defaults: ${throttled.length} × 429, ${jobCalls - failed}/${jobCalls} succeeded in ${seconds(elapsedMs)}`,
          arrivalsMs: [...served, ...throttled].map((t) => t - zero),
          rejectedMs: throttled.map((t) => t - zero),
          limitPerBucket: limit,
        },
      ],
    }),
  );
  detail(
    `  chart of arrivals per second: ${cyan(relative(process.cwd(), chartPath) || chartPath)}`,
  );
}

/**
 * The retry came no earlier than the server asked (for an HTTP date: not before that instant on
 * the wall clock) and not much later than asked plus the jitter draw.
 */
function checkWait(throttle: Throttle, chosenMs: number | undefined): boolean {
  if (
    throttle.sentAt === undefined ||
    throttle.retriedAt === undefined ||
    throttle.retriedAtWall === undefined
  ) {
    return false;
  }
  const gap = throttle.retriedAt - throttle.sentAt;
  const notEarly =
    throttle.form === 'seconds'
      ? gap >= throttle.askedMs - earlyToleranceMs
      : throttle.notBefore !== undefined &&
        throttle.retriedAtWall >= throttle.notBefore - earlyToleranceMs;
  return (
    notEarly &&
    gap <= throttle.askedMs + lateToleranceMs &&
    chosenMs !== undefined &&
    chosenMs >= throttle.askedMs
  );
}
