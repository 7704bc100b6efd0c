// docs/load-control.md's examples, as written there (the OpenTelemetry one is metrics-otel.test.ts).
import axios from 'axios';
import { isolate, type LoadControlView, loadControlOf, type ScopeView } from '../../src';
import { mockClient, settle } from '../helpers/mock-client';
import { example, runExample } from './doc-examples';

beforeEach(() => {
  jest.useFakeTimers();
});
afterEach(() => {
  jest.useRealTimers();
});

describe('wait-and-call-again: a job loop waits for retryAfterMs instead of spinning', () => {
  const run = (api: unknown, waits: number[]) =>
    runExample(example('docs/load-control.md', 'wait-and-call-again'), {
      modules: {},
      globals: {
        axios,
        api,
        setTimeout: (resume: () => void, ms: number) => {
          waits.push(ms);
          return setTimeout(resume, ms);
        },
      },
    });

  it('waits as long as the open breaker says, then goes on', async () => {
    const { client, mock } = mockClient({
      retries: 0,
      circuitBreaker: { minimumThroughput: 4, breakDurationMs: 1000, maxBreakDurationMs: 1000 },
    });
    mock.onGet('/items').reply(503);
    for (let i = 0; i < 4; i++) await settle(client.get('/items'));
    const waits: number[] = [];
    const started = Date.now();
    const { error } = await settle(run(client, waits));
    expect(error).toBeUndefined();
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThan(0);
    expect(waits[0]).toBeLessThanOrEqual(1000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(waits[0] as number);
  });

  it('throws an error that says nothing of a wait (a 404)', async () => {
    const { client, mock } = mockClient();
    mock.onGet('/items').reply(404);
    const { error } = await settle(run(client, []));
    expect(axios.isAxiosError(error) && error.response?.status).toBe(404);
  });
});

test('view-shape: the snapshot shown has the fields loadControlOf returns, and the types name', async () => {
  // `npm run typecheck` fails if a field is added to, or taken from, the view's types.
  const viewFields: Record<keyof LoadControlView, true> = { retryBudget: true, scopes: true };
  const scopeFields: Record<keyof ScopeView, true> = {
    origin: true,
    route: true,
    breaker: true,
    ratePerSecond: true,
    holdMs: true,
    holdUntil: true,
    inFlight: true,
    waiting: true,
  };
  const shown = [...example('docs/load-control.md', 'view-shape').matchAll(/^ *(\w+)\??:/gm)];
  const typed = [...Object.keys(viewFields), ...Object.keys(scopeFields)];
  expect(shown.map((m) => m[1]).sort()).toEqual(typed.sort());

  const { client, mock } = mockClient();
  mock.onGet('/items/42').reply(200);
  await settle(client.get('/items/42'));
  const view = loadControlOf(client);
  const returned = [...Object.keys(view), ...new Set(view.scopes.flatMap((s) => Object.keys(s)))];
  expect(returned.sort()).toEqual(typed.sort());
});

test('isolate: holds the origin open until released', async () => {
  const { client, mock } = mockClient();
  mock.onPost('https://payments.example.com/charges').reply(200);
  const charge = () => settle(client.post('https://payments.example.com/charges'));
  let during: unknown;
  await runExample(example('docs/load-control.md', 'isolate'), {
    modules: {},
    globals: {
      isolate,
      api: client,
      maintenance: async () => {
        during = (await charge()).error;
      },
    },
    replace: [['// … maintenance …', 'await maintenance();']],
  });
  expect(axios.isAxiosError(during) && during.code).toBe('ERR_CIRCUIT_OPEN');
  expect((await charge()).value?.status).toBe(200);
  expect(mock.history.post).toHaveLength(1);
});
