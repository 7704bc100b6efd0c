// One worker process of the fleet benchmark (forked by bench/fleet/fleet.ts). For each run: its
// own axios instance and contestant, its share of the job, and a record of every call and
// request, sent back to the parent over IPC; then it lets go of the contestant and waits for the
// next run.
import axios, { type AxiosAdapter, type AxiosError, type AxiosInstance } from 'axios';
import type { CircuitStateChange } from '../../src';
import { type FleetClient, setUpContestant, Unavailable } from './contestants';
import type { AttemptRecord, CallRecord, ToParent, ToWorker, WorkerSpec } from './protocol';

export const CALL_HEADER = 'x-bench-call';

// Nothing here reads a stack; under ts-node every AxiosError's would otherwise be source-mapped.
Error.stackTraceLimit = 0;

/** Resolves once the message is handed to the IPC channel, so that exiting next loses nothing. */
function send(message: ToParent): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) resolve();
    else process.send(message, undefined, {}, () => resolve());
  });
}

/** axios's HTTP adapter, recording each request it is handed under its call's id. */
function recordingAdapter(attempts: Map<number, AttemptRecord[]>): AxiosAdapter {
  // `getAdapter` is axios ≥ 1.5.1's; before it the default adapter is the HTTP one, a function
  // (the axios matrix runs this under axios 1.1).
  const http =
    typeof axios.getAdapter === 'function'
      ? axios.getAdapter('http')
      : (axios.defaults.adapter as AxiosAdapter);
  return async (config) => {
    const id = Number(config.headers.get(CALL_HEADER));
    const list = attempts.get(id) ?? [];
    attempts.set(id, list);
    const at = Date.now();
    try {
      const response = await http(config);
      list.push({ at, outcome: response.status });
      return response;
    } catch (error) {
      const failure = error as AxiosError;
      list.push({ at, outcome: failure.response?.status ?? failure.code ?? 'error' });
      throw error;
    }
  };
}

function describeFailure(error: unknown): string {
  if (!axios.isAxiosError(error)) return String(error);
  const cause = String(error.response?.status ?? error.code ?? 'axios error');
  const stopReason = error.config?.retryState?.stopReason;
  return stopReason ? `${cause} (${stopReason})` : cause;
}

interface Prepared {
  readonly spec: WorkerSpec;
  readonly instance: AxiosInstance;
  readonly client: FleetClient;
  readonly attempts: Map<number, AttemptRecord[]>;
  readonly circuitEvents: CircuitStateChange[];
}

async function prepare(spec: WorkerSpec): Promise<Prepared> {
  const attempts = new Map<number, AttemptRecord[]>();
  const circuitEvents: CircuitStateChange[] = [];
  const instance = axios.create({ baseURL: spec.url, adapter: recordingAdapter(attempts) });
  const client = await setUpContestant(spec.contestant, instance, {
    spec,
    onCircuitStateChange: (event) => circuitEvents.push(event),
  });
  return { spec, instance, client, attempts, circuitEvents };
}

async function run(prepared: Prepared): Promise<CallRecord[]> {
  const { spec, instance, client, attempts } = prepared;
  const calls: CallRecord[] = [];
  const one = async (id: number): Promise<void> => {
    const startedAt = Date.now();
    const base = { id, worker: spec.worker, startedAt };
    try {
      await client.call(instance, { [CALL_HEADER]: String(id) });
      calls.push({ ...base, settledAt: Date.now(), ok: true, attempts: attempts.get(id) ?? [] });
    } catch (error) {
      calls.push({
        ...base,
        settledAt: Date.now(),
        ok: false,
        failure: describeFailure(error),
        attempts: attempts.get(id) ?? [],
      });
    }
  };
  const ids = Array.from({ length: spec.calls }, (_, index) => spec.firstCall + index);
  if (spec.inFlight === 'all') {
    await Promise.all(ids.map(one));
  } else {
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < ids.length) await one(ids[next++] as number);
    };
    await Promise.all(Array.from({ length: spec.inFlight }, lane));
  }
  return calls;
}

/** Lets go of the contestant, but never waits long for it (Redis may be gone). */
async function closeSoon(client: FleetClient): Promise<void> {
  await Promise.race([
    client.close().catch(() => {}),
    new Promise((resolve) => setTimeout(resolve, 2_000).unref()),
  ]);
}

let prepared: Prepared | undefined;

process.on('message', (message: ToWorker) => {
  if (message.type === 'setup') {
    prepare(message.spec).then(
      (ready) => {
        prepared = ready;
        void send({ type: 'ready' });
      },
      (error: unknown) =>
        void send(
          error instanceof Unavailable
            ? { type: 'unavailable', reason: error.message }
            : { type: 'error', message: String(error) },
        ),
    );
    return;
  }
  const ready = prepared;
  if (!ready) {
    void send({ type: 'error', message: 'told to go before it was set up' });
    return;
  }
  run(ready)
    .then(async (calls) => {
      await send({
        type: 'done',
        calls,
        breakerOpenings: ready.circuitEvents.filter((event) => event.state === 'open').length,
      });
      prepared = undefined;
      await closeSoon(ready.client);
      await send({ type: 'closed' });
    })
    .catch(async (error: unknown) => {
      await send({ type: 'error', message: String(error) });
      process.exit(1);
    });
});

// The parent is gone (it crashed, or was killed): so is this worker.
process.on('disconnect', () => process.exit(0));
