// `npm run bench:case -- <seed>`: one case of the "never worse than off" search, traced request by
// request in both modes (bench/sim/trace-case.ts).
import { type Case, runCase } from '../../bench/sim/differential';
import { caseFrom, traceCase } from '../../bench/sim/trace-case';

// The long run's worst case (seed 3999), as it printed it shrunk: two clients with no store
// against a token bucket of 20 a second that answers a bare 429.
const shrunk: Case = {
  server: {
    ...{ limiter: { algorithm: 'token', rate: 20, windowMs: 1000, burst: 0, aligned: false } },
    ...{ mount: 'origin', status: 429, headers: 'none', policy: false },
    ...{ noise: { ratio: 0, status: 429 }, latency: { baseMs: 1, tailMs: 100, tailRatio: 0 } },
    seed: 0,
  },
  workload: {
    ...{ jobs: 10, callsPerJob: 5, routes: 1, ids: false, clients: 2, store: false },
    ...{ retries: 3, seed: 0, concurrency: 2 },
  },
};

const requestLines = (lines: readonly string[], mode: 'on' | 'off'): string[] => {
  const start = lines.findIndex((line) => line.startsWith(`== ${mode}:`));
  const end = lines.findIndex((line, i) => i > start && line.startsWith('== '));
  return lines.slice(start + 3, end < 0 ? undefined : end);
};

describe('bench:case, the trace of one case', () => {
  it('lists every request of each run, in order of arrival, and what the run came to', async () => {
    const lines = await traceCase(shrunk, { fromMs: 0, toMs: Infinity });
    expect(lines.slice(0, 3)).toEqual([
      `server: ${JSON.stringify(shrunk.server)}`,
      `workload: ${JSON.stringify(shrunk.workload)}`,
      'open class: none',
    ]);
    for (const mode of ['on', 'off'] as const) {
      const summary = lines.find((line) => line.startsWith(`== ${mode}:`)) as string;
      const requests = Number(/, (\d+) requests/.exec(summary)?.[1]);
      const listed = requestLines(lines, mode);
      expect(listed).toHaveLength(requests);
      const arrivals = listed.map((line) => Number(line.split('  ')[0]));
      expect(arrivals).toEqual([...arrivals].sort((a, b) => a - b));
      expect(listed.filter((line) => line.endsWith('  429')).length).toBeGreaterThan(0);
    }
  });

  it('names the invariants the case violates, and lists only the requests of the window asked', async () => {
    const lines = await traceCase(shrunk, { fromMs: 100, toMs: 200 });
    const { violations } = await runCase(shrunk);
    expect(lines.filter((line) => line.startsWith('violates '))).toEqual(
      violations.map((v) => `violates ${v.invariant}: ${v.detail}`),
    );
    for (const mode of ['on', 'off'] as const) {
      expect(requestLines(lines, mode).length).toBeGreaterThan(0);
      for (const line of requestLines(lines, mode)) {
        const arrived = Number(line.split('  ')[0]);
        expect(arrived >= 100 && arrived < 200).toBe(true);
      }
    }
  });

  it('takes a seed of the long run, or a case as the long run prints it', () => {
    expect(caseFrom(JSON.stringify(shrunk))).toEqual(shrunk);
    expect(caseFrom('3999').workload.clients).toBeGreaterThan(1);
  });
});
