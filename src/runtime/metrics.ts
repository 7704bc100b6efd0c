// Metrics on `node:diagnostics_channel` (the way undici and fastify publish theirs). The module is
// asked of Node only, lazily (`process.getBuiltinModule`, Node ≥ 20.16 / 22.3): no import, so the
// browser bundle has none; elsewhere every publish is a no-op. A message is made only for a
// channel with subscribers.

interface Channel {
  readonly hasSubscribers: boolean;
  publish(message: unknown): void;
}

type Dc = { channel(name: string): Channel } | undefined;

// Where there is no module (a browser), a channel is asked for again at each publish: a look-up
// that stops at once.
const channels: Record<string, Channel | undefined> = {};

/** Publishes `message()` on `axios-safe-retry:<name>` when the channel has subscribers. */
export function publish(name: string, message: () => object): void {
  channels[name] ??= (globalThis as { process?: { getBuiltinModule?(id: string): Dc } }).process
    ?.getBuiltinModule?.('node:diagnostics_channel')
    ?.channel(`axios-safe-retry:${name}`);
  const channel = channels[name];
  if (channel?.hasSubscribers) channel.publish(message());
}
