import { createOutcomeWindow } from '../../src/load-control/outcome-window';

describe('createOutcomeWindow', () => {
  it('counts successes and failures over the window, and how long it has seen', () => {
    const w = createOutcomeWindow(1000);
    w.add(100, 'success');
    w.add(150, 'failure');
    w.add(150, 'failure');
    w.add(200, 'throttled');
    expect(w.counts(300)).toEqual({ successes: 1, failures: 2, throttles: 1, spanMs: 200 });
    expect(w.counts(5000).spanMs).toBe(1000);
  });

  it('forgets a count between one window and a tenth more after it was made', () => {
    const w = createOutcomeWindow(1000);
    w.add(0, 'failure');
    expect(w.counts(1099).failures).toBe(1);
    expect(w.counts(1100).failures).toBe(0);
  });

  it('forgets everything after a long idle time, and after clear', () => {
    const w = createOutcomeWindow(1000);
    w.add(0, 'success');
    expect(w.counts(10 ** 9).successes).toBe(0);
    w.add(10 ** 9, 'failure');
    w.clear(10 ** 9 + 10);
    expect(w.counts(10 ** 9 + 10)).toEqual({ successes: 0, failures: 0, throttles: 0, spanMs: 0 });
  });

  it('keeps its counts when the clock steps backwards', () => {
    const w = createOutcomeWindow(1000);
    w.add(5000, 'failure');
    w.add(4000, 'failure');
    expect(w.counts(5000).failures).toBe(2);
  });
});
