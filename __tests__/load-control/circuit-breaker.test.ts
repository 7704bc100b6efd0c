import fc from 'fast-check';
import type { CircuitStateChange } from '../../src/contract/types';
import { createCircuitBreaker } from '../../src/load-control/circuit-breaker';
import { type AttemptResult, createOutcomeWindow } from '../../src/load-control/outcome-window';
import { soloBreaker } from '../helpers/breaker';

const settings = {
  failureRatio: 1,
  minimumThroughput: 4,
  windowMs: 1000,
  breakDurationMs: 500,
  maxBreakDurationMs: 2000,
};

function breaker(overrides: Partial<typeof settings> = {}, random = () => 1) {
  const events: CircuitStateChange[] = [];
  const closes: number[] = [];
  const b = soloBreaker({
    scope: { origin: 'http://api.test' },
    settings: { ...settings, ...overrides, onStateChange: (event) => events.push(event) },
    window: createOutcomeWindow(overrides.windowMs ?? settings.windowMs),
    random: random,
    onClose: (now) => closes.push(now),
  });
  const fail = (now: number, times = 1) => {
    for (let i = 0; i < times; i++) b.record(now, 'failure', false);
  };
  return { b, events, closes, fail };
}

describe('createCircuitBreaker', () => {
  it('never opens on throttles: a 429 is a rate signal, and the origin is alive', () => {
    const { b, fail } = breaker();
    for (let i = 0; i < 20; i++) b.record(0, 'throttled', false);
    expect(b.state).toBe('closed');
    // Throttles count as attempts that did not fail: failures among them do not reach the ratio.
    fail(0, 10);
    expect(b.state).toBe('closed');
  });

  it('closes on a throttled probe (pacing takes over from there)', () => {
    const { b, fail } = breaker();
    fail(0, 4);
    expect(b.admit(600)).toBe('probe');
    b.record(600, 'throttled', true);
    expect(b.state).toBe('closed');
  });

  it('trip opens a closed breaker for a break', () => {
    const { b } = breaker({}, () => 0);
    b.trip(100);
    expect(b.state).toBe('open');
    expect(b.admit(349)).toBe(350);
    expect(b.admit(350)).toBe('probe');
  });

  it('lets everything through while closed', () => {
    const { b, fail } = breaker();
    fail(0, 3);
    expect(b.state).toBe('closed');
    expect(b.admit(0)).toBe('send');
  });

  it('opens at minimumThroughput attempts when the failure share reaches failureRatio', () => {
    const { b, events, fail } = breaker();
    fail(0, 4);
    expect(b.state).toBe('open');
    expect(events).toEqual([{ origin: 'http://api.test', state: 'open', previousState: 'closed' }]);
    expect(Object.isFrozen(events[0])).toBe(true);
  });

  it.each([
    // Of a fleet of 7, a client judges 1/7 of the throughput, but no less than half of it: 2 of
    // a burst that a leaky bucket refused opened every client's breaker (never-worse seed 1514).
    [1 / 7, 5],
    [1 / 2, 5],
    [1, 10],
  ])('in a fleet where this client has a share of %d, opens at %d failed attempts', (share, at) => {
    const b = createCircuitBreaker({
      scope: { origin: 'http://api.test' },
      settings: { ...settings, minimumThroughput: 10 },
      window: createOutcomeWindow(settings.windowMs),
      random: () => 1,
      onClose: () => {},
      sharing: {
        change: (make) => make(b.shared),
        lease: () => true,
        unlease: () => {},
        wake: () => {},
        share: () => share,
      },
    });
    for (let i = 1; i < at; i++) b.record(0, 'failure', false);
    expect(b.state).toBe('closed');
    b.record(0, 'failure', false);
    expect(b.state).toBe('open');
  });

  it('stays closed while one success in the window keeps the share under a ratio of 1', () => {
    const { b, fail } = breaker();
    b.record(0, 'success', false);
    fail(0, 100);
    expect(b.state).toBe('closed');
    // Once the success has left the window, failures alone open it.
    fail(1100, 4);
    expect(b.state).toBe('open');
  });

  it('opens at a lower ratio when asked', () => {
    const { b, fail } = breaker({ failureRatio: 0.5 });
    b.record(0, 'success', false);
    b.record(0, 'success', false);
    fail(0, 1);
    expect(b.state).toBe('closed');
    fail(0, 1);
    expect(b.state).toBe('open');
  });

  it('does not count canceled attempts', () => {
    const { b } = breaker();
    for (let i = 0; i < 10; i++) b.record(0, undefined, false);
    expect(b.state).toBe('closed');
  });

  it('sends nothing while open, until the break is over', () => {
    const { b, fail } = breaker({}, () => 1);
    fail(0, 4);
    // A break of breakDurationMs × (0.5 + random / 2): 500 ms with random 1.
    expect(b.admit(0)).toBe(500);
    expect(b.admit(499)).toBe(500);
    expect(b.admit(500)).toBe('probe');
  });

  it('draws the break from its upper half', () => {
    const { b, fail } = breaker({}, () => 0);
    fail(0, 4);
    expect(b.admit(0)).toBe(250);
  });

  it('lets exactly one probe through at a time when half-open', () => {
    const { b, events, fail } = breaker();
    fail(0, 4);
    expect(b.admit(600)).toBe('probe');
    expect(b.state).toBe('half-open');
    expect(events.at(-1)).toMatchObject({ state: 'half-open', previousState: 'open' });
    expect(b.admit(600)).toBe(Infinity);
    expect(b.admit(10_000)).toBe(Infinity);
  });

  it('closes on a successful probe, with its counts afresh', () => {
    const { b, events, closes, fail } = breaker();
    fail(0, 4);
    b.admit(600);
    b.record(700, 'success', true);
    expect(b.state).toBe('closed');
    expect(closes).toEqual([700]);
    expect(events.at(-1)).toMatchObject({ state: 'closed', previousState: 'half-open' });
    fail(700, 3); // the four failures before were forgotten
    expect(b.state).toBe('closed');
  });

  it('opens again after a failed probe, for a break twice as long, up to the maximum', () => {
    const { b, fail } = breaker();
    fail(0, 4);
    const breaks: number[] = [];
    let now = 0;
    for (let i = 0; i < 4; i++) {
      now = b.admit(now) as number;
      expect(b.admit(now)).toBe('probe');
      b.record(now, 'failure', true);
      breaks.push((b.admit(now) as number) - now);
    }
    expect(breaks).toEqual([1000, 2000, 2000, 2000]);
  });

  it('lets another probe through when a probe was canceled', () => {
    const { b, fail } = breaker();
    fail(0, 4);
    expect(b.admit(600)).toBe('probe');
    b.record(600, undefined, true);
    expect(b.state).toBe('half-open');
    expect(b.admit(600)).toBe('probe');
  });

  it('ignores outcomes of attempts sent before it opened', () => {
    const { b, fail } = breaker();
    fail(0, 4);
    b.record(100, 'success', false);
    expect(b.state).toBe('open');
  });

  it('does not count canceled attempts among the failures either', () => {
    const { b, fail } = breaker();
    for (let i = 0; i < 4; i++) {
      b.record(0, undefined, false);
      fail(0);
    }
    expect(b.state).toBe('open'); // a cancel is not a success that keeps it closed
  });

  it('does not restart the break for the failure of an attempt sent before it opened', () => {
    const { b, events, fail } = breaker();
    fail(0, 4);
    fail(300);
    expect(b.admit(300)).toBe(500);
    expect(events.map((e) => e.state)).toEqual(['open']);
  });

  it('works without onStateChange', () => {
    const b = soloBreaker({
      scope: { origin: 'http://api.test' },
      settings: settings,
      window: createOutcomeWindow(1000),
      random: () => 1,
      onClose: () => {},
    });
    for (let i = 0; i < 4; i++) b.record(0, 'failure', false);
    expect(b.admit(500)).toBe('probe');
    b.record(500, 'success', true);
    expect(b.state).toBe('closed');
  });

  it('keeps working when onStateChange throws', () => {
    const b = soloBreaker({
      scope: { origin: 'http://api.test' },
      settings: {
        ...settings,
        onStateChange: () => {
          throw new Error('observer');
        },
      },
      window: createOutcomeWindow(1000),
      random: () => 1,
      onClose: () => {},
    });
    for (let i = 0; i < 4; i++) b.record(0, 'failure', false);
    expect(b.state).toBe('open');
  });

  it('never sends while open and never has two probes in flight (property)', () => {
    const step = fc.record({
      dt: fc.integer({ min: 0, max: 700 }),
      action: fc.constantFrom('admit', 'success', 'failure', 'cancel'),
    });
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 200 }),
        fc.double({ min: 0, max: 0.999 }),
        (steps, r) => {
          const { b } = breaker({}, () => r);
          let now = 0;
          const inFlight: boolean[] = []; // true for a probe
          for (const { dt, action } of steps) {
            now += dt;
            if (action === 'admit') {
              const wasOpen = b.state === 'open';
              const admission = b.admit(now);
              if (admission === 'send') {
                expect(b.state).toBe('closed');
                inFlight.push(false);
              } else if (admission === 'probe') {
                expect(inFlight.filter(Boolean)).toHaveLength(0);
                inFlight.push(true);
              } else if (wasOpen) expect(admission).toBeGreaterThan(now);
              continue;
            }
            const probe = inFlight.shift();
            if (probe === undefined) continue;
            const result: AttemptResult = action === 'cancel' ? undefined : action;
            b.record(now, result, probe);
          }
        },
      ),
    );
  });
});
