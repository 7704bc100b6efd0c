import type { Contestant } from '../contestants';
import type { ScenarioReport, TargetCheck } from '../scenarios/scenario';
import type { Environment } from './environment';
import { renderMarkdownTable, type Table } from './table';

export const BENCH_COMMAND = 'npm run bench';

export interface BenchmarkDocument {
  readonly environment: Environment;
  readonly contestants: readonly Contestant[];
  readonly scenarios: readonly ScenarioReport[];
  readonly overhead: {
    readonly tables: readonly Table[];
    readonly targets: readonly TargetCheck[];
  };
  readonly realSeconds: number;
}

function targetLines(targets: readonly TargetCheck[]): string[] {
  if (targets.length === 0) return [];
  return [
    '',
    '| target | met | measured |',
    '| :-- | :-: | :-- |',
    ...targets.map(
      (check) =>
        `| ${check.target} | ${check.met === undefined ? 'reported' : check.met ? 'yes' : '**no**'} | ${check.measured} |`,
    ),
  ];
}

function scenarioSection(scenario: ScenarioReport): string[] {
  return [
    `## ${scenario.title}`,
    '',
    ...scenario.setup.map((line) => `- ${line}`),
    '',
    ...scenario.tables.flatMap((table) => [renderMarkdownTable(table), '']),
    ...targetLines(scenario.targets),
    '',
    ...scenario.charts.map((chart) => `![${chart.title}](bench/charts/${chart.file})`),
    '',
  ];
}

/** BENCHMARKS.md, written by every run: nothing in it is typed by hand. */
export function renderBenchmarksMarkdown(doc: BenchmarkDocument): string {
  return [
    '# Benchmarks',
    '',
    `Written by \`${BENCH_COMMAND}\` on ${doc.environment.date} (${doc.realSeconds.toFixed(0)} s of real time). Do not edit by hand: run it again.`,
    '',
    ...doc.environment.lines.map((line) => `- ${line}`),
    '',
    '## How it works',
    '',
    '- Each scenario but one runs in virtual time (the exception, "Calls through several services", runs real express services on loopback in real time: see its setup): real axios, the real plugins, and a scripted server behind a custom axios adapter (`bench/sim/`). A 503 or 429 rejects with axios\'s own `AxiosError` (`ERR_BAD_RESPONSE` / `ERR_BAD_REQUEST`, with the response); a refused connection rejects with code `ECONNREFUSED` and a dropped one with `ECONNRESET`, both without a response.',
    "- `@sinonjs/fake-timers` is installed on the global object (`setTimeout`, `setInterval`, `Date`, `performance.now()`), so every contestant's backoff sleeps on the virtual clock, and axios-safe-retry's monotonic clock runs on it too.",
    "- The simulated adapter passes each request's path to the server model, so one origin can have routes that behave differently; a scenario may also give each contestant several axios instances (each with its own plugin, sharing only the server), as several processes would.",
    '- Jitter is seeded: a mulberry32 PRNG replaces `Math.random` (which axios-retry and retry-axios use) and is passed to axios-safe-retry as `random`. Every contestant starts from the same seed, so a run is reproducible.',
    '- Every call is one GET. "Requests" are what reached the server, refused connection attempts included. Each call\'s requests carry an `x-bench-call` header (retries keep it), so the server side can tell which calls met a 429.',
    '- Our contestants with the circuit breaker on are also given `circuitBreaker: { onStateChange }` (no other field, so every breaker default holds), so that the tables can say how often the breaker opened.',
    '',
    '## Contestants',
    '',
    "Every contestant gets the same number of retries: 3, except in the failover, where every retrying contestant gets 10 and axios-safe-retry also gets `deadlineMs: 15000` (only it has a deadline option). The `breaker off` and `pacing off` variants run only in the scenarios that compare against them, and a few scenarios leave out contestants that would only spin the job loop: each scenario's setup says which.",
    '',
    '| contestant | configuration (3 retries) |',
    '| :-- | :-- |',
    ...doc.contestants.map(
      (contestant) => `| ${contestant.name} | \`${contestant.describe({ retries: 3 })}\` |`,
    ),
    '',
    ...doc.scenarios.flatMap(scenarioSection),
    '## Overhead',
    '',
    '- Mock adapter (tinybench, real time): one successful GET through axios with a custom adapter that resolves 200 at once, on a fresh instance per client: the cost of the library itself per call. ops/s = 1 ÷ the median sample latency of a round; each round runs every client (order rotated) and the ratio to bare axios is taken within the round; the table shows the median over rounds.',
    '- Loopback (real sockets): successful GETs to a node:http server on 127.0.0.1 in a process of its own, over keep-alive connections (an agent of 16 sockets per client), 16 in flight. Each round drives every client in turn (order rotated); the figure is calls per CPU second of the client process, as a ratio to bare axios within the round, median over rounds. Wall-clock calls/s are shown beside it, for information (the server shares the machine).',
    '',
    ...doc.overhead.tables.flatMap((table) => [renderMarkdownTable(table), '']),
    ...targetLines(doc.overhead.targets),
    '',
  ].join('\n');
}
