import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AxiosError } from 'axios';
import { AttemptCounter, callIdHeader, callIdOf } from '../call-id';
import { createDemoClient } from '../demo-client';
import { FlakyServer } from '../flaky-server';
import { cyan, detail, dim, green, red } from '../log';
import { describeFailure, describeFinalFailure, describeRetry } from '../retry-log';
import type { Story } from '../story';

const keyHeader = 'idempotency-key';

/** The order service: it places an order, remembers the answer per Idempotency-Key, and loses the first reply. */
class OrderService {
  /** Orders placed, per call: the effect the client must not cause twice. */
  readonly ordersByCall = new Map<string, number>();
  /** The key each attempt of each call carried ('' for none). */
  readonly keysByCall = new Map<string, string[]>();
  private readonly answers = new Map<string, string>();
  private readonly counter = new AttemptCounter();
  private nextOrderId = 1;

  handle(request: IncomingMessage, response: ServerResponse): void {
    const call = callIdOf(request);
    const attempt = this.counter.next(request);
    const key = String(request.headers[keyHeader] ?? '');
    this.keysByCall.set(call, [...(this.keysByCall.get(call) ?? []), key]);
    request.resume();
    request.on('end', () => {
      const stored = key === '' ? undefined : this.answers.get(key);
      if (stored !== undefined) {
        serverSays(
          `attempt ${attempt}: key ${key} seen before → answers from its dedup store, places nothing`,
        );
        response.writeHead(201, {
          'content-type': 'application/json',
          'idempotent-replayed': 'true',
        });
        response.end(stored);
        return;
      }
      const orderId = this.nextOrderId++;
      this.ordersByCall.set(call, (this.ordersByCall.get(call) ?? 0) + 1);
      const answer = JSON.stringify({ orderId });
      if (key !== '') this.answers.set(key, answer);
      serverSays(
        `attempt ${attempt}: placed order #${orderId}${key === '' ? ' (no key)' : ` for key ${key}`}, ` +
          'then the connection dies before the reply',
      );
      response.destroy();
    });
  }
}

function serverSays(text: string): void {
  detail(`        ${dim(`server: ${text}`)}`);
}

export const ambiguousWrite: Story = {
  title: 'An ambiguous write',
  setting:
    'POST /orders: the server places the order, then destroys the socket before replying; it dedups by Idempotency-Key',
  async run(report) {
    const service = new OrderService();
    const server = await FlakyServer.start((request, response) =>
      service.handle(request, response),
    );
    const startedAt = performance.now();
    const client = createDemoClient(server.url, {
      onRetry: (event) => detail(`        ${describeRetry(event)}`),
    });
    let successes = 0;
    let keylessStopReason: string | undefined;
    let replayed = false;
    try {
      detail(`call with ${cyan('retry: { idempotencyKey: true }')}`);
      try {
        const response = await client.http.post(
          '/orders',
          { item: 'book', quantity: 1 },
          { headers: { [callIdHeader]: 'keyed' }, retry: { idempotencyKey: true } },
        );
        successes += 1;
        replayed = response.headers['idempotent-replayed'] === 'true';
        detail(
          `        attempt ${(response.config.retryState?.retryCount ?? 0) + 1} → ` +
            `${green(String(response.status))} ${JSON.stringify(response.data)}` +
            (replayed ? dim(' (Idempotent-Replayed: true)') : ''),
        );
      } catch (error) {
        const failure = error as AxiosError;
        detail(describeFinalFailure(failure));
      }

      detail('the same call without a key, for contrast');
      try {
        await client.http.post(
          '/orders',
          { item: 'book', quantity: 1 },
          { headers: { [callIdHeader]: 'keyless' } },
        );
        detail('        succeeded');
      } catch (error) {
        const failure = error as AxiosError;
        keylessStopReason = failure.config?.retryState?.stopReason;
        detail(
          `        ${red(`the caller gets ${describeFailure(failure)}`)} (stopReason ${keylessStopReason}): ` +
            'was the order placed? It cannot know.',
        );
      }
    } finally {
      client.close();
      await server.close();
    }

    report.summary('summary', {
      calls: 2,
      successes,
      userVisibleErrors: 2 - successes,
      serverArrivals: server.arrivals.length,
      elapsedMs: performance.now() - startedAt,
    });
    const keys = service.keysByCall.get('keyed') ?? [];
    const orders = service.ordersByCall.get('keyed') ?? 0;
    report.check(successes >= 1, 'the keyed call succeeded despite the lost reply');
    report.check(
      keys.length >= 2 && keys[0] !== '' && keys.every((key) => key === keys[0]),
      `every attempt carried the same key (${keys.length} attempts: ${[...new Set(keys)].map((key) => key || 'none').join(', ')})`,
    );
    report.check(replayed, 'the retry was answered from the dedup store');
    report.check(orders === 1, `the order was placed exactly once (server count: ${orders})`);
    const keylessAttempts = service.keysByCall.get('keyless')?.length ?? 0;
    report.check(
      keylessAttempts === 1 && keylessStopReason === 'not-retryable',
      `without a key the POST was not retried (${keylessAttempts} attempt, stopReason ${keylessStopReason}; ` +
        `server count: ${service.ordersByCall.get('keyless') ?? 0} order placed)`,
    );
  },
};
