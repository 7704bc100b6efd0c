// Behaviours of src/runtime that no test pinned until its mutation run found them
// (docs/mutation.md): each test below fails with the mutant its comment names.
import { now } from '../../src/runtime/clock';
import { publish } from '../../src/runtime/metrics';
import { sleep } from '../../src/runtime/sleep';
import { manualInterruption } from '../helpers/manual-interruption';

afterEach(() => jest.useRealTimers());

describe('sleep', () => {
  const cancelError = () => new Error('canceled');

  it('ends early on a wake', async () => {
    jest.useFakeTimers();
    const { interruption, fire } = manualInterruption();
    const done = jest.fn();
    void sleep(10_000, { cancelError, wake: (w) => [interruption.subscribe(w)] }).then(done);
    fire();
    await jest.advanceTimersByTimeAsync(0);
    expect(done).toHaveBeenCalled();
    expect(jest.getTimerCount()).toBe(0);
  });

  it('waits for the promise onSet returns, not only for the time', async () => {
    jest.useFakeTimers();
    let settle: () => void = () => undefined;
    const done = jest.fn();
    void sleep(100, { cancelError, onSet: () => new Promise<void>((r) => (settle = r)) }).then(
      done,
    );
    await jest.advanceTimersByTimeAsync(200);
    expect(done).not.toHaveBeenCalled();
    settle();
    await jest.advanceTimersByTimeAsync(0);
    expect(done).toHaveBeenCalled();
  });

  it('counts a wake and then its timer as one end: it still waits for onSet', async () => {
    jest.useFakeTimers();
    const { interruption, fire } = manualInterruption();
    let settle: () => void = () => undefined;
    const done = jest.fn();
    void sleep(100, {
      cancelError,
      wake: (w) => [interruption.subscribe(w)],
      onSet: () => new Promise<void>((r) => (settle = r)),
    }).then(done);
    fire(); // the wake ends the time; its timer fires later all the same
    await jest.advanceTimersByTimeAsync(200);
    expect(done).not.toHaveBeenCalled();
    settle();
    await jest.advanceTimersByTimeAsync(0);
    expect(done).toHaveBeenCalled();
  });
});

describe('now', () => {
  it('reads Date.now() without fake timers (no fake clock to compare with)', () => {
    expect(Math.abs(now() - Date.now())).toBeLessThan(1000);
  });

  it('is not moved by a step of the faked wall clock while performance is faked too', () => {
    jest.useFakeTimers();
    const before = now();
    jest.setSystemTime(Date.now() + 3_600_000);
    expect(now() - before).toBeLessThan(1000);
  });

  it('reads Date.now() under a fake Date whose clock has no performance', () => {
    const date = Date as unknown as { clock?: object };
    date.clock = {};
    try {
      expect(Math.abs(now() - Date.now())).toBeLessThan(1000);
    } finally {
      delete date.clock;
    }
  });
});

describe('publish', () => {
  const globals = globalThis as { process?: { getBuiltinModule?: unknown } };

  it('is a no-op where there is no process (a browser)', () => {
    const saved = Object.getOwnPropertyDescriptor(globalThis, 'process') as PropertyDescriptor;
    Object.defineProperty(globalThis, 'process', { value: undefined, configurable: true });
    try {
      expect(() => publish('pinned-no-process', () => ({}))).not.toThrow();
    } finally {
      Object.defineProperty(globalThis, 'process', saved);
    }
  });

  it('is a no-op on a Node without process.getBuiltinModule (< 20.16)', () => {
    const process = globals.process as { getBuiltinModule?: unknown };
    const saved = process.getBuiltinModule;
    delete process.getBuiltinModule;
    try {
      expect(() => publish('pinned-no-builtin', () => ({}))).not.toThrow();
    } finally {
      process.getBuiltinModule = saved;
    }
  });
});
