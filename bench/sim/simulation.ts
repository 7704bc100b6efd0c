import axios, { isAxiosError } from 'axios';
import type { CircuitStateChange } from '../../src';
import type { Contestant, RetrySettings } from '../contestants';
import { CALL_ID_HEADER, simulatedAdapter } from './adapter';
import { runInVirtualTime, virtualNow } from './clock';
import { mulberry32, withMathRandom } from './prng';
import type { ServerModel } from './server-model';
import { TrafficLog } from './traffic-log';
import type { Workload } from './workload';

/** One logical call as the application saw it. */
export interface CallRecord {
  readonly startedAtMs: number;
  readonly settledAtMs: number;
  readonly ok: boolean;
  /** The axios error code (or HTTP status) the call failed with. */
  readonly failure?: string;
  /** Sent as the `x-bench-call` header, so the traffic log can tell calls apart. */
  readonly id: number;
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
}

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
      const instance = axios.create({ adapter: simulatedAdapter(spec.server(), traffic) });
      const circuitEvents: CircuitStateChange[] = [];
      contestant.attach(instance, {
        ...spec.settings,
        random,
        onCircuitStateChange: (event) => circuitEvents.push(event),
      });
      const calls: CallRecord[] = [];
      let nextId = 0;
      await spec.workload(async () => {
        const startedAtMs = virtualNow();
        const id = nextId++;
        try {
          await instance.get('/resource', { headers: { [CALL_ID_HEADER]: String(id) } });
          calls.push({ id, startedAtMs, settledAtMs: virtualNow(), ok: true });
          return true;
        } catch (error) {
          calls.push({
            id,
            startedAtMs,
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
  if (!isAxiosError(error)) return String(error);
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
