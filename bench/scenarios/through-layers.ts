import {
  type BottomMode,
  type ChainMode,
  type ChainRun,
  type ChainSpec,
  type HandlerStyle,
  runChain,
} from '../../support/layer-chain';
import { fixed, millis, ratio } from '../report/format';
import type { Table } from '../report/table';
import type { ScenarioReport, TargetCheck } from './scenario';

// Issue 16, "Retry at one layer". Unlike the other scenarios this one runs in REAL time: a chain
// of real express services on 127.0.0.1 does not fit the simulated adapter or fake timers.
const LAYERS = {
  layers: 3,
  /** Top calls sent one by one, each through a chain of its own (fresh budgets and breakers). */
  aloneCalls: 3,
  /** Top calls sent at once through one chain. */
  atOnceCalls: 10,
  /** For every `attachRetry` of the chain, so that nested retries take ms, not seconds. */
  baseDelayMs: 10,
  /** Issue 16's target with retryLayer: requests at the bottom per top call. */
  maxPerTopCall: 4,
};

const CONTESTANTS: readonly { mode: ChainMode; name: string }[] = [
  { mode: 'axios-retry', name: 'axios-retry 4.5 at every layer' },
  { mode: 'plain', name: 'axios-safe-retry, no retryLayer' },
  { mode: 'helper', name: 'axios-safe-retry + retryLayer at every layer' },
];

const BOTTOMS: readonly { bottom: BottomMode; label: string }[] = [
  { bottom: 'always-503', label: 'bottom always answers 503' },
  { bottom: 'refused', label: 'bottom refuses connections' },
];

/** Issue 23: handlers that answer their caller themselves (most do), then ones that `next(error)`. */
const STYLES: readonly { handlers: HandlerStyle; label: string }[] = [
  { handlers: 'catch', label: 'handlers catch and answer 502 (only `app.use(retryLayer())`)' },
  { handlers: 'next', label: 'handlers `next(error)` (with `retryLayer.errorHandler()`)' },
];

interface Measured {
  readonly name: string;
  readonly mode: ChainMode;
  /** One chain per call, each with one top call. */
  readonly alone: readonly ChainRun[];
  /** One chain, `atOnceCalls` top calls at once. */
  readonly atOnce: ChainRun;
}

const mean = (values: readonly number[]): number =>
  values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
const alonePerCall = (m: Measured): number => mean(m.alone.map((run) => run.atBottom));
const aloneMost = (m: Measured): number => Math.max(...m.alone.map((run) => run.atBottom));
const atOncePerCall = (m: Measured): number => m.atOnce.atBottom / m.atOnce.calls;
const slowest = (runs: readonly ChainRun[]): number =>
  Math.max(...runs.flatMap((run) => run.outcomes.map((outcome) => outcome.durationMs)));

async function measure(bottom: BottomMode, handlers: HandlerStyle): Promise<Measured[]> {
  const measured: Measured[] = [];
  for (const { mode, name } of CONTESTANTS) {
    const spec: ChainSpec = {
      mode,
      bottom,
      handlers,
      layers: LAYERS.layers,
      clientOptions: { baseDelayMs: LAYERS.baseDelayMs },
    };
    const alone: ChainRun[] = [];
    for (let call = 0; call < LAYERS.aloneCalls; call += 1) alone.push(await runChain(spec, 1));
    measured.push({ name, mode, alone, atOnce: await runChain(spec, LAYERS.atOnceCalls) });
  }
  return measured;
}

function tableOf(label: string, measured: readonly Measured[]): Table {
  const helper = measured.find((m) => m.mode === 'helper') as Measured;
  return {
    title: `Calls through ${LAYERS.layers} services, ${label}: requests at the bottom per top call`,
    columns: [
      'contestant',
      `one call alone (mean of ${LAYERS.aloneCalls})`,
      '÷ with retryLayer',
      `${LAYERS.atOnceCalls} calls at once`,
      '÷ with retryLayer',
      'at L1 / L2 / L3 per call (alone)',
      'slowest top call',
    ],
    rows: measured.map((m) => [
      m.name,
      fixed(alonePerCall(m), 1),
      ratio(alonePerCall(m), alonePerCall(helper)),
      fixed(atOncePerCall(m), 1),
      ratio(atOncePerCall(m), atOncePerCall(helper)),
      [0, 1, 2]
        .slice(0, LAYERS.layers)
        .map((layer) => fixed(mean(m.alone.map((run) => run.perLayer[layer] ?? 0)), 1))
        .join(' / '),
      millis(slowest([...m.alone, m.atOnce])),
    ]),
  };
}

function targetsOf(
  bottom: BottomMode,
  label: string,
  measured: readonly Measured[],
): TargetCheck[] {
  const helper = measured.find((m) => m.mode === 'helper') as Measured;
  const mostAtOnce = helper.atOnce.mostAtBottomPerCall;
  const stops = [...new Set(helper.atOnce.outcomes.map((o) => o.stopReason ?? 'ok'))].join(', ');
  return [
    {
      target: `${label}, retryLayer at every layer: ≤ ${LAYERS.maxPerTopCall} requests at the bottom per top call`,
      met: aloneMost(helper) <= LAYERS.maxPerTopCall && mostAtOnce <= LAYERS.maxPerTopCall,
      measured: `alone: at most ${aloneMost(helper)}; ${LAYERS.atOnceCalls} at once: ${fixed(atOncePerCall(helper), 1)} per call${bottom === 'refused' ? '' : `, at most ${fixed(mostAtOnce, 0)} for one call`} (top calls stopped: ${stops})`,
    },
    ...measured
      .filter((m) => m.mode !== 'helper')
      .map((m) => ({
        target: `${label}, ${m.name}: requests at the bottom for one top call alone`,
        met: undefined,
        measured: `${fixed(alonePerCall(m), 1)} (${ratio(alonePerCall(m), alonePerCall(helper))} the figure with retryLayer)`,
      })),
  ];
}

export async function throughLayers(): Promise<ScenarioReport> {
  const startedAt = performance.now();
  // Nothing here reads a stack; under ts-node each of axios-retry's thousands of AxiosErrors
  // would otherwise be source-mapped.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  const tables: Table[] = [];
  const targets: TargetCheck[] = [];
  try {
    for (const style of STYLES) {
      for (const { bottom, label } of BOTTOMS) {
        const measured = await measure(bottom, style.handlers);
        tables.push(tableOf(`${label}, ${style.label}`, measured));
        targets.push(...targetsOf(bottom, `${label}, ${style.label}`, measured));
      }
    }
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
  return {
    title: 'Calls through several services (real time, loopback)',
    setup: [
      `REAL time, not virtual: real express services on 127.0.0.1, top → L1 → L2 → L3 → bottom (${LAYERS.layers} layers), each layer calling the next with its own axios instance. The bottom answers 503 to everything, or refuses connections (nothing listens on its port).`,
      `Contestants, the same client at the top and in every layer: axios-retry 4.5 \`{ retries: 3 }\` (its defaults otherwise: no delay); axios-safe-retry \`attachRetry\` defaults but \`baseDelayMs: ${LAYERS.baseDelayMs}\` (lowered from 100 so that nested retries take milliseconds), without the server helper; the same with \`retryLayer()\` in every layer. Handlers of two kinds: ones that catch the failure of their call and answer 502 themselves (what most handlers do; the layer has \`app.use(retryLayer())\` and nothing else), and ones that pass it to \`next(error)\` (with \`retryLayer.errorHandler()\`, then a handler that answers 503).`,
      `"One call alone": ${LAYERS.aloneCalls} top calls, each through a fresh chain (fresh budgets and breakers): what retries multiply to. "${LAYERS.atOnceCalls} calls at once": one chain; the breakers and budgets also cut. Requests at the bottom = attempts L3 sent to it, refused connections included.`,
      `Issue 16's target: with retryLayer, ≤ ${LAYERS.maxPerTopCall} requests at the bottom per top call (only L3 retries). Small and real-time, so figures can move a little from run to run.`,
    ],
    tables,
    targets,
    charts: [],
    realSeconds: (performance.now() - startedAt) / 1000,
  };
}
