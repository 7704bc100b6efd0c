import type { AxiosError } from 'axios';
import { AttemptCounter, callIdHeader } from '../call-id';
import { createDemoClient } from '../demo-client';
import { FlakyServer } from '../flaky-server';
import { detail, dim, ms } from '../log';
import { describeFinalFailure, describeRetry, describeSuccess } from '../retry-log';
import type { Story } from '../story';

const calls = 3;
const failuresPerCall = 2;

export const riding503s: Story = {
  title: 'A GET through 503s',
  setting: `the server answers 503 to the first ${failuresPerCall} attempts of each call, then 200; ${calls} calls, package defaults`,
  async run(report) {
    const counter = new AttemptCounter();
    const server = await FlakyServer.start((request, response) => {
      const attempt = counter.next(request);
      response.statusCode = attempt <= failuresPerCall ? 503 : 200;
      response.end();
    });
    const startedAt = performance.now();
    const client = createDemoClient(server.url, {
      onRetry: (event) => detail(`        ${describeRetry(event)}`),
    });
    let successes = 0;
    try {
      for (let call = 1; call <= calls; call += 1) {
        detail(`call ${call}`);
        try {
          const response = await client.http.get('/profile', {
            headers: { [callIdHeader]: String(call) },
          });
          const state = response.config.retryState;
          successes += 1;
          detail(
            `${describeSuccess(response)} ` +
              dim(`(retryState.delays: ${state?.delays.map(ms).join(', ') || 'none'})`),
          );
        } catch (error) {
          detail(describeFinalFailure(error as AxiosError));
        }
      }
    } finally {
      client.close();
      await server.close();
    }
    const arrivals = server.arrivals.length;
    report.summary('summary', {
      calls,
      successes,
      userVisibleErrors: calls - successes,
      serverArrivals: arrivals,
      elapsedMs: performance.now() - startedAt,
    });
    report.check(successes === calls, `every call returned 200 (${successes}/${calls})`);
    const expected = calls * (failuresPerCall + 1);
    report.check(
      arrivals === expected,
      `the server saw ${failuresPerCall + 1} attempts per call (${arrivals} arrivals, expected ${expected})`,
    );
  },
};
