import fc from 'fast-check';
import {
  type ConcurrencyLimit,
  createConcurrencyLimit,
  fixedLimit,
  INITIAL_LIMIT,
} from '../../src/load-control/concurrency-limit';

/**
 * A queueing server in virtual time, driven by the limit: `slots` workers, a FIFO queue, each
 * attempt takes `serviceMs(now)` of a worker; `demand` attempts are offered at once and each
 * one that ends is replaced (a job with that many calls in flight). Returns the limit and the
 * most queued over time.
 */
function drive(
  law: ConcurrencyLimit,
  options: {
    slots: (now: number) => number;
    serviceMs: (now: number) => number;
    demand: number;
    untilMs: number;
    noise?: (now: number) => number;
  },
) {
  const { slots, serviceMs, demand, untilMs, noise = () => 0 } = options;
  let now = 0;
  let inFlight = 0;
  const queue: number[] = [];
  const busy: { endsAt: number; sentAt: number }[] = [];
  const trace: { at: number; limit: number; queued: number }[] = [];
  const startWork = () => {
    while (busy.length < slots(now) && queue.length) {
      const sentAt = queue.shift() as number;
      busy.push({ endsAt: now + serviceMs(now), sentAt });
    }
  };
  const send = () => {
    while (inFlight < Math.min(demand, law.limit)) {
      inFlight++;
      queue.push(now);
    }
    startWork();
  };
  send();
  let mostQueued = queue.length;
  while (now < untilMs) {
    busy.sort((a, b) => a.endsAt - b.endsAt);
    const next = busy.shift();
    if (!next) break;
    now = next.endsAt;
    startWork();
    law.sample({ now, sentAt: next.sentAt, inFlight, rttMs: now - next.sentAt + noise(now) });
    inFlight--;
    send();
    mostQueued = Math.max(mostQueued, queue.length);
    trace.push({ at: now, limit: law.limit, queued: queue.length });
  }
  return { limit: law.limit, mostQueued, trace };
}

describe('createConcurrencyLimit', () => {
  it('starts at INITIAL_LIMIT', () => {
    expect(createConcurrencyLimit().limit).toBe(INITIAL_LIMIT);
  });

  it('settles near a saturated server’s capacity and keeps its queue short (8 slots, 20 ms)', () => {
    const run = drive(createConcurrencyLimit(), {
      slots: () => 8,
      serviceMs: () => 20,
      demand: 2000,
      untilMs: 5000,
    });
    // 1.5 × capacity, the √limit of queue allowed, and a round or two of growth.
    expect(run.limit).toBeGreaterThanOrEqual(8);
    expect(run.limit).toBeLessThanOrEqual(28);
    // The target: a queue of 32 at most.
    expect(run.mostQueued).toBeLessThanOrEqual(32);
    // Never below the server's capacity: no throughput lost.
    expect(Math.min(...run.trace.map((t) => t.limit))).toBeGreaterThanOrEqual(8);
  });

  it('follows capacity that drops mid-job, within 2 s (16 slots, then 4)', () => {
    const run = drive(createConcurrencyLimit(), {
      slots: (now) => (now < 2000 ? 16 : 4),
      serviceMs: () => 20,
      demand: 2000,
      untilMs: 4000,
    });
    const at = (ms: number) => run.trace.filter((t) => t.at <= ms).at(-1)?.limit ?? 0;
    expect(at(1990)).toBeGreaterThanOrEqual(16);
    expect(at(4000)).toBeLessThanOrEqual(12);
    expect(at(4000)).toBeGreaterThanOrEqual(4);
  });

  it('grows to what the job offers when latency does not grow with load', () => {
    const run = drive(createConcurrencyLimit(), {
      slots: () => 10_000,
      serviceMs: () => 20,
      demand: 500,
      untilMs: 2000,
    });
    expect(run.limit).toBeGreaterThanOrEqual(500);
    // Within a few round trips.
    const reached = run.trace.find((t) => t.limit >= 500)?.at ?? Infinity;
    expect(reached).toBeLessThan(400);
  });

  it('does not grow while app-limited (in flight ≤ half the limit)', () => {
    const run = drive(createConcurrencyLimit(), {
      slots: () => 10_000,
      serviceMs: () => 20,
      demand: 10,
      untilMs: 2000,
    });
    expect(run.limit).toBe(INITIAL_LIMIT);
  });

  it('is not cut by a GC pause: every answer of one round 200 ms late', () => {
    const run = drive(createConcurrencyLimit(), {
      slots: () => 10_000,
      serviceMs: (now) => (now >= 1000 && now < 1200 ? 220 : 20),
      demand: 64,
      untilMs: 3000,
    });
    const after = run.trace.filter((t) => t.at >= 800);
    expect(after[0]?.limit).toBeGreaterThanOrEqual(64);
    expect(Math.min(...after.map((t) => t.limit))).toBeGreaterThanOrEqual(after[0]?.limit ?? 0);
  });

  it('is not cut by a slow tail (one answer in ten 10× slower) nor a cold first round', () => {
    let n = 0;
    const run = drive(createConcurrencyLimit(), {
      slots: () => 10_000,
      serviceMs: (now) => (now < 30 ? 60 : ++n % 10 === 0 ? 200 : 20),
      demand: 64,
      untilMs: 3000,
    });
    // After the first round's probe of the no-load latency.
    const after = run.trace.filter((t) => t.at >= 200);
    expect(Math.min(...after.map((t) => t.limit))).toBeGreaterThanOrEqual(INITIAL_LIMIT);
    expect(run.limit).toBeGreaterThanOrEqual(64);
  });

  it('never limits a load-insensitive server below its demand, whatever its noise (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 1, max: 200 }),
        fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 1, maxLength: 50 }),
        (demand, serviceMs, jitter) => {
          let i = 0;
          const run = drive(createConcurrencyLimit(), {
            slots: () => 100_000,
            serviceMs: () => serviceMs,
            // A slow tail, at most one answer in five, that does not depend on load.
            noise: () => {
              i = (i + 1) % jitter.length;
              return i % 5 === 0 ? (jitter[i] as number) : 0;
            },
            demand,
            untilMs: 60 * serviceMs,
          });
          const settled = run.trace.slice(Math.floor(run.trace.length / 2));
          return settled.every((t) => t.limit >= Math.min(demand, INITIAL_LIMIT));
        },
      ),
      { numRuns: 25 },
    );
  });

  it('cuts on rounds where everything is shed, and does not grow on a round with a shed answer', () => {
    const law = createConcurrencyLimit();
    let now = 0;
    // One attempt per round, each sent as the round before ended.
    const round = (rttMs: number | undefined) => {
      law.sample({ now: now + (rttMs ?? 1), sentAt: now, inFlight: law.limit, rttMs });
      now += rttMs ?? 1;
    };
    // The first attempt, the first round, the probe of the no-load latency (20 ms), the round after it.
    for (let i = 0; i < 4; i++) round(20);
    expect(law.limit).toBe(INITIAL_LIMIT);
    round(20);
    const grown = law.limit;
    expect(grown).toBeGreaterThan(INITIAL_LIMIT);
    round(undefined);
    expect(law.limit).toBe(grown);
    round(undefined);
    expect(law.limit).toBeLessThan(grown);
  });

  it('a fixed limit learns nothing', () => {
    const law = fixedLimit(3);
    expect(law.sample({ now: 1, sentAt: 0, inFlight: 3, rttMs: 1e6 })).toBe(false);
    expect(law.limit).toBe(3);
  });
});
