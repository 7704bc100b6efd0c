// What the browser test shows. Each case sends through `send` (browser/page.ts, in Chromium),
// then checks the page's outcome against what the API server (browser/servers.mjs) received.
const adapters = ['xhr', 'fetch'];
const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const byMethod = (requests, method) => requests.filter((entry) => entry.method === method);
// The browser's timer and the server's clock are different processes' monotonic clocks.
const clockSlackMs = 5;

function describeError(outcome) {
  if (!outcome.error) return `status ${outcome.status}`;
  const { code, message, isCancel } = outcome.error;
  return `${code ?? 'no code'} "${message}"${isCancel ? ' (isCancel)' : ''}`;
}

function describeState(state) {
  if (!state) return 'no retryState';
  return `retryCount ${state.retryCount}, delays [${state.delays.join(', ')}]${
    state.stopReason ? `, stopReason ${state.stopReason}` : ''
  }`;
}

const retryAfterCases = adapters.map((adapter) => ({
  name: `GET through a 503 with Retry-After: 1, cross-origin with Retry-After exposed (${adapter})`,
  async run({ send, api }) {
    const path = `/retry-after-${adapter}`;
    const outcome = await send({
      url: `${api.origin}${path}?fail=1&retryAfter=1`,
      method: 'GET',
      adapter,
      random: 0,
    });
    const requests = api.requestsTo(path);
    const gets = byMethod(requests, 'GET');
    const gapMs = gets.length === 2 ? gets[1].at - gets[0].at : Number.NaN;
    return {
      checks: [
        ['the call resolves with 200', outcome.status === 200 && !outcome.error],
        ['it retried once', outcome.retryState?.retryCount === 1],
        [
          'it slept Retry-After + a zero jitter draw = 1000 ms',
          outcome.retryState?.delays[0] === 1000,
        ],
        ['the server saw 2 GETs', gets.length === 2],
        ['the server saw them >= 1000 ms apart', gapMs >= 1000 - clockSlackMs],
        ['a simple GET needs no preflight', byMethod(requests, 'OPTIONS').length === 0],
      ],
      record: `${describeState(outcome.retryState)}; server saw the GETs ${gapMs.toFixed(0)} ms apart`,
    };
  },
}));

const hiddenRetryAfterCase = {
  name: 'GET through a 503 with Retry-After: 1, cross-origin WITHOUT Access-Control-Expose-Headers (xhr)',
  async run({ send, api }) {
    const path = '/retry-after-hidden';
    const outcome = await send({
      url: `${api.origin}${path}?fail=1&retryAfter=1&exposeRetryAfter=0`,
      method: 'GET',
      adapter: 'xhr',
      random: 0,
    });
    return {
      checks: [
        ['the call resolves with 200', outcome.status === 200 && !outcome.error],
        ['it retried once', outcome.retryState?.retryCount === 1],
        [
          'the browser hid Retry-After, so only the (zero) backoff draw was slept',
          outcome.retryState?.delays[0] === 0,
        ],
      ],
      record: describeState(outcome.retryState),
    };
  },
};

const abortCases = adapters.map((adapter) => ({
  name: `abort during the backoff sleep rejects with a cancel and sends nothing more (${adapter})`,
  async run({ send, api }) {
    const path = `/abort-${adapter}`;
    const baseDelayMs = 1500;
    const random = 0.999;
    const plannedSleepMs = random * baseDelayMs;
    const started = performance.now();
    const outcome = await send({
      url: `${api.origin}${path}?fail=1`,
      method: 'GET',
      adapter,
      random,
      baseDelayMs,
      abortAfterFirstRetryMs: 100,
    });
    // Wait past the moment the retry would have gone out had the abort not stopped the sleep.
    await wait(Math.max(0, started + plannedSleepMs + 500 - performance.now()));
    const gets = byMethod(api.requestsTo(path), 'GET');
    return {
      checks: [
        ['the call rejects with a cancel (axios.isCancel)', outcome.error?.isCancel === true],
        [
          `it rejected during the ${plannedSleepMs} ms sleep, not after it`,
          outcome.elapsedMs < plannedSleepMs,
        ],
        ['onRetry fired once', outcome.retryEvents.length === 1],
        ['the server saw only the first GET', gets.length === 1],
      ],
      record: `rejected after ${outcome.elapsedMs.toFixed(0)} ms with ${describeError(outcome)}; ${describeState(outcome.retryState)}; server GETs: ${gets.length}`,
    };
  },
}));

/** A POST with a stamped idempotency key, to an API path that answers 503 once. */
function sendKeyedPost(send, adapter, url) {
  return send({
    url,
    method: 'POST',
    adapter,
    data: { amount: 1 },
    random: 0,
    retry: { idempotencyKey: true, retries: 2 },
  });
}

const keyedPostCases = adapters.map((adapter) => ({
  name: `keyed POST to an origin whose CORS allows Idempotency-Key: same key on both attempts (${adapter})`,
  async run({ send, api }) {
    const path = `/keyed-${adapter}`;
    const outcome = await sendKeyedPost(send, adapter, `${api.origin}${path}?fail=1`);
    const requests = api.requestsTo(path);
    const posts = byMethod(requests, 'POST');
    const preflights = byMethod(requests, 'OPTIONS');
    const keys = posts.map((entry) => entry.idempotencyKey);
    return {
      checks: [
        ['the call resolves with 200', outcome.status === 200 && !outcome.error],
        ['the server saw 2 POSTs (503, then 200)', posts.length === 2],
        ['the first POST carried a key', typeof keys[0] === 'string' && keys[0].length > 0],
        ['the retry carried the same key', keys.length === 2 && keys[1] === keys[0]],
        ['retryState.idempotencyKey is that key', outcome.retryState?.idempotencyKey === keys[0]],
        [
          'the preflight asked for idempotency-key',
          preflights.length > 0 && /idempotency-key/i.test(preflights[0].requestedHeaders ?? ''),
        ],
      ],
      record: `server saw ${requests.map((entry) => entry.method).join(', ')}; keys [${keys.join(', ')}]; preflight Access-Control-Request-Headers: ${preflights.map((entry) => entry.requestedHeaders).join(' | ')}`,
    };
  },
}));

const blockedKeyedPostCases = adapters.map((adapter) => ({
  name: `keyed POST to an origin whose CORS does NOT allow Idempotency-Key: the preflight fails, no POST is sent (${adapter})`,
  async run({ send, api, takeConsole }) {
    const path = `/keyed-blocked-${adapter}`;
    takeConsole();
    const outcome = await sendKeyedPost(send, adapter, `${api.origin}${path}?fail=1&allowKey=0`);
    const requests = api.requestsTo(path);
    const preflights = byMethod(requests, 'OPTIONS');
    const consoleCounts = new Map();
    for (const line of takeConsole().filter((text) => /CORS|idempotency/i.test(text))) {
      consoleCounts.set(line, (consoleCounts.get(line) ?? 0) + 1);
    }
    return {
      checks: [
        ['the call rejects with ERR_NETWORK', outcome.error?.code === 'ERR_NETWORK'],
        ['with no response', outcome.status === undefined],
        ['the server saw the preflight', preflights.length >= 1],
        ['the server saw no POST', byMethod(requests, 'POST').length === 0],
      ],
      record: [
        `server saw ${requests.map((entry) => entry.method).join(', ')}`,
        `axios: ${describeError(outcome)}; ${describeState(outcome.retryState)}`,
        ...[...consoleCounts].map(([line, count]) => `browser console (x${count}): ${line}`),
      ].join('\n'),
    };
  },
}));

export const cases = [
  ...retryAfterCases,
  hiddenRetryAfterCase,
  ...abortCases,
  ...keyedPostCases,
  ...blockedKeyedPostCases,
];
