/**
 * What a failed response says of retrying it, read off its headers (pure: no axios):
 * - `false`: do not retry. `Stripe-Should-Retry: false` (Stripe's header, which is also what
 *   `axios-safe-retry/server` answers when the layer below gave up), or a
 *   `grpc-retry-pushback-ms` that is negative or malformed;
 * - a number: retry, after this many milliseconds (a `grpc-retry-pushback-ms` of 0 or more);
 * - `true`: retry, the server vouches that it is safe (`Stripe-Should-Retry: true`);
 * - `undefined`: the server said nothing of it.
 *
 * `header` reads a response header by its lower-case name.
 */
export function serverAdvice(
  header: (name: string) => string | undefined,
): boolean | number | undefined {
  const should = header('stripe-should-retry');
  const pushback = header('grpc-retry-pushback-ms');
  if (should === 'false') return false;
  return pushback === undefined
    ? should === 'true' || undefined
    : /^\d+$/.test(pushback) && +pushback;
}
