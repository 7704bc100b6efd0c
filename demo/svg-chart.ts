import { escapeXml, niceStep } from '../support/svg';

/** A hand-written SVG chart of requests per time bucket: one panel per run, on shared axes. */

export interface TimelinePanel {
  readonly title: string;
  /** When each request reached the server, in ms since the panel's time zero. Drawn as bars. */
  readonly arrivalsMs: readonly number[];
  /**
   * The arrivals the server turned away (a 429, a 503), a subset of `arrivalsMs`: drawn in red at
   * the foot of their bars.
   */
  readonly rejectedMs?: readonly number[];
  /** When each attempt left the client (refused ones too), in ms since time zero. Drawn as a line. */
  readonly attemptsMs?: readonly number[];
  /** Spans shaded behind the bars (the server down, a breaker open), in ms since time zero. */
  readonly spans?: readonly Span[];
  /** A horizontal line at this many requests per bucket (the server's limit). */
  readonly limitPerBucket?: number;
  /** Short notes drawn at the top of the panel at their time (a breaker event). */
  readonly marks?: readonly Mark[];
}

export interface Span {
  readonly fromMs: number;
  readonly toMs: number;
  readonly label: string;
  /** A label at the span's end (`server back`), drawn at its edge. */
  readonly endLabel?: string;
  /** `down`: red (the server cannot serve); `held`: amber (the client holds its calls). */
  readonly kind: 'down' | 'held';
}

export interface Mark {
  readonly atMs: number;
  readonly label: string;
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
  rejected: '#dc2626',
  attempts: '#ea580c',
  limit: '#16a34a',
  down: '#fee2e2',
  downText: '#b91c1c',
  held: '#fef3c7',
  heldText: '#92400e',
  mark: '#6b7280',
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
    ...chart.panels.flatMap((panel) => [...panel.arrivalsMs, ...(panel.attemptsMs ?? [])]),
  );
  const buckets = Math.ceil(lastMs / chart.bucketMs) + (chart.bucketMs >= 1000 ? 0 : 1);
  const series = chart.panels.map((panel) => ({
    panel,
    arrivals: countPerBucket(panel.arrivalsMs, chart.bucketMs, buckets),
    rejected: countPerBucket(panel.rejectedMs ?? [], chart.bucketMs, buckets),
    attempts: panel.attemptsMs && countPerBucket(panel.attemptsMs, chart.bucketMs, buckets),
  }));
  const highest = Math.max(
    1,
    ...series.flatMap((s) => [
      ...s.arrivals,
      ...(s.attempts ?? []),
      (s.panel.limitPerBucket ?? 0) * 1.1,
    ]),
  );
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
    legend(margin.left, 48, chart),
  ];
  series.forEach(({ panel, arrivals, rejected, attempts }, index) => {
    const top = margin.top + index * (panelHeight + margin.panelGap);
    const bottom = top + panelHeight;
    const y = (count: number): number => bottom - (count / yMax) * panelHeight;
    parts.push(
      `<text x="${margin.left}" y="${top - 8}" font-weight="bold">${escapeXml(panel.title)}</text>`,
    );
    const spanLines = drawSpans(parts, panel.spans ?? [], { x, top, bottom });
    const marksTop = top + spanLines * 14 + 6;
    for (let tick = 0; tick <= yMax; tick += yStep) {
      parts.push(
        `<line x1="${margin.left}" x2="${width - margin.right}" y1="${f(y(tick))}" y2="${f(y(tick))}" stroke="${colours.grid}"/>`,
        `<text x="${margin.left - 6}" y="${f(y(tick) + 4)}" text-anchor="end">${tick}</text>`,
      );
    }
    // Labels that would overlap (marks at the same x, or close) go on the next line down.
    // They are drawn last, over the bars, with a white halo.
    const lineEnds: number[] = [];
    const markLabels: string[] = [];
    for (const mark of panel.marks ?? []) {
      const at = x(mark.atMs);
      const line = lineFor(lineEnds, at + 3, labelWidth(mark.label) + 4);
      parts.push(
        `<line x1="${f(at)}" x2="${f(at)}" y1="${marksTop}" y2="${bottom}" stroke="${colours.mark}" stroke-dasharray="2 3"/>`,
      );
      markLabels.push(
        `<text x="${f(at + 3)}" y="${marksTop + 10 + line * 11}" fill="${colours.mark}" font-size="10"${halo}>${escapeXml(mark.label)}</text>`,
      );
    }
    const span = (bucket: number): string =>
      `${bucket * chart.bucketMs}–${(bucket + 1) * chart.bucketMs} ms`;
    arrivals.forEach((count, bucket) => {
      if (count === 0) return;
      const turnedAway = rejected[bucket] ?? 0;
      parts.push(
        `<rect x="${f(x(bucket * chart.bucketMs))}" y="${f(y(count))}" width="${f(Math.max(1, barWidth - 1))}" height="${f(bottom - y(count))}" fill="${colours.arrivals}"><title>${count} arrivals at ${span(bucket)}</title></rect>`,
      );
      if (turnedAway > 0) {
        parts.push(
          `<rect x="${f(x(bucket * chart.bucketMs))}" y="${f(y(turnedAway))}" width="${f(Math.max(1, barWidth - 1))}" height="${f(bottom - y(turnedAway))}" fill="${colours.rejected}"><title>${turnedAway} turned away at ${span(bucket)}</title></rect>`,
        );
      }
    });
    if (panel.limitPerBucket !== undefined) {
      const at = f(y(panel.limitPerBucket));
      parts.push(
        `<line x1="${margin.left}" x2="${width - margin.right}" y1="${at}" y2="${at}" stroke="${colours.limit}" stroke-width="1.5" stroke-dasharray="6 4"/>`,
        `<text x="${width - margin.right - 4}" y="${f(y(panel.limitPerBucket) - 4)}" text-anchor="end" fill="${colours.limit}">server limit: ${panel.limitPerBucket} per ${chart.bucketMs} ms</text>`,
      );
    }
    if (attempts) {
      const steps = attempts.map(
        (count, bucket) =>
          `${f(x(bucket * chart.bucketMs))},${f(y(count))} ${f(x((bucket + 1) * chart.bucketMs))},${f(y(count))}`,
      );
      parts.push(
        `<polyline points="${steps.join(' ')}" fill="none" stroke="${colours.attempts}" stroke-width="1.5"/>`,
      );
    }
    parts.push(
      `<line x1="${margin.left}" x2="${width - margin.right}" y1="${bottom}" y2="${bottom}" stroke="${colours.axis}"/>`,
      ...spanLabels(panel.spans ?? [], { x, top, bottom }).map((label) => label.svg),
      ...markLabels,
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

interface PanelFrame {
  readonly x: (ms: number) => number;
  readonly top: number;
  readonly bottom: number;
}

/**
 * The spans' shading, behind the bars: the client's holds first, then the server's outages over
 * them, translucent and edged in red, so that an outage's end shows through a hold. Returns how
 * many lines the spans' labels take at the top of the panel.
 */
function drawSpans(parts: string[], spans: readonly Span[], frame: PanelFrame): number {
  const { x, top, bottom } = frame;
  const ordered = [
    ...spans.filter((s) => s.kind === 'held'),
    ...spans.filter((s) => s.kind === 'down'),
  ];
  for (const span of ordered) {
    const [from, to] = [x(span.fromMs), x(span.toMs)];
    const rect = `<rect x="${f(from)}" y="${top}" width="${f(Math.max(0, to - from))}" height="${bottom - top}"`;
    if (span.kind === 'held') {
      parts.push(`${rect} fill="${colours.held}"/>`);
      continue;
    }
    parts.push(`${rect} fill="${colours.down}" fill-opacity="0.75"/>`);
    for (const edge of [from, to]) {
      parts.push(
        `<line x1="${f(edge)}" x2="${f(edge)}" y1="${top}" y2="${bottom}" stroke="${colours.downText}" stroke-width="1.5"/>`,
      );
    }
  }
  return Math.max(0, ...spanLabels(spans, frame).map((label) => label.line + 1));
}

/**
 * The spans' labels (and an outage's end label), drawn last so that nothing covers them, each on
 * the first line at the top of the panel where it overlaps no other.
 */
function spanLabels(
  spans: readonly Span[],
  { x, top }: PanelFrame,
): { readonly line: number; readonly svg: string }[] {
  const texts = spans.flatMap((span) => {
    const colour = span.kind === 'down' ? colours.downText : colours.heldText;
    const start = { at: x(span.fromMs) + 4, text: span.label, colour };
    const end = { at: x(span.toMs) + 4, text: span.endLabel ?? '', colour };
    return [start, end].filter((t) => t.text !== '');
  });
  texts.sort((a, b) => a.at - b.at);
  const lineEnds: number[] = [];
  return texts.map(({ at: wanted, text, colour }) => {
    // A label that would run past the plot's right edge ends at it.
    const at = Math.min(wanted, width - margin.right - textWidth(text, 12));
    const line = lineFor(lineEnds, at, textWidth(text, 12) + 6);
    return {
      line,
      svg: `<text x="${f(at)}" y="${top + 14 + line * 14}" fill="${colour}"${halo}>${escapeXml(text)}</text>`,
    };
  });
}

/** The first line whose last label ends before `at`; it then ends at `at + extent`. */
function lineFor(lineEnds: number[], at: number, extent: number): number {
  let line = lineEnds.findIndex((end) => at >= end);
  if (line < 0) line = lineEnds.length;
  lineEnds[line] = at + extent;
  return line;
}

/** About how wide a text draws at `fontSize` (px), in px: a generous average glyph width. */
export function textWidth(text: string, fontSize: number, bold = false): number {
  return text.length * fontSize * (bold ? 0.62 : 0.56);
}

/** One entry per kind of mark the chart's panels use. */
function legend(left: number, baseline: number, chart: TimelineChart): string {
  const entries: { swatch: string; text: string }[] = [
    {
      swatch: `<rect x="0" y="-9" width="12" height="10" fill="${colours.arrivals}"/>`,
      text: `requests that reached the server, per ${chart.bucketMs} ms`,
    },
  ];
  const uses = (has: (panel: TimelinePanel) => boolean): boolean => chart.panels.some(has);
  if (uses((panel) => (panel.rejectedMs?.length ?? 0) > 0)) {
    entries.push({
      swatch: `<rect x="0" y="-9" width="12" height="10" fill="${colours.rejected}"/>`,
      text: 'of which turned away',
    });
  }
  if (uses((panel) => panel.attemptsMs !== undefined)) {
    entries.push({
      swatch: `<line x1="0" x2="22" y1="-4" y2="-4" stroke="${colours.attempts}" stroke-width="1.5"/>`,
      text: 'attempts the clients sent, refused ones included',
    });
  }
  let offset = 0;
  return entries
    .map(({ swatch, text }) => {
      const at = left + offset;
      offset += 40 + text.length * 6.2;
      return `<g transform="translate(${f(at)} ${baseline})">${swatch}<text x="28" y="0">${escapeXml(text)}</text></g>`;
    })
    .join('\n');
}

/** About how wide a mark's label draws at font size 10, in px. */
export function labelWidth(label: string): number {
  return textWidth(label, 10);
}

/** A white outline under a label's glyphs, so that it reads over bars and shading. */
const halo = ' stroke="#ffffff" stroke-width="3" paint-order="stroke"';

function f(value: number): string {
  return value.toFixed(1);
}

/** A grouped bar chart: one group per category (a layer), one bar per series (a run). */
export interface BarChart {
  readonly title: string;
  /** What a bar counts, for the legend and the y axis. */
  readonly unit: string;
  readonly categories: readonly string[];
  readonly series: readonly { readonly name: string; readonly values: readonly number[] }[];
}

const barColours = ['#dc2626', '#2563eb', '#16a34a', '#ea580c'];

export function renderBarChart(chart: BarChart): string {
  const height = 360;
  const top = 84;
  const bottom = height - 48;
  const plotWidth = width - margin.left - margin.right;
  const highest = Math.max(1, ...chart.series.flatMap((s) => s.values));
  const yStep = niceStep(highest / 5, 1);
  const yMax = Math.ceil(highest / yStep) * yStep;
  const y = (value: number): number => bottom - (value / yMax) * (bottom - top);
  const groupWidth = plotWidth / Math.max(1, chart.categories.length);
  const barWidth = (groupWidth * 0.7) / Math.max(1, chart.series.length);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${margin.left}" y="24" font-size="16" font-weight="bold">${escapeXml(chart.title)}</text>`,
  ];
  let offset = 0;
  chart.series.forEach((s, index) => {
    const text = `${s.name}`;
    parts.push(
      `<g transform="translate(${f(margin.left + offset)} 48)"><rect x="0" y="-9" width="12" height="10" fill="${barColours[index % barColours.length]}"/><text x="18" y="0">${escapeXml(text)}</text></g>`,
    );
    offset += 40 + text.length * 6.2;
  });
  for (let tick = 0; tick <= yMax; tick += yStep) {
    parts.push(
      `<line x1="${margin.left}" x2="${width - margin.right}" y1="${f(y(tick))}" y2="${f(y(tick))}" stroke="${colours.grid}"/>`,
      `<text x="${margin.left - 6}" y="${f(y(tick) + 4)}" text-anchor="end">${tick}</text>`,
    );
  }
  parts.push(
    `<text x="14" y="${f((top + bottom) / 2)}" transform="rotate(-90 14 ${f((top + bottom) / 2)})" text-anchor="middle">${escapeXml(chart.unit)}</text>`,
  );
  chart.categories.forEach((category, group) => {
    const left = margin.left + group * groupWidth + groupWidth * 0.15;
    chart.series.forEach((s, index) => {
      const value = s.values[group] ?? 0;
      const x = left + index * barWidth;
      parts.push(
        `<rect x="${f(x)}" y="${f(y(value))}" width="${f(Math.max(1, barWidth - 2))}" height="${f(bottom - y(value))}" fill="${barColours[index % barColours.length]}"><title>${escapeXml(`${s.name}: ${value} at ${category}`)}</title></rect>`,
        `<text x="${f(x + barWidth / 2)}" y="${f(y(value) - 4)}" text-anchor="middle">${value}</text>`,
      );
    });
    parts.push(
      `<text x="${f(margin.left + (group + 0.5) * groupWidth)}" y="${bottom + 18}" text-anchor="middle">${escapeXml(category)}</text>`,
    );
  });
  parts.push(
    `<line x1="${margin.left}" x2="${width - margin.right}" y1="${bottom}" y2="${bottom}" stroke="${colours.axis}"/>`,
    '</svg>',
  );
  return `${parts.join('\n')}\n`;
}
