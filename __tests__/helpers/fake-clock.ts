/** Runs each test of the file on Jest's fake timers, the clock starting at 0. */
export function useFakeClock(): void {
  beforeEach(() => {
    jest.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    jest.useRealTimers();
  });
}
