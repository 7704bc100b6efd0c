// docs/load-control.md's OpenTelemetry example (Metrics), as written there: the region below is
// the page's example, word for word (dedented; imports as a user writes them); it runs against
// the OTel SDK's in-memory exporter.
import diagnostics from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import { metrics } from '@opentelemetry/api';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import type { CircuitStateChange } from '../../src';
import { mockClient, settle } from '../helpers/mock-client';
import { example, region } from './doc-examples';

function instrument(): void {
  // #region opentelemetry-body
  const meter = metrics.getMeter('axios-safe-retry');
  const retries = meter.createCounter('http.client.retries');
  const stops = meter.createCounter('http.client.retry_stops');
  const breakerOpens = meter.createCounter('http.client.breaker_opens');
  const pacedRate = new Map<string, number>();
  meter
    .createObservableGauge('http.client.paced_rate', { unit: '{request}/s' })
    .addCallback((gauge) => {
      for (const [scope, rate] of pacedRate) gauge.observe(rate, { scope });
    });
  const on = <T>(name: string, handle: (message: T) => void) =>
    diagnostics.subscribe(`axios-safe-retry:${name}`, (message) => handle(message as T));
  on('retry', () => retries.add(1));
  on<{ stopReason: string }>('stop', (e) => stops.add(1, { reason: e.stopReason }));
  on<CircuitStateChange>('breaker', (e) => {
    if (e.state === 'open') breakerOpens.add(1, { origin: e.origin });
  });
  on<{ origin: string; route?: string; ratePerSecond?: number }>('pacing', (e) =>
    pacedRate.set(e.origin + (e.route ?? ''), e.ratePerSecond ?? 0),
  );
  // #endregion
}

test('docs/load-control.md shows the example, word for word', () => {
  const shown = example('docs/load-control.md', 'opentelemetry');
  const [imports = '', body] = shown.split('\n\n', 2);
  expect(body).toBe(region(__filename, 'opentelemetry-body'));
  // Its imports are this file's, as a user writes them.
  const source = readFileSync(__filename, 'utf8').replace(
    /'\.\.\/\.\.\/src'/g,
    "'axios-safe-retry'",
  );
  for (const line of imports.split('\n')) expect(source).toContain(line);
  expect(imports.split('\n')).toHaveLength(3);
});

// The snippet's subscriptions are the process's: diagnostics_channel is one for every test file
// Jest runs in this worker. They are undone after this file, or a later file's retries would
// reach this file's meter, whose `Date` Jest has torn down by then (its JEST-01 warning).
const subscribed: [string, (message: unknown, name: string | symbol) => void][] = [];
afterAll(() => {
  for (const [name, onMessage] of subscribed) diagnostics.unsubscribe(name, onMessage);
});
function recordingSubscriptions(): void {
  const subscribe = diagnostics.subscribe;
  jest.spyOn(diagnostics, 'subscribe').mockImplementation((name, onMessage) => {
    subscribed.push([String(name), onMessage]);
    subscribe(name, onMessage);
  });
}

// The channels need `process.getBuiltinModule` (Node 20.16 and 22.3 on): skipped on an older Node.
const withChannels = typeof process.getBuiltinModule === 'function' ? test : test.skip;

withChannels(
  'it counts retries, stops by reason and breaker opens, and gauges the paced rate',
  async () => {
    const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
    const provider = new MeterProvider({ readers: [reader] });
    metrics.setGlobalMeterProvider(provider);
    recordingSubscriptions();
    instrument();
    jest.restoreAllMocks();
    jest.useFakeTimers({ now: 0 });

    const { client, mock } = mockClient({
      retries: 1,
      circuitBreaker: { minimumThroughput: 4, breakDurationMs: 1000, maxBreakDurationMs: 1000 },
    });
    mock.onGet('/down').reply(503);
    for (let i = 0; i < 2; i++) await settle(client.get('/down'));
    await settle(client.get('/down')); // the breaker is open: it fails fast
    mock.onGet('/items').reply(200);
    for (let i = 0; i < 10; i++) await settle(client.get('/items'));
    mock.onGet('/items').reply(429, '', { 'retry-after': '100' });
    await settle(client.get('/items', { retry: { retries: 0 } }));
    jest.useRealTimers();

    await reader.forceFlush();
    const exported = exporter.getMetrics().at(-1)?.scopeMetrics[0]?.metrics ?? [];
    const points = (name: string) =>
      exported
        .find((metric) => metric.descriptor.name === name)
        ?.dataPoints.map((point) => [point.attributes, point.value]);
    expect(points('http.client.retries')).toEqual([[{}, 2]]);
    expect(points('http.client.retry_stops')).toEqual([
      [{ reason: 'retries-exhausted' }, 3],
      [{ reason: 'circuit-open' }, 1],
    ]);
    expect(points('http.client.breaker_opens')).toEqual([[{ origin: 'http://api.test' }, 1]]);
    const paced = points('http.client.paced_rate');
    expect(paced).toEqual([[{ scope: 'http://api.test/items' }, expect.any(Number)]]);
    expect(paced?.[0]?.[1]).toBeGreaterThan(0);
    await provider.shutdown();
  },
);
