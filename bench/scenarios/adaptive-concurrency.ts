import diagnostics from 'node:diagnostics_channel';
import axios, { type AxiosInstance } from 'axios';
import axiosRetry from 'axios-retry';
import pLimit from 'p-limit';
import { attachRetry } from '../../src';
import { type QueueingServer, startQueueingServer } from '../../support/queueing-server';
import { fixed, integer, ratio, seconds } from '../report/format';
import type { Table } from '../report/table';
import type { ScenarioReport, TargetCheck } from './scenario';

// Issue 24, "a server that sends no rate-limit signal and only gets slower". REAL time, like the
// layers scenario: a node:http queueing server on 127.0.0.1 (support/queueing-server.ts).

interface Case {
  readonly label: string;
  readonly slots: number;
  readonly serviceMs: number;
  readonly calls: number;
  /** Calls in flight at once from the job (`calls`: all at once). */
  readonly concurrency: number;
  readonly shedAbove?: number;
  /** Capacity that drops mid-job: to `slots` at `atMs`. */
  readonly drop?: { readonly atMs: number; readonly slots: number };
  /** p-limit's limit: the server's true capacity (after the drop, for a drop). */
  readonly trueLimit: number;
}

const TIMEOUT_MS = 2000;

const CASES = {
  slower: {
    label: '8 slots, 20 ms',
    slots: 8,
    serviceMs: 20,
    calls: 2000,
    concurrency: 2000,
    trueLimit: 8,
  },
  shed: {
    label: '8 slots, 20 ms, bare 503 past 32 queued',
    slots: 8,
    serviceMs: 20,
    calls: 2000,
    concurrency: 2000,
    shedAbove: 32,
    trueLimit: 8,
  },
  ample: {
    label: '256 slots, 20 ms, 64 in flight',
    slots: 256,
    serviceMs: 20,
    calls: 2000,
    concurrency: 64,
    trueLimit: 256,
  },
  drop: {
    label: '16 slots, then 4 after 1 s',
    slots: 16,
    serviceMs: 20,
    calls: 1200,
    concurrency: 1200,
    drop: { atMs: 1000, slots: 4 },
    trueLimit: 4,
  },
} satisfies Record<string, Case>;

type Send = (instance: AxiosInstance, url: string) => Promise<unknown>;
interface Contestant {
  readonly name: string;
  readonly make: (c: Case) => { instance: AxiosInstance; send: Send };
}

const plainSend: Send = (instance, url) => instance.get(url);

const CONTESTANTS: readonly Contestant[] = [
  {
    name: 'axios-safe-retry (defaults)',
    make: () => {
      const instance = axios.create({ timeout: TIMEOUT_MS });
      attachRetry(instance);
      return { instance, send: plainSend };
    },
  },
  {
    name: 'axios-safe-retry, load control off',
    make: () => {
      const instance = axios.create({ timeout: TIMEOUT_MS });
      attachRetry(instance, { circuitBreaker: false, pacing: false, maxConcurrent: Infinity });
      return { instance, send: plainSend };
    },
  },
  {
    name: 'axios-retry 4.5',
    make: () => {
      const instance = axios.create({ timeout: TIMEOUT_MS });
      axiosRetry(instance, {
        retries: 3,
        retryDelay: axiosRetry.exponentialDelay,
        retryCondition: axiosRetry.isNetworkOrIdempotentRequestError,
      });
      return { instance, send: plainSend };
    },
  },
  {
    name: 'p-limit at the true limit, no retry',
    make: (c) => {
      const instance = axios.create({ timeout: TIMEOUT_MS });
      const limit = pLimit(c.trueLimit);
      return { instance, send: (i, url) => limit(() => i.get(url)) };
    },
  },
];

interface Run {
  readonly name: string;
  readonly ok: number;
  readonly failed: number;
  readonly wallMs: number;
  readonly stats: QueueingServer['stats'];
  /** Drop case: our limit 2 s after the drop, and the server's queue then. */
  readonly after?: { readonly limit: number | undefined; readonly queued: number };
}

async function runOne(c: Case, contestant: Contestant): Promise<Run> {
  const server = await startQueueingServer({
    slots: c.slots,
    serviceMs: c.serviceMs,
    ...(c.shedAbove === undefined ? {} : { shedAbove: c.shedAbove }),
  });
  let limit: number | undefined;
  const onLimit = (message: unknown) => {
    limit = (message as { limit: number }).limit;
  };
  diagnostics.subscribe('axios-safe-retry:limit', onLimit);
  const { instance, send } = contestant.make(c);
  let after: Run['after'];
  const timers: NodeJS.Timeout[] = [];
  if (c.drop) {
    const { atMs, slots } = c.drop;
    timers.push(setTimeout(() => server.setSlots(slots), atMs));
    timers.push(
      setTimeout(() => {
        after = { limit, queued: server.inside().queued };
      }, atMs + 2000),
    );
  }
  const startedAt = performance.now();
  let next = 0;
  let ok = 0;
  let failed = 0;
  const worker = async (): Promise<void> => {
    while (next < c.calls) {
      const id = next++;
      await send(instance, `${server.url}/records/${id}`).then(
        () => ok++,
        () => failed++,
      );
    }
  };
  await Promise.all(Array.from({ length: c.concurrency }, worker));
  const wallMs = performance.now() - startedAt;
  for (const timer of timers) clearTimeout(timer);
  diagnostics.unsubscribe('axios-safe-retry:limit', onLimit);
  // Let the server finish work whose client has gone, so that it is counted.
  await new Promise((resolve) => setTimeout(resolve, 300));
  await server.close();
  return {
    name: contestant.name,
    ok,
    failed,
    wallMs,
    stats: { ...server.stats },
    ...(after ? { after } : {}),
  };
}

function tableOf(c: Case, runs: readonly Run[]): Table {
  const pl = runs[3] as Run;
  return {
    title: `${c.label}: ${integer(c.calls)} calls, ${c.concurrency === c.calls ? 'all at once' : `${c.concurrency} in flight`}, timeout ${TIMEOUT_MS} ms`,
    columns: [
      'contestant',
      'ok',
      'failed',
      'wall',
      '÷ p-limit',
      'server queue (max)',
      'wasted jobs',
      'shed 503s',
    ],
    rows: runs.map((r) => [
      r.name,
      integer(r.ok),
      integer(r.failed),
      seconds(r.wallMs),
      ratio(r.wallMs, pl.wallMs),
      integer(r.stats.mostQueued),
      integer(r.stats.wasted),
      integer(r.stats.shed),
    ]),
  };
}

function targetsOf(key: keyof typeof CASES, runs: readonly Run[]): TargetCheck[] {
  const [ours, off, , pl] = runs as [Run, Run, Run, Run];
  const c: Case = CASES[key];
  const vsPl = ours.wallMs / pl.wallMs;
  const base = `${c.label}, defaults`;
  switch (key) {
    case 'slower':
      return [
        {
          target: `${base}: 0 failed; wall ≤ 1.15× p-limit(8); server queue ≤ 32; 0 wasted`,
          met:
            ours.failed === 0 &&
            vsPl <= 1.15 &&
            ours.stats.mostQueued <= 32 &&
            ours.stats.wasted === 0,
          measured: `${ours.failed} failed, ${fixed(vsPl)}× p-limit, queue ${ours.stats.mostQueued}, ${ours.stats.wasted} wasted`,
        },
      ];
    case 'shed':
      return [
        {
          target: `${base}: 0 failed; wall ≤ 1.25× p-limit(8); ≤ 5 % shed`,
          met: ours.failed === 0 && vsPl <= 1.25 && ours.stats.shed <= 0.05 * c.calls,
          measured: `${ours.failed} failed, ${fixed(vsPl)}× p-limit, ${ours.stats.shed} shed`,
        },
      ];
    case 'ample': {
      const throughput = off.wallMs / ours.wallMs;
      return [
        {
          target: `${base}: throughput ≥ 0.95× load control off, same run`,
          met: throughput >= 0.95,
          measured: `${fixed(throughput)}× (${seconds(ours.wallMs)} vs ${seconds(off.wallMs)})`,
        },
      ];
    }
    default: {
      const wasted = ours.stats.wasted / c.calls;
      const settled = ours.after?.limit;
      return [
        {
          target: `${base}: 0 failed; ≤ 1 % wasted; 2 s after the drop the limit is within 3× the new capacity (4)`,
          met: ours.failed === 0 && wasted <= 0.01 && settled !== undefined && settled <= 12,
          measured: `${ours.failed} failed, ${fixed(100 * wasted, 1)} % wasted, limit ${settled ?? 'n/a'} and server queue ${ours.after?.queued ?? 'n/a'} 2 s after the drop`,
        },
      ];
    }
  }
}

export async function adaptiveConcurrency(): Promise<ScenarioReport> {
  const startedAt = performance.now();
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  const tables: Table[] = [];
  const targets: TargetCheck[] = [];
  try {
    // A warm process: the first job of a process pays for compiling the code it runs.
    await runOne({ ...CASES.ample, calls: 200 }, CONTESTANTS[0] as Contestant);
    for (const key of Object.keys(CASES) as (keyof typeof CASES)[]) {
      const runs: Run[] = [];
      for (const contestant of CONTESTANTS) runs.push(await runOne(CASES[key], contestant));
      tables.push(tableOf(CASES[key], runs));
      targets.push(...targetsOf(key, runs));
    }
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
  return {
    title: 'A server that only gets slower (real time, loopback)',
    setup: [
      'REAL time: a node:http server on 127.0.0.1 with N worker slots and a FIFO queue; each request takes 20 ms of a slot; work whose client has gone is still done (counted as wasted). No rate-limit signal. The shedding variant answers a bare 503 (no Retry-After) once 32 requests are queued.',
      `Contestants, each on a fresh server and a fresh axios instance with \`timeout: ${TIMEOUT_MS}\`: axios-safe-retry with its defaults (a concurrency limit learned per route); the same with load control off (\`circuitBreaker: false, pacing: false, maxConcurrent: Infinity\`); axios-retry 4.5 \`{ retries: 3, exponentialDelay }\`; p-limit 3 at the server's true limit (8; 256; 4 for the drop), without retries.`,
      'One untimed warm-up job first (200 calls). Small and real-time on a shared machine: figures move from run to run, and the client and the server share one process (and its CPU).',
    ],
    tables,
    targets,
    charts: [],
    realSeconds: (performance.now() - startedAt) / 1000,
  };
}
