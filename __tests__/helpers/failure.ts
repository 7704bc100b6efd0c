import { AxiosError } from 'axios';

/** The error a settled call rejected with, typed for assertions. */
export function failureIn(outcome: { error?: unknown }): AxiosError {
  expect(outcome.error).toBeInstanceOf(AxiosError);
  return outcome.error as AxiosError;
}

/** Awaits a call that must reject, and returns its error, typed for assertions. */
export async function failureOf(call: Promise<unknown>): Promise<AxiosError> {
  return failureIn(
    await call.then(
      () => ({}),
      (error: unknown) => ({ error }),
    ),
  );
}
