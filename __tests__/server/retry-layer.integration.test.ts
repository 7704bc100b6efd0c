import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import axios, { type AxiosAdapter, type AxiosError, type AxiosInstance } from 'axios';
import axiosRetry from 'axios-retry';
import express from 'express';
import { attachRetry, type RetryOptions } from '../../src';
import { retryLayer } from '../../src/server';
// Counts the attempts a client actually sends (past its gate), connections refused included.
import { countingAdapter } from '../../support/layer-chain';

// Issue 16, "Retry at one layer": real express services on 127.0.0.1, top → L1 → L2 → L3 →
// bottom, each layer calling the next with its own axios instance (the package's defaults, or
// axios-retry's), in real time. Each test builds its own chain: fresh budgets and breakers.

type Mode = 'helper' | 'plain' | 'axios-retry';

interface Service {
  readonly url: string;
  readonly server: http.Server;
  /** Requests this service received, with the top call they belong to and when. */
  readonly arrivals: { call: string; at: number; headers: http.IncomingHttpHeaders }[];
}

const servers: http.Server[] = [];
const hangs = new Set<NodeJS.Timeout>();

async function listen(app: express.Express): Promise<{ url: string; server: http.Server }> {
  const server = await new Promise<http.Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

afterEach(async () => {
  for (const timer of hangs) clearTimeout(timer);
  hangs.clear();
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    ),
  );
});

type BottomBehaviour =
  | 'ok'
  | 'always-503'
  | 'always-502'
  | 'always-503-wait'
  | 'first-503'
  | 'first-503-each-call'
  | 'hang';

/** The dependency at the bottom of the chain. `closed` counts requests whose caller went away. */
async function startBottom(
  behaviour: BottomBehaviour,
): Promise<Service & { closedEarly: { call: string; at: number }[] }> {
  const arrivals: Service['arrivals'] = [];
  const closedEarly: { call: string; at: number }[] = [];
  const app = express();
  app.get('/', (req, res) => {
    const call = String(req.headers['x-call']);
    arrivals.push({ call, at: Date.now(), headers: req.headers });
    if (
      behaviour === 'always-503' ||
      (behaviour === 'first-503' && arrivals.length === 1) ||
      (behaviour === 'first-503-each-call' && arrivals.filter((a) => a.call === call).length === 1)
    ) {
      res.status(503).json({ error: 'overloaded' });
      return;
    }
    if (behaviour === 'always-503-wait') {
      res.status(503).set('Retry-After', '1').json({ error: 'overloaded' });
      return;
    }
    if (behaviour === 'always-502') {
      res.status(502).json({ error: 'bad gateway' });
      return;
    }
    if (behaviour === 'hang') {
      const timer = setTimeout(() => res.json({ ok: true }), 5000);
      hangs.add(timer);
      res.on('close', () => {
        clearTimeout(timer);
        hangs.delete(timer);
        if (!res.writableFinished) closedEarly.push({ call, at: Date.now() });
      });
      return;
    }
    res.json({ ok: true });
  });
  return { ...(await listen(app)), arrivals, closedEarly };
}

/** A port nothing listens on: connections to it are refused. */
async function refusingUrl(): Promise<string> {
  const { url, server } = await listen(express());
  servers.splice(servers.indexOf(server), 1);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return url;
}

let layerOptions: RetryOptions | undefined;
beforeEach(() => {
  layerOptions = undefined;
});

function retrying(client: AxiosInstance, mode: Mode, options?: RetryOptions): AxiosInstance {
  if (mode === 'axios-retry') axiosRetry(client, { retries: 3 });
  else attachRetry(client, options);
  return client;
}

/**
 * How a layer's handler answers when its call below failed:
 * - `next`: `next(error)`, to `retryLayer.errorHandler()` (in `helper` mode), then to an error
 *   handler that answers 503;
 * - `catch`: catches the error and answers 502 itself (what most handlers do), no error handler;
 * - `express`: lets the error go, no error handler: express answers its default 500.
 */
type HandlerStyle = 'next' | 'catch' | 'express';

interface LayerSpec {
  readonly mode: Mode;
  readonly style?: HandlerStyle;
  /** Fails its first request itself with a plain 503 (a local fault, not a dependency's). */
  readonly failFirst?: boolean;
}

/** A middle layer: GET / calls the next service's GET / and answers what it got. */
async function startLayer(next: string, spec: LayerSpec, adapter?: AxiosAdapter): Promise<Service> {
  const arrivals: Service['arrivals'] = [];
  const client = retrying(axios.create({ baseURL: next, adapter }), spec.mode, layerOptions);
  const app = express();
  if (spec.mode === 'helper') app.use(retryLayer());
  app.get('/', async (req, res) => {
    const call = String(req.headers['x-call']);
    arrivals.push({ call, at: Date.now(), headers: req.headers });
    if (spec.failFirst && arrivals.length === 1) throw new Error('a local fault');
    if (spec.style !== 'catch') {
      const answer = await client.get('/', { headers: { 'x-call': call } });
      res.json(answer.data);
      return;
    }
    try {
      res.json((await client.get('/', { headers: { 'x-call': call } })).data);
    } catch (error) {
      res.status(502).json({ error: String(error) });
    }
  });
  if (spec.style === 'catch' || spec.style === 'express')
    return { ...(await listen(app)), arrivals };
  if (spec.mode === 'helper') app.use(retryLayer.errorHandler());
  // What a service commonly answers when its dependency failed: 503.
  app.use(
    (
      _error: unknown,
      _req: express.Request,
      res: express.Response,
      _next: express.NextFunction,
    ) => {
      res.status(503).json({ error: 'dependency failed' });
    },
  );
  return { ...(await listen(app)), arrivals };
}

interface Chain {
  readonly top: AxiosInstance;
  readonly layers: Service[];
  /** Attempts L3 sent to the bottom (connections refused included). */
  readonly attemptsAtBottom: () => number;
}

/** top → L1 → L2 → L3 → bottom; `specs` are L1, L2, L3 in order. */
async function startChain(
  bottomUrl: string,
  specs: readonly LayerSpec[],
  topMode: Mode,
  topOptions?: RetryOptions,
): Promise<Chain> {
  const counting = countingAdapter();
  const layers: Service[] = [];
  let next = bottomUrl;
  for (let i = specs.length - 1; i >= 0; i--) {
    const layer = await startLayer(
      next,
      specs[i]!,
      i === specs.length - 1 ? counting.adapter : undefined,
    );
    layers.unshift(layer);
    next = layer.url;
  }
  const top = retrying(axios.create({ baseURL: next }), topMode, topOptions);
  return { top, layers, attemptsAtBottom: counting.count };
}

interface TopOutcome {
  readonly call: string;
  readonly ok: boolean;
  readonly stopReason: string | undefined;
  readonly retryCount: number | undefined;
  readonly startedAt: number;
  readonly settledAt: number;
}

async function topCalls(chain: Chain, n: number): Promise<TopOutcome[]> {
  return Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const call = `c${i}`;
      const startedAt = Date.now();
      try {
        const response = await chain.top.get('/', { headers: { 'x-call': call } });
        const state = response.config.retryState;
        return {
          call,
          ok: true,
          stopReason: undefined,
          retryCount: state?.retryCount,
          startedAt,
          settledAt: Date.now(),
        };
      } catch (error) {
        const state = (error as AxiosError).config?.retryState;
        return {
          call,
          ok: false,
          stopReason: state?.stopReason,
          retryCount: state?.retryCount,
          startedAt,
          settledAt: Date.now(),
        };
      }
    }),
  );
}

/** How many requests each top call made at a service. */
function perCall(arrivals: Service['arrivals']): number[] {
  const counts = new Map<string, number>();
  for (const { call } of arrivals) counts.set(call, (counts.get(call) ?? 0) + 1);
  return [...counts.values()];
}

const helper: LayerSpec = { mode: 'helper' };
const plain: LayerSpec = { mode: 'plain' };
const CALLS = 20;

describe('retry at one layer: the bottom always answers 503', () => {
  it('with retryLayer at every layer, only L3 retries: at most 4 requests at the bottom per top call', async () => {
    const bottom = await startBottom('always-503');
    const chain = await startChain(bottom.url, [helper, helper, helper], 'plain');
    const outcomes = await topCalls(chain, CALLS);

    const perTopCall = bottom.arrivals.length / CALLS;
    console.log(`retryLayer at every layer: ${perTopCall} requests at the bottom per top call`);
    expect(perTopCall).toBeLessThanOrEqual(4);
    expect(Math.max(...perCall(bottom.arrivals))).toBeLessThanOrEqual(4);
    // Every layer above L3 got each call once at most: nobody above retried. (A caller's own
    // breaker may stop a call before it is sent: the layer below failed every attempt.)
    for (const layer of chain.layers) expect(Math.max(...perCall(layer.arrivals))).toBe(1);
    for (const outcome of outcomes) {
      expect(outcome).toMatchObject({ ok: false, retryCount: 0 });
      expect(['upstream-gave-up', 'circuit-open']).toContain(outcome.stopReason);
      // Within one layer's retries (backoff ceilings 100 + 200 + 400 ms), not the sum of all
      // (each layer above retrying the one below: several times this). 5 s, not 2: 20 calls
      // through four servers on a loaded 2-core machine took up to 2.9 s (1.2 s unloaded), and
      // up to 3.6 s at a load average of 7. (That nobody above L3 retried is checked above.)
      expect(outcome.settledAt - outcome.startedAt).toBeLessThan(5000);
    }
    // Each attempt carried its number (whether L3's retries went out before its breaker opened
    // depends on timing: the single-503 test below checks the numbers of a retry).
    const attempts = bottom.arrivals.map((a) => a.headers['retry-attempt']);
    expect(attempts).toContain('1');
    expect(attempts.every((a) => ['1', '2', '3', '4'].includes(String(a)))).toBe(true);
  });

  it('one top call alone: 4 requests at the bottom with retryLayer, more without it', async () => {
    const withHelper = await startBottom('always-503');
    await topCalls(await startChain(withHelper.url, [helper, helper, helper], 'plain'), 1);
    const without = await startBottom('always-503');
    // Backoff ÷ 10 at every client of this chain, or its nested retries take seconds; the
    // breakers' windows are not shortened, so what they let through is, if anything, more.
    layerOptions = { baseDelayMs: 10 };
    const chain = await startChain(without.url, [plain, plain, plain], 'plain', layerOptions);
    const [outcome] = await topCalls(chain, 1);
    console.log(
      `one top call: ${withHelper.arrivals.length} at the bottom with retryLayer, ${without.arrivals.length} without`,
    );
    expect(withHelper.arrivals).toHaveLength(4);
    // Without the helper every layer retries the failure of the one below: the budgets and the
    // breakers cut the 4⁴, but the top call still fans out well past what one layer sends.
    expect(without.arrivals.length).toBeGreaterThan(8);
    expect(chain.layers[0]!.arrivals.length).toBeGreaterThan(1);
    expect(outcome!.stopReason).not.toBe('upstream-gave-up');
  });

  it('three hops (top → L1 → L2 → bottom): 4 requests at the bottom, each layer above sends once', async () => {
    const bottom = await startBottom('always-503');
    const chain = await startChain(bottom.url, [helper, helper], 'plain');
    const [outcome] = await topCalls(chain, 1);
    expect(bottom.arrivals.map((a) => a.headers['retry-attempt'])).toEqual(['1', '2', '3', '4']);
    for (const layer of chain.layers) expect(layer.arrivals).toHaveLength(1);
    expect(outcome).toMatchObject({ ok: false, retryCount: 0, stopReason: 'upstream-gave-up' });
  });

  it('a bottom that answers 502 and handlers that answer their own 502: 4 requests at the bottom, each layer above sends once', async () => {
    // Before, only a 503, a 429 or a refused connection marked the answer: each layer retried
    // the 502 of the one below (4 × 4 × 4 at the bottom for one top call, until breakers opened).
    const bottom = await startBottom('always-502');
    const catching: LayerSpec = { mode: 'helper', style: 'catch' };
    const chain = await startChain(bottom.url, [catching, catching, catching], 'plain');
    const [outcome] = await topCalls(chain, 1);
    expect(bottom.arrivals).toHaveLength(4);
    for (const layer of chain.layers.slice(0, 2)) expect(layer.arrivals).toHaveLength(1);
    expect(outcome).toMatchObject({ ok: false, retryCount: 0, stopReason: 'upstream-gave-up' });
  });

  it('this package without retryLayer, 20 calls at once: the breakers cut the load', async () => {
    const bottom = await startBottom('always-503');
    const chain = await startChain(bottom.url, [plain, plain, plain], 'plain');
    const outcomes = await topCalls(chain, CALLS);
    console.log(
      `this package without retryLayer: ${bottom.arrivals.length / CALLS} requests at the bottom per top call, ${chain.layers[0]!.arrivals.length} at L1`,
    );
    // Reported for the comparison; what holds: every call failed, none with the new stop reason.
    expect(outcomes.every((o) => !o.ok && o.stopReason !== 'upstream-gave-up')).toBe(true);
    // 20 calls through four servers: 0.8 s, and more than the default 5 s once on a loaded box.
  }, 20_000);

  it('with axios-retry at every layer, 4⁴ = 256 requests at the bottom per top call', async () => {
    const bottom = await startBottom('always-503');
    const chain = await startChain(
      bottom.url,
      [{ mode: 'axios-retry' }, { mode: 'axios-retry' }, { mode: 'axios-retry' }],
      'axios-retry',
    );
    // Two calls, not twenty: 512 requests at the bottom make the point and keep the suite fast.
    await topCalls(chain, 2);
    console.log(`axios-retry at every layer: ${bottom.arrivals.length / 2} per top call`);
    expect(bottom.arrivals.length).toBe(2 * 256);
    // 1 000 requests through four processes' worth of servers: generous for a loaded CI machine.
  }, 30_000);

  it('a mix: a layer without retryLayer between two with it multiplies only its own retries', async () => {
    const bottom = await startBottom('always-503');
    // L1 and L3 have retryLayer; L2 has this package's client but not the server helper. One
    // call alone: with many at once the breakers, not the layering, decide how far each goes.
    const chain = await startChain(bottom.url, [helper, plain, helper], 'plain');
    const [outcome] = await topCalls(chain, 1);

    console.log(`helper, plain, helper: ${bottom.arrivals.length} requests at the bottom`);
    // L2 honours L3's "don't retry" but answers a plain 503; L1 retries L2 (at most 4 attempts),
    // then tells the top not to retry: at most 4 × 4 at the bottom, and the top sends it once.
    expect(bottom.arrivals.length).toBeGreaterThan(4);
    expect(bottom.arrivals.length).toBeLessThanOrEqual(16);
    expect(chain.layers[0]!.arrivals).toHaveLength(1);
    expect(chain.layers[1]!.arrivals.length).toBeGreaterThan(1);
    expect(outcome).toMatchObject({ ok: false, retryCount: 0, stopReason: 'upstream-gave-up' });
  });
});

describe('retry at one layer: the bottom refuses connections', () => {
  it('with retryLayer at every layer: at most 4 connection attempts at the bottom per top call', async () => {
    const chain = await startChain(await refusingUrl(), [helper, helper, helper], 'plain');
    const outcomes = await topCalls(chain, CALLS);

    const perTopCall = chain.attemptsAtBottom() / CALLS;
    console.log(`refused, retryLayer at every layer: ${perTopCall} attempts per top call`);
    expect(perTopCall).toBeLessThanOrEqual(4);
    for (const layer of chain.layers) expect(Math.max(...perCall(layer.arrivals))).toBe(1);
    for (const outcome of outcomes) {
      expect(outcome.retryCount).toBe(0);
      expect(['upstream-gave-up', 'circuit-open']).toContain(outcome.stopReason);
    }
  });
});

describe('deadlines travel, and a caller that has gone stops the layers below', () => {
  it('bottom hangs 5 s, top deadlineMs 2000: every top call settles by 3 s, nothing reaches the bottom after', async () => {
    const bottom = await startBottom('hang');
    const chain = await startChain(bottom.url, [helper, helper, helper], 'plain', {
      deadlineMs: 2000,
      propagate: true,
    });
    const outcomes = await topCalls(chain, CALLS);
    const settled = new Map(outcomes.map((o) => [o.call, o.settledAt]));

    for (const outcome of outcomes) {
      expect(outcome.ok).toBe(false);
      // The deadline's 2 s, and 1 s for a loaded machine (the bottom hangs 5 s): 20 calls that end
      // at once through four servers settled up to 2.44 s after they began alone, and up to
      // 2.83 s at a load average of 7.
      expect(outcome.settledAt - outcome.startedAt).toBeLessThanOrEqual(3000);
    }
    // The deadline travelled down, shorter at each hop; the bottom got each call once.
    const l1Deadline = Number(chain.layers[0]!.arrivals[0]!.headers['request-deadline-ms']);
    expect(l1Deadline).toBeLessThanOrEqual(2000);
    expect(l1Deadline).toBeGreaterThan(1500);
    for (const arrival of bottom.arrivals) {
      const left = Number(arrival.headers['request-deadline-ms']);
      expect(left).toBeGreaterThan(0);
      expect(left).toBeLessThan(l1Deadline);
      expect(arrival.at).toBeLessThan(settled.get(arrival.call)!);
    }
    expect(bottom.arrivals.length).toBeLessThanOrEqual(CALLS);

    // The layers stopped working on it: no request reaches the bottom later, and the ones that
    // hung there were dropped (by the layer above) once their call was over.
    const arrivalsBefore = bottom.arrivals.length;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(bottom.arrivals.length).toBe(arrivalsBefore);
    // Each hung request is dropped, not answered: wait for the drops (on a loaded two-core box
    // 11 of 20 had come 500 ms after the last call settled), while the bottom still hangs.
    const lastSettled = Math.max(...settled.values());
    while (bottom.closedEarly.length < bottom.arrivals.length && Date.now() < lastSettled + 2000) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(bottom.closedEarly.length).toBe(bottom.arrivals.length);
    for (const closed of bottom.closedEarly) {
      // A margin for a loaded machine: what matters is that the bottom's connections close
      // within a moment of the top's settling, not the 3 s the bottom would still hang. (They
      // closed 0.06 to 0.9 s after it, and 1.1 s once, on a loaded two-core box.)
      expect(closed.at).toBeLessThanOrEqual(settled.get(closed.call)! + 2000);
    }
    // The wait for the drops may take it past the default 5 s.
  }, 20_000);

  it('when the top caller gives up, the layers below drop the call and start no attempt', async () => {
    const bottom = await startBottom('hang');
    const chain = await startChain(bottom.url, [helper, helper, helper], 'plain');
    const controller = new AbortController();
    const call = chain.top.get('/', { headers: { 'x-call': 'gone' }, signal: controller.signal });
    const outcome = call.catch((error: AxiosError) => error);
    while (bottom.arrivals.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const abortedAt = Date.now();
    controller.abort();
    expect(((await outcome) as AxiosError).code).toBe('ERR_CANCELED');

    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(bottom.closedEarly).toHaveLength(1);
    expect(bottom.closedEarly[0]!.at - abortedAt).toBeLessThan(400);
    expect(bottom.arrivals).toHaveLength(1);
    for (const layer of chain.layers) expect(layer.arrivals).toHaveLength(1);
  });
});

describe('retry at one layer does not turn every failure into "give up"', () => {
  it('a 503 that L1 answered itself, without the signal, is retried by the top', async () => {
    const bottom = await startBottom('ok');
    const chain = await startChain(
      bottom.url,
      [{ mode: 'helper', failFirst: true }, helper, helper],
      'plain',
    );
    const [outcome] = await topCalls(chain, 1);
    expect(outcome).toMatchObject({ ok: true, retryCount: 1 });
    expect(chain.layers[0]!.arrivals).toHaveLength(2);
    expect(bottom.arrivals).toHaveLength(1);
  });

  it('a single 503 at the bottom is retried by L3 alone, and the top call succeeds', async () => {
    const bottom = await startBottom('first-503');
    const chain = await startChain(bottom.url, [helper, helper, helper], 'plain');
    const [outcome] = await topCalls(chain, 1);
    expect(outcome).toMatchObject({ ok: true, retryCount: 0 });
    expect(bottom.arrivals).toHaveLength(2);
    expect(bottom.arrivals.map((a) => a.headers['retry-attempt'])).toEqual(['1', '2']);
    for (const layer of chain.layers) expect(layer.arrivals).toHaveLength(1);
  });
});

// Issue 23: the handlers people write, defaults everywhere (attachRetry with no options at every
// client, the top included; `app.use(retryLayer())` in every layer and nothing else).
async function oneAtATime(chain: Chain, n: number, from = 0): Promise<TopOutcome[]> {
  const outcomes: TopOutcome[] = [];
  for (let i = from; i < from + n; i++) {
    const started = Date.now();
    try {
      const response = await chain.top.get('/', { headers: { 'x-call': `c${i}` } });
      outcomes.push({
        call: `c${i}`,
        ok: true,
        stopReason: undefined,
        retryCount: response.config.retryState?.retryCount,
        startedAt: started,
        settledAt: Date.now(),
      });
    } catch (error) {
      const state = (error as AxiosError).config?.retryState;
      outcomes.push({
        call: `c${i}`,
        ok: false,
        stopReason: state?.stopReason,
        retryCount: state?.retryCount,
        startedAt: started,
        settledAt: Date.now(),
      });
    }
  }
  return outcomes;
}

/** The most requests any one top call made at a service; `arrivals` in call order. */
function mostPerCall(arrivals: Service['arrivals']): number {
  return Math.max(0, ...perCall(arrivals));
}

const catching: LayerSpec = { mode: 'helper', style: 'catch' };
const CHAINS: readonly [string, readonly LayerSpec[]][] = [
  ['every handler catches and answers 502', [catching, catching, catching]],
  [
    "a mix: next(error) with the error handler, catch → 502, express's own 500",
    [{ mode: 'helper', style: 'next' }, catching, { mode: 'helper', style: 'express' }],
  ],
];

describe.each(CHAINS)('handlers as people write them (%s), defaults everywhere', (_, specs) => {
  const SEQUENTIAL = 12;

  it('bottom 503: at most 4 requests at the bottom per top call, the first included; only L3 retries', async () => {
    const bottom = await startBottom('always-503');
    const chain = await startChain(bottom.url, specs, 'plain');
    const outcomes = await oneAtATime(chain, SEQUENTIAL);
    console.log(
      `${_}, bottom 503: ${bottom.arrivals.length} at the bottom for ${SEQUENTIAL} calls, ${perCall(bottom.arrivals)}`,
    );
    expect(bottom.arrivals.filter((a) => a.call === 'c0')).toHaveLength(4);
    expect(mostPerCall(bottom.arrivals)).toBeLessThanOrEqual(4);
    for (const layer of chain.layers) expect(mostPerCall(layer.arrivals)).toBe(1);
    for (const outcome of outcomes) {
      expect(outcome).toMatchObject({ ok: false, retryCount: 0 });
      expect(['upstream-gave-up', 'circuit-open']).toContain(outcome.stopReason);
    }
  }, 20_000);

  it('bottom refused: at most 4 connection attempts per top call, the first included; only L3 retries', async () => {
    const chain = await startChain(await refusingUrl(), specs, 'plain');
    const first = await oneAtATime(chain, 1);
    expect(chain.attemptsAtBottom()).toBeLessThanOrEqual(4);
    const rest = await oneAtATime(chain, SEQUENTIAL - 1, 1);
    console.log(`${_}, refused: ${chain.attemptsAtBottom()} attempts for ${SEQUENTIAL} calls`);
    expect(chain.attemptsAtBottom()).toBeLessThanOrEqual(4 * SEQUENTIAL);
    for (const layer of chain.layers) expect(mostPerCall(layer.arrivals)).toBe(1);
    for (const outcome of [...first, ...rest]) {
      expect(outcome).toMatchObject({ ok: false, retryCount: 0 });
      expect(['upstream-gave-up', 'circuit-open']).toContain(outcome.stopReason);
    }
  }, 20_000);

  it('bottom refused, top deadlineMs 2000: once L3 holds its calls at its open breaker, only L3 retries (issue 21)', async () => {
    // L3's calls wait at its gate until the deadline: each stops with 'deadline' and the
    // refusal before it, its `retryAfterMs` set. That is a give-up on overload too.
    const chain = await startChain(await refusingUrl(), specs, 'plain', { deadlineMs: 2000 });
    const outcomes = await oneAtATime(chain, 6);
    console.log(
      `${_}, refused, deadline: ${chain.layers.map((l) => perCall(l.arrivals).join('/'))}`,
    );
    for (const layer of chain.layers) expect(mostPerCall(layer.arrivals)).toBe(1);
    for (const outcome of outcomes) expect(outcome).toMatchObject({ ok: false, retryCount: 0 });
  }, 30_000);

  it('bottom 503 with Retry-After: 1, top deadlineMs 2000: a wait past the deadline is a give-up too; only L3 retries (issue 21)', async () => {
    // L3's call stops with 'deadline' on the 503 (its wait ends past what is left): no gate
    // stop, no retry used up, and overload all the same.
    const bottom = await startBottom('always-503-wait');
    const chain = await startChain(bottom.url, specs, 'plain', { deadlineMs: 2000 });
    const outcomes = await oneAtATime(chain, 4);
    console.log(
      `${_}, 503 and a wait, deadline: ${chain.layers.map((l) => perCall(l.arrivals).join('/'))}`,
    );
    for (const layer of chain.layers) expect(mostPerCall(layer.arrivals)).toBe(1);
    for (const outcome of outcomes) expect(outcome).toMatchObject({ ok: false, retryCount: 0 });
  }, 30_000);

  it('bottom 503 on the first attempt of each call, then 200: every call succeeds, at most 2 at the bottom', async () => {
    const bottom = await startBottom('first-503-each-call');
    const chain = await startChain(bottom.url, specs, 'plain');
    const outcomes = await oneAtATime(chain, SEQUENTIAL);
    for (const outcome of outcomes) expect(outcome).toMatchObject({ ok: true, retryCount: 0 });
    expect(mostPerCall(bottom.arrivals)).toBeLessThanOrEqual(2);
    for (const layer of chain.layers) expect(mostPerCall(layer.arrivals)).toBe(1);
  }, 20_000);

  it('bottom hangs, top deadlineMs 2000: every call settles by 3 s, nothing reaches the bottom after', async () => {
    const bottom = await startBottom('hang');
    const chain = await startChain(bottom.url, specs, 'plain', { deadlineMs: 2000 });
    const outcomes = await topCalls(chain, CALLS);
    const settled = new Map(outcomes.map((o) => [o.call, o.settledAt]));
    for (const outcome of outcomes) {
      expect(outcome.ok).toBe(false);
      // The deadline's 2 s, and 1 s for a loaded machine (the bottom hangs 5 s): 20 calls that end
      // at once through four servers settled up to 2.44 s after they began alone, and up to
      // 2.83 s at a load average of 7.
      expect(outcome.settledAt - outcome.startedAt).toBeLessThanOrEqual(3000);
    }
    // The top's deadline went down without `propagate: true`.
    expect(
      Number(chain.layers[0]!.arrivals[0]!.headers['request-deadline-ms']),
    ).toBeLessThanOrEqual(2000);
    for (const arrival of bottom.arrivals) {
      expect(arrival.at).toBeLessThan(settled.get(arrival.call)!);
    }
    const before = bottom.arrivals.length;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(bottom.arrivals.length).toBe(before);
    for (const layer of chain.layers) expect(mostPerCall(layer.arrivals)).toBe(1);
  }, 20_000);
});

describe('a newcomer who mounts retryLayer without calling it', () => {
  it('`app.use(retryLayer)`: each request fails with an error that says to call it', async () => {
    const app = express();
    app.use(retryLayer as unknown as express.RequestHandler);
    app.get('/', (_req, res) => res.send('ok'));
    let seen: unknown;
    app.use((error: unknown, _req: express.Request, res: express.Response, _next: unknown) => {
      seen = error;
      res.status(500).end();
    });
    const { url } = await listen(app);
    const answer = await axios.get(url, { validateStatus: () => true });
    expect(answer.status).toBe(500);
    expect(seen).toBeInstanceOf(TypeError);
    expect((seen as Error).message).toBe('axios-safe-retry: call `retryLayer()`.');
  });
});
