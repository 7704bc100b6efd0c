import { createLoadControl, type Ending } from '../../src/load-control/load-control';
import { DEFAULT_CIRCUIT_BREAKER, DEFAULT_PACING } from '../../src/options/options';

const O = 'http://api.test';
const failed = (sentAt: number): Ending => ({ result: 'failure', originWide: true, sentAt });
const ok = (sentAt: number): Ending => ({ result: 'success', sentAt });

function control(maxConcurrent?: number) {
  return createLoadControl({
    circuitBreaker: { ...DEFAULT_CIRCUIT_BREAKER, minimumThroughput: 4 },
    pacing: DEFAULT_PACING,
    random: () => 1,
    probeEveryMs: 60_000,
    maxConcurrent,
  });
}

describe('the concurrency limit at the gate', () => {
  it('holds an attempt over maxConcurrent, and wakes the oldest in line when one ends', () => {
    const c = control(2);
    const a = c.admit(O, 'x', 0, 1000);
    const b = c.admit(O, 'y', 0, 1000);
    expect([a.kind, b.kind]).toEqual(['go', 'go']);
    const full = c.admit(O, 'x', 0, 1000);
    expect(full.kind).toBe('full');
    if (full.kind !== 'full' || a.kind !== 'go') throw new Error('unreachable');
    const woken: string[] = [];
    c.subscribe(full.scope, 5, () => woken.push('younger'), 'line');
    c.subscribe(full.scope, 1, () => woken.push('older'), 'line');
    c.settle(a.pass, 10, ok(0));
    expect(woken).toEqual(['older']);
    expect(c.admit(O, 'x', 10, 1000).kind).toBe('go');
  });

  it('never holds the probe of an open breaker', () => {
    const c = control(1);
    const held = c.admit(O, 'x', 0, 1000);
    expect(held.kind).toBe('go');
    // The origin's connection fails (seen outside the gate): its breaker opens.
    for (let i = 0; i < 4; i++) c.observe(O, 'x', 1, failed(1));
    expect(c.admit(O, 'x', 2, 10_000).kind).toBe('wait');
    // The break is over: the one attempt let through is the probe, though the limit is full.
    const probe = c.admit(O, 'x', 5000, 10_000);
    expect(probe.kind).toBe('go');
    if (probe.kind === 'go') expect(probe.pass.probes?.length).toBeGreaterThan(0);
  });

  it('learns per route by default, starting at 32', () => {
    const c = control();
    for (let i = 0; i < 32; i++) expect(c.admit(O, 'x', 0, 1000).kind).toBe('go');
    expect(c.admit(O, 'x', 0, 1000).kind).toBe('full');
    // Another route has a limit of its own.
    expect(c.admit(O, 'y', 0, 1000).kind).toBe('go');
  });
});
