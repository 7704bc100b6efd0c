import { sleep } from '../../src/runtime/sleep';
import { manualInterruption } from '../helpers/manual-interruption';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

describe('sleep', () => {
  it('resolves after the delay, rounded up to the whole millisecond, and not before', async () => {
    const done = jest.fn();
    void sleep(99.2, { cancelError: () => new Error('unused') }).then(done);
    await jest.advanceTimersByTimeAsync(99);
    expect(done).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    expect(done).toHaveBeenCalled();
  });

  it('rejects at once when interrupted, and removes its timer and listener', async () => {
    const { interruption, fire, listeners } = manualInterruption();
    const canceled = new Error('canceled');
    const slept = sleep(10_000, { interruption, cancelError: () => canceled });
    expect(listeners.size).toBe(1);
    fire();
    await expect(slept).rejects.toBe(canceled);
    expect(jest.getTimerCount()).toBe(0);
    expect(listeners.size).toBe(0);
  });

  it('removes its listener when it resolves', async () => {
    const { interruption, listeners } = manualInterruption();
    const slept = sleep(10, { interruption, cancelError: () => new Error('unused') });
    await jest.advanceTimersByTimeAsync(10);
    await slept;
    expect(listeners.size).toBe(0);
  });

  it('calls onScheduled once the timer is set, and rejects with what it throws', async () => {
    const timers: number[] = [];
    const first = sleep(5, {
      cancelError: () => undefined,
      onSet: () => timers.push(jest.getTimerCount()),
    });
    await jest.advanceTimersByTimeAsync(5);
    await first;
    const failure = new Error('hook failed');
    const slept = sleep(5, {
      cancelError: () => undefined,
      onSet: () => {
        throw failure;
      },
    });
    await expect(slept).rejects.toBe(failure);
    expect(timers).toEqual([1]);
    expect(jest.getTimerCount()).toBe(0);
  });
});
