import type { AxiosError } from 'axios';
import { AttemptCounter, callIdHeader, callIdOf } from '../call-id';
import { createDemoClient } from '../demo-client';
import { FlakyServer } from '../flaky-server';
import { detail, dim, ms } from '../log';
import { describeFinalFailure, describeRetry, describeSuccess } from '../retry-log';
import type { Story } from '../story';

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

export const rateLimited: Story = {
  title: 'A rate-limited API',
  setting:
    'the server answers 429 with Retry-After once per call (seconds form, then HTTP-date form against its Date header), then 200',
  async run(report) {
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
  },
};

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
