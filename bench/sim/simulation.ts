import axios from 'axios';
import type { CircuitStateChange } from '../../src';
import type { Contestant, RetrySettings } from '../contestants';
import { CALL_ID_HEADER, simulatedAdapter } from './adapter';
import { runInVirtualTime, virtualNow } from './clock';
import { mulberry32, withMathRandom } from './prng';
import type { ServerModel } from './server-model';
import { TrafficLog } from './traffic-log';
import type { CallTarget, Workload } from './workload';

/** One logical call as the application saw it. */
export interface CallRecord {
  readonly startedAtMs: number;
  readonly settledAtMs: number;
  readonly ok: boolean;
  /** The axios error code (or HTTP status) the call failed with. */
  readonly failure?: string;
  /** Sent as the `x-bench-call` header, so the traffic log can tell calls apart. */
  readonly id: number;
  /** The path the call requested ('/resource' unless the workload said otherwise). */
  readonly path: string;
  /** Which of the spec's axios instances made it (0 unless the spec has several). */
  readonly instance: number;
}

export interface SimulationResult {
  readonly contestant: Contestant;
  readonly calls: readonly CallRecord[];
  readonly traffic: TrafficLog;
  /** Every circuit-breaker transition (our contestants with the breaker on; empty otherwise). */
  readonly circuitEvents: readonly CircuitStateChange[];
}

export interface SimulationSpec {
  readonly settings: Omit<RetrySettings, 'random'>;
  /** Built inside virtual time, so it may schedule its own events. */
  readonly server: () => ServerModel;
  readonly workload: Workload;
  readonly seed?: number;
  /**
   * Separate axios instances, each with the contestant attached on its own (default 1): as many
   * processes sharing nothing but the server. They share the seeded `random`, the server and the
   * traffic log; the circuit events of all of them are collected together.
   */
  readonly instances?: number;
}

/** The path a call requests unless the workload names one. */
export const DEFAULT_PATH = '/resource';

export const DEFAULT_SEED = 20260101;

/** Runs `spec` against one contestant: real axios, the real plugin, a scripted server, virtual time. */
export async function simulate(
  contestant: Contestant,
  spec: SimulationSpec,
): Promise<SimulationResult> {
  const random = mulberry32(spec.seed ?? DEFAULT_SEED);
  // Nothing here reads a stack; capturing (and, under ts-node, source-mapping) one for each of
  // the ~10^5 AxiosErrors was most of the run time.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return await runSimulation(contestant, spec, random);
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}

function runSimulation(
  contestant: Contestant,
  spec: SimulationSpec,
  random: () => number,
): Promise<SimulationResult> {
  return withMathRandom(random, () =>
    runInVirtualTime(async () => {
      const traffic = new TrafficLog();
      const server = spec.server();
      const circuitEvents: CircuitStateChange[] = [];
      const instances = Array.from({ length: spec.instances ?? 1 }, () => {
        const instance = axios.create({ adapter: simulatedAdapter(server, traffic) });
        contestant.attach(instance, {
          ...spec.settings,
          random,
          onCircuitStateChange: (event) => circuitEvents.push(event),
        });
        return instance;
      });
      const calls: CallRecord[] = [];
      let nextId = 0;
      await spec.workload(async (target: CallTarget = {}) => {
        const startedAtMs = virtualNow();
        const id = nextId++;
        const path = target.path ?? DEFAULT_PATH;
        const which = target.instance ?? 0;
        const instance = instances[which];
        if (!instance) throw new RangeError(`no axios instance ${which} in this simulation`);
        const record = { id, path, instance: which, startedAtMs };
        try {
          await instance.get(path, { headers: { [CALL_ID_HEADER]: String(id) } });
          calls.push({ ...record, settledAtMs: virtualNow(), ok: true });
          return true;
        } catch (error) {
          calls.push({
            ...record,
            settledAtMs: virtualNow(),
            ok: false,
            failure: describeFailure(error),
          });
          return false;
        }
      });
      return { contestant, calls, traffic, circuitEvents };
    }),
  );
}

/** "503", "ECONNREFUSED", plus axios-safe-retry's stop reason when it set one: "ECONNREFUSED (deadline)". */
function describeFailure(error: unknown): string {
  if (!axios.isAxiosError(error)) return String(error);
  const cause = String(error.response?.status ?? error.code ?? 'axios error');
  const stopReason = error.config?.retryState?.stopReason;
  return stopReason ? `${cause} (${stopReason})` : cause;
}

/** Runs `spec` against every contestant, one after the other. */
export async function simulateAll(
  contestants: readonly Contestant[],
  spec: SimulationSpec,
): Promise<SimulationResult[]> {
  const results: SimulationResult[] = [];
  for (const contestant of contestants) results.push(await simulate(contestant, spec));
  return results;
}
