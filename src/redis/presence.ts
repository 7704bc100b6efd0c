import { now } from '../runtime/clock';
import { HEARTBEAT, type Link, UNANSWERED } from './scripts';

/**
 * The heartbeat of a Redis store: once a second it says this client is alive (in a sorted set
 * scored by the server's clock, from which clients silent for 3 s are dropped) and reads how many
 * are, and the server's clock. Between beats, and while Redis is away, the last answers stand.
 */

const HEARTBEAT_MS = 1000;
/** A client not heard of for this long has gone (three beats missed). */
const STALE_MS = 3000;

export interface Presence {
  /**
   * How many clients share the store: the last heartbeat's count, or more when more were heard
   * of since (a fleet that starts together is known at its first change, not a beat later).
   */
  clients(): number;
  /** Another client was heard of (a change it published). */
  heard(client: string): void;
  /** The server's clock minus this process's, from the fastest recent round trip (0 before). */
  clockOffset(): number;
  /** Stops the beat and takes this client out of the set. */
  stop(): Promise<void>;
}

interface ClockSample {
  readonly offset: number;
  readonly roundTrip: number;
  readonly at: number;
}

/** The heartbeat's reply: { clients, TIME seconds, TIME microseconds }, checked. */
function readBeat(reply: unknown): { clients: number; serverMs: number } | undefined {
  if (!Array.isArray(reply) || reply.length !== 3) return undefined;
  const [clients, seconds, micros] = reply.map(Number);
  if (!Number.isSafeInteger(clients) || !Number.isFinite(seconds) || !Number.isFinite(micros)) {
    return undefined;
  }
  return {
    clients: clients as number,
    serverMs: (seconds as number) * 1000 + (micros as number) / 1000,
  };
}

export function startPresence(link: Link, setKey: string, client: string): Presence {
  let count = 1;
  const others = new Map<string, number>();
  let samples: ClockSample[] = [];
  let beating = false;

  const beat = async () => {
    if (beating) return;
    beating = true;
    const sent = now();
    const argv = [setKey, client, String(STALE_MS), String(STALE_MS)];
    // Not on any call's path: it may wait up to a beat (its round trip is weighed, below).
    const reply = await link.script(HEARTBEAT, argv, HEARTBEAT_MS);
    const received = now();
    beating = false;
    const answer = reply === UNANSWERED ? undefined : readBeat(reply);
    if (!answer) return;
    count = Math.max(1, answer.clients);
    // The server read its clock at about the middle of the round trip.
    const sample = { offset: answer.serverMs - (sent + received) / 2, roundTrip: received - sent };
    // Clock samples are chosen among those of the last 30 s (the clocks drift apart slowly).
    samples = samples.filter(({ at }) => received - at < 30_000);
    samples.push({ ...sample, at: received });
  };

  const timer = setInterval(() => void beat(), HEARTBEAT_MS);
  timer.unref?.();
  void beat();

  return {
    clients() {
      const since = now() - STALE_MS;
      for (const [other, at] of others) if (at < since) others.delete(other);
      return Math.max(count, others.size + 1);
    },
    heard(other) {
      others.set(other, now());
    },
    clockOffset() {
      let best: ClockSample | undefined;
      for (const sample of samples) if (!best || sample.roundTrip < best.roundTrip) best = sample;
      return best?.offset ?? 0;
    },
    async stop() {
      clearInterval(timer);
      await link.command(['ZREM', setKey, client]);
    },
  };
}
