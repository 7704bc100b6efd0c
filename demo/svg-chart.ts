import { escapeXml, niceStep } from '../support/svg';

/** A hand-written SVG chart of requests per time bucket: one panel per run, on shared axes. */

export interface TimelinePanel {
  readonly title: string;
  /** When each request reached the server, in ms since the panel's time zero. Drawn as bars. */
  readonly arrivalsMs: readonly number[];
  /** When each attempt left the client (refused ones too), in ms since time zero. Drawn as a line. */
  readonly attemptsMs: readonly number[];
  /** The span during which the server refused connections, in ms since time zero. */
  readonly downMs: readonly [number, number];
}

export interface TimelineChart {
  readonly title: string;
  readonly bucketMs: number;
  readonly panels: readonly TimelinePanel[];
}

const width = 960;
const panelHeight = 230;
const margin = { left: 56, right: 16, top: 84, panelGap: 64, bottom: 40 };
const colours = {
  arrivals: '#2563eb',
  attempts: '#ea580c',
  down: '#fee2e2',
  axis: '#374151',
  grid: '#e5e7eb',
};

/** How many of `times` fall in each bucket `[i * bucketMs, (i + 1) * bucketMs)`; negative times are left out. */
export function countPerBucket(
  times: readonly number[],
  bucketMs: number,
  buckets: number,
): number[] {
  const counts = new Array<number>(buckets).fill(0);
  for (const time of times) {
    const index = Math.floor(time / bucketMs);
    if (index >= 0 && index < buckets) counts[index] = (counts[index] ?? 0) + 1;
  }
  return counts;
}

export function renderTimelineChart(chart: TimelineChart): string {
  const lastMs = Math.max(
    1,
    ...chart.panels.flatMap((panel) => [...panel.arrivalsMs, ...panel.attemptsMs]),
  );
  const buckets = Math.ceil(lastMs / chart.bucketMs) + 1;
  const series = chart.panels.map((panel) => ({
    panel,
    arrivals: countPerBucket(panel.arrivalsMs, chart.bucketMs, buckets),
    attempts: countPerBucket(panel.attemptsMs, chart.bucketMs, buckets),
  }));
  const highest = Math.max(1, ...series.flatMap((s) => [...s.arrivals, ...s.attempts]));
  const yStep = niceStep(highest / 5, 1);
  const yMax = Math.ceil(highest / yStep) * yStep;
  const plotWidth = width - margin.left - margin.right;
  const height =
    margin.top +
    chart.panels.length * panelHeight +
    (chart.panels.length - 1) * margin.panelGap +
    margin.bottom;
  const x = (ms: number): number => margin.left + (ms / (buckets * chart.bucketMs)) * plotWidth;
  const barWidth = plotWidth / buckets;

  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${margin.left}" y="24" font-size="16" font-weight="bold">${escapeXml(chart.title)}</text>`,
    legend(margin.left, 48, chart.bucketMs),
  ];
  series.forEach(({ panel, arrivals, attempts }, index) => {
    const top = margin.top + index * (panelHeight + margin.panelGap);
    const bottom = top + panelHeight;
    const y = (count: number): number => bottom - (count / yMax) * panelHeight;
    parts.push(
      `<text x="${margin.left}" y="${top - 8}" font-weight="bold">${escapeXml(panel.title)}</text>`,
    );
    parts.push(
      `<rect x="${f(x(panel.downMs[0]))}" y="${top}" width="${f(x(panel.downMs[1]) - x(panel.downMs[0]))}" height="${panelHeight}" fill="${colours.down}"/>`,
      `<text x="${f(x(panel.downMs[0]) + 4)}" y="${top + 14}" fill="#b91c1c">server down: connections refused</text>`,
    );
    for (let tick = 0; tick <= yMax; tick += yStep) {
      parts.push(
        `<line x1="${margin.left}" x2="${width - margin.right}" y1="${f(y(tick))}" y2="${f(y(tick))}" stroke="${colours.grid}"/>`,
        `<text x="${margin.left - 6}" y="${f(y(tick) + 4)}" text-anchor="end">${tick}</text>`,
      );
    }
    arrivals.forEach((count, bucket) => {
      if (count === 0) return;
      parts.push(
        `<rect x="${f(x(bucket * chart.bucketMs))}" y="${f(y(count))}" width="${f(Math.max(1, barWidth - 1))}" height="${f(bottom - y(count))}" fill="${colours.arrivals}"><title>${count} arrivals at ${bucket * chart.bucketMs}–${(bucket + 1) * chart.bucketMs} ms</title></rect>`,
      );
    });
    const steps = attempts.map(
      (count, bucket) =>
        `${f(x(bucket * chart.bucketMs))},${f(y(count))} ${f(x((bucket + 1) * chart.bucketMs))},${f(y(count))}`,
    );
    parts.push(
      `<polyline points="${steps.join(' ')}" fill="none" stroke="${colours.attempts}" stroke-width="1.5"/>`,
    );
    parts.push(
      `<line x1="${margin.left}" x2="${width - margin.right}" y1="${bottom}" y2="${bottom}" stroke="${colours.axis}"/>`,
    );
    for (let second = 0; second * 1000 <= buckets * chart.bucketMs; second += 1) {
      parts.push(
        `<line x1="${f(x(second * 1000))}" x2="${f(x(second * 1000))}" y1="${bottom}" y2="${bottom + 4}" stroke="${colours.axis}"/>`,
        `<text x="${f(x(second * 1000))}" y="${bottom + 16}" text-anchor="middle">${second} s</text>`,
      );
    }
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

function legend(left: number, baseline: number, bucketMs: number): string {
  return [
    `<rect x="${left}" y="${baseline - 9}" width="12" height="10" fill="${colours.arrivals}"/>`,
    `<text x="${left + 18}" y="${baseline}">requests that reached the server, per ${bucketMs} ms</text>`,
    `<line x1="${left + 330}" x2="${left + 352}" y1="${baseline - 4}" y2="${baseline - 4}" stroke="${colours.attempts}" stroke-width="1.5"/>`,
    `<text x="${left + 358}" y="${baseline}">attempts sent by the clients, refused ones included</text>`,
  ].join('\n');
}

function f(value: number): string {
  return value.toFixed(1);
}
