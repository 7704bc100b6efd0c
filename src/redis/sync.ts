import type { ScopeChange, SharedScope } from '../contract/store';
import { decodeMessage, decodeScope, encodeMessage, encodeScope, parseJson } from './codec';
import { COMPARE_AND_SET, type Link, UNANSWERED } from './scripts';

/**
 * The scopes' state kept in Redis: each change is made here at once, then written in the
 * background by one compare-and-set script, made again on the state stored there when another
 * client changed it first; the other clients hear of it on the channel.
 *
 * The writes of one scope go one at a time, and the changes made while one is on its way go
 * together in the next: a write never expects a version that an earlier write of ours may have
 * replaced with one of another client, and a slow Redis does not build a queue.
 */

/**
 * Compare-and-set attempts per write. Each one lost means another client's write went in (the
 * fleet progresses); a burst of many clients changing one scope at once can take a dozen, and the
 * changes of a write that loses every attempt stand here only.
 */
const MAX_ATTEMPTS = 16;

type Listener = (key: string, state: SharedScope) => void;

export interface ScopeSyncSettings {
  readonly link: Link;
  /** This store's id: the channel's messages carry it, and ours are skipped. */
  readonly client: string;
  readonly channel: string;
  readonly scopeKey: (key: string) => string;
  readonly ttlMs: number;
  /** Another client was heard of. */
  readonly heard: (client: string) => void;
}

export interface ScopeSync {
  update(key: string, current: SharedScope, change: ScopeChange): SharedScope;
  latest(key: string): SharedScope | undefined;
  watch(listener: Listener): () => void;
  /** A message of the channel. */
  receive(message: string): void;
  close(): void;
}

interface Chain {
  /** The changes made here that wait for the write on its way. */
  pending: { readonly current: SharedScope; readonly change: ScopeChange }[];
  /** The result returned for the last of them. */
  local: SharedScope;
  /** The latest state known to be stored (written, or heard of). */
  stored?: SharedScope;
}

/** A change counts as one version. */
const step = (state: SharedScope, change: ScopeChange): SharedScope => ({
  ...change(state),
  version: state.version + 1,
});

const newer = (state: SharedScope, than: SharedScope | undefined) =>
  !than || state.version >= than.version;

/** Calls each listener, apart: a listener's error reaches neither the Redis client nor a write. */
function listenerSet() {
  const listeners = new Set<Listener>();
  return {
    add(listener: Listener) {
      const own: Listener = (key, state) => listener(key, state);
      listeners.add(own);
      return () => void listeners.delete(own);
    },
    tell(key: string, state: SharedScope) {
      for (const listener of [...listeners]) {
        try {
          listener(key, state);
        } catch {
          // Not ours to report: the listener's own code logs what it must.
        }
      }
    },
    clear: () => listeners.clear(),
  };
}

interface Scopes {
  readonly settings: ScopeSyncSettings;
  /** The scopes with a write on its way (removed when their last write is done). */
  readonly chains: Map<string, Chain>;
  readonly tell: (key: string, state: SharedScope) => void;
}

/** Writes a scope's changes, a batch at a time, until none waits; tells when Redis kept another. */
async function drain({ settings, chains, tell }: Scopes, key: string, chain: Chain) {
  try {
    while (chain.pending.length > 0) {
      const stored = await write(settings, key, chain);
      chain.stored = stored;
      const settled = chain.pending.length === 0;
      // The state Redis kept, with its version: ours (confirmed), or another client's.
      if (stored && settled) tell(key, stored);
    }
  } catch {
    // A change that throws when made again on another state: the write is dropped.
  } finally {
    chains.delete(key);
  }
}

/** How many scopes' latest states are kept (a client keeps as many scopes: `MAX_SCOPES`). */
const KEPT = 256;

export function scopeSync(settings: ScopeSyncSettings): ScopeSync {
  const listeners = listenerSet();
  // The latest state heard of each scope, oldest first; `undefined` while a read is on its way.
  const heard = new Map<string, SharedScope | undefined>();
  const tell = (key: string, state: SharedScope) => {
    heard.delete(key);
    heard.set(key, state);
    if (heard.size > KEPT) heard.delete(heard.keys().next().value as string);
    listeners.tell(key, state);
  };
  const scopes: Scopes = { settings, chains: new Map(), tell };
  const { chains } = scopes;
  return {
    latest(key) {
      if (heard.has(key)) return heard.get(key);
      heard.set(key, undefined);
      // A scope this client meets for the first time: the fleet may have a state for it.
      void settings.link.command(['GET', settings.scopeKey(key)]).then((reply) => {
        const state = reply === UNANSWERED ? undefined : decodeScope(parseJson(reply));
        if (state && !heard.get(key)) tell(key, state);
      });
      return undefined;
    },
    update(key, current, change) {
      const local = step(current, change);
      let chain = chains.get(key);
      const idle = !chain;
      chain ??= { pending: [], local };
      chain.pending.push({ current, change });
      chain.local = local;
      if (idle) {
        chains.set(key, chain);
        void drain(scopes, key, chain);
      }
      return local;
    },
    watch: listeners.add,
    receive(text) {
      const message = decodeMessage(text);
      if (!message || message.client === settings.client) return;
      settings.heard(message.client);
      const chain = chains.get(message.key);
      if (chain && newer(message.state, chain.stored)) chain.stored = message.state;
      tell(message.key, message.state);
    },
    close: listeners.clear,
  };
}

/** The version a stored value carries, readable or not (an overwrite must still match it). */
function storedVersion(reply: unknown): number | undefined {
  const value = parseJson(reply) as { version?: unknown } | undefined;
  const version = value?.version;
  return typeof version === 'number' && Number.isSafeInteger(version) ? version : undefined;
}

/**
 * Takes the changes waiting on `chain` and makes them on a base: the state stored when it is as
 * new as the one the first of them was made on, else that one. Stores the result where the stored
 * version is still the base's, else makes them again on the state stored. Resolves to the state
 * stored (the last one seen when every attempt lost), or `undefined` when Redis did not answer:
 * the changes then stand here only.
 */
async function write(
  { link, client, channel, scopeKey, ttlMs }: ScopeSyncSettings,
  key: string,
  chain: Chain,
): Promise<SharedScope | undefined> {
  const batch = chain.pending.splice(0);
  const first = batch[0]?.current ?? chain.local;
  let expected = chain.stored && newer(chain.stored, first) ? chain.stored : first;
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const next = batch.reduce((state, { change }) => step(state, change), expected);
    const json = encodeScope(next);
    if (json === undefined) return undefined;
    const message = encodeMessage(client, key, json);
    const argv = [scopeKey(key), String(expected.version), json, String(ttlMs), channel, message];
    const reply = await link.script(COMPARE_AND_SET, argv);
    if (reply === null) return next;
    if (reply === UNANSWERED) return undefined;
    const stored = decodeScope(parseJson(reply));
    if (stored && attempt === MAX_ATTEMPTS) return stored;
    // A stored value we cannot read (another version's, or damaged) is overwritten.
    const version = stored?.version ?? storedVersion(reply);
    if (version === undefined) return undefined;
    expected = stored ?? { ...expected, version };
  }
  return undefined;
}
