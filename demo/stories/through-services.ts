import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { type ChainMode, type ChainRun, runChain } from '../../support/layer-chain';
import { cyan, detail, dim } from '../log';
import type { Story } from '../story';
import { renderBarChart } from '../svg-chart';

const layers = 3;
/** Top calls per run, each through a fresh chain: what the retries multiply to, before any breaker learns. */
const calls = 3;
/** Every attachRetry of the chain: nested retries take milliseconds instead of seconds. */
const baseDelayMs = 10;
const maxAtBottom = 4;
const chartPath = join(__dirname, '..', 'output', 'layers.svg');

async function runMode(mode: ChainMode): Promise<ChainRun[]> {
  const runs: ChainRun[] = [];
  for (let call = 0; call < calls; call += 1) {
    runs.push(
      await runChain(
        { mode, bottom: 'always-503', handlers: 'catch', layers, clientOptions: { baseDelayMs } },
        1,
      ),
    );
  }
  return runs;
}

/** Requests per layer over all runs: L1 … Ln, then the bottom. */
function perLayer(runs: readonly ChainRun[]): number[] {
  return Array.from({ length: layers + 1 }, (_, layer) =>
    runs.reduce(
      (sum, run) => sum + (layer < layers ? (run.perLayer[layer] ?? 0) : run.atBottom),
      0,
    ),
  );
}

function line(label: string, counts: readonly number[]): string {
  const names = [...Array.from({ length: layers }, (_, i) => `L${i + 1}`), 'bottom'];
  return `${dim(label)} ${counts.map((n, i) => `${names[i]} ${n}`).join(' · ')}`;
}

export const throughServices: Story = {
  title: 'Calls through several services',
  setting: `top → L1 → L2 → L3 → bottom, real express services whose handlers catch the failure of their call and answer 502 themselves, as most do; the bottom answers 503 to everything; ${calls} top calls, each through a fresh chain, without and with app.use(retryLayer()) in every layer, and nothing else (attachRetry everywhere, the top included, with only baseDelayMs ${baseDelayMs})`,
  async run(report) {
    const without = await runMode('plain');
    const withHelper = await runMode('helper');
    const withoutCounts = perLayer(without);
    const withCounts = perLayer(withHelper);
    detail(line('without retryLayer, requests per layer:', withoutCounts));
    detail(line('with retryLayer,    requests per layer:', withCounts));
    const stops = [...new Set(withHelper.flatMap((run) => run.outcomes.map((o) => o.stopReason)))];
    detail(dim(`with retryLayer, the top calls stopped with: ${stops.join(', ')}`));

    const mostWith = Math.max(...withHelper.map((run) => run.atBottom));
    report.check(
      mostWith <= maxAtBottom,
      `with retryLayer, the bottom gets at most ${maxAtBottom} requests per top call (at most ${mostWith})`,
    );
    report.check(
      withHelper.every((run) => run.perLayer.every((count) => count === 1)),
      `with retryLayer, only L${layers} retries: every layer gets each top call once (${withCounts.slice(0, layers).join(', ')} for ${calls} calls)`,
    );
    report.check(
      withHelper.every((run) =>
        run.outcomes.every((o) => !o.ok && o.stopReason === 'upstream-gave-up'),
      ),
      "with retryLayer, each top call fails fast with 'upstream-gave-up' instead of retrying",
    );
    const atBottomWithout = withoutCounts[layers] ?? 0;
    const atBottomWith = withCounts[layers] ?? 0;
    report.check(
      atBottomWithout > atBottomWith,
      `without it, more: the bottom gets ${atBottomWithout} requests for ${calls} top calls, against ${atBottomWith} with it`,
    );
    report.check(
      (withoutCounts[0] ?? 0) > calls,
      `without it, the layers above retry too: L1 gets ${withoutCounts[0]} requests for ${calls} top calls`,
    );

    await mkdir(join(chartPath, '..'), { recursive: true });
    await writeFile(
      chartPath,
      renderBarChart({
        title: `Calls through ${layers} services, the bottom answering 503: requests per layer for ${calls} top calls`,
        unit: 'requests received',
        categories: [...Array.from({ length: layers }, (_, i) => `L${i + 1}`), 'bottom'],
        series: [
          { name: 'attachRetry everywhere, no retryLayer', values: withoutCounts },
          { name: 'attachRetry + retryLayer() in every layer', values: withCounts },
        ],
      }),
    );
    detail(`chart of requests per layer: ${cyan(relative(process.cwd(), chartPath) || chartPath)}`);
  },
};
