import { escapeXml, niceStep } from '../../support/svg';

/** Arrivals at the server over time, one panel per contestant, as a hand-written SVG. */
export interface ArrivalChart {
  /** File name under bench/charts/. */
  readonly file: string;
  readonly title: string;
  readonly binMs: number;
  readonly series: readonly { readonly name: string; readonly bins: readonly number[] }[];
  /** A shaded interval, e.g. an outage. */
  readonly shade?: { readonly fromMs: number; readonly toMs: number; readonly label: string };
  /** A dashed horizontal reference, e.g. the server's capacity per bin. */
  readonly reference?: { readonly value: number; readonly label: string };
  /** Cut the shared y axis here (a burst would flatten the rest); a cut bin is labelled. */
  readonly yCap?: number;
}

const WIDTH = 960;
const LEFT = 190;
const RIGHT = 20;
const TOP = 40;
const PANEL_HEIGHT = 70;
const PANEL_GAP = 14;
const AXIS_HEIGHT = 34;

export function renderArrivalChart(chart: ArrivalChart): string {
  const binCount = Math.max(1, ...chart.series.map((series) => series.bins.length));
  const yMax =
    chart.yCap ??
    Math.max(1, chart.reference?.value ?? 0, ...chart.series.flatMap((series) => series.bins));
  const plotWidth = WIDTH - LEFT - RIGHT;
  const height = TOP + chart.series.length * (PANEL_HEIGHT + PANEL_GAP) + AXIS_HEIGHT;
  const x = (bin: number): number => LEFT + (bin / binCount) * plotWidth;
  const totalMs = binCount * chart.binMs;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${height}" fill="#fff"/>`,
    `<text x="${LEFT}" y="22" font-size="15" font-weight="600">${escapeXml(chart.title)}</text>`,
  ];

  chart.series.forEach((series, index) => {
    const top = TOP + index * (PANEL_HEIGHT + PANEL_GAP);
    const y = (value: number): number =>
      top + PANEL_HEIGHT - (Math.min(value, yMax) / yMax) * PANEL_HEIGHT;
    parts.push(
      `<rect x="${LEFT}" y="${top}" width="${plotWidth}" height="${PANEL_HEIGHT}" fill="#f7f7f9" stroke="#ddd"/>`,
    );
    if (chart.shade) {
      const from = LEFT + (chart.shade.fromMs / totalMs) * plotWidth;
      const to = LEFT + (Math.min(chart.shade.toMs, totalMs) / totalMs) * plotWidth;
      parts.push(
        `<rect x="${from.toFixed(1)}" y="${top}" width="${(to - from).toFixed(1)}" height="${PANEL_HEIGHT}" fill="#fde2e2"/>`,
      );
    }
    if (chart.reference) {
      const ry = y(chart.reference.value).toFixed(1);
      parts.push(
        `<line x1="${LEFT}" x2="${LEFT + plotWidth}" y1="${ry}" y2="${ry}" stroke="#999" stroke-dasharray="4 3"/>`,
      );
    }
    const points: string[] = [`${LEFT},${top + PANEL_HEIGHT}`];
    series.bins.forEach((value, bin) => {
      points.push(
        `${x(bin).toFixed(1)},${y(value).toFixed(1)}`,
        `${x(bin + 1).toFixed(1)},${y(value).toFixed(1)}`,
      );
    });
    points.push(`${x(series.bins.length).toFixed(1)},${top + PANEL_HEIGHT}`);
    parts.push(
      `<polygon points="${points.join(' ')}" fill="#4f7cc4" fill-opacity="0.35" stroke="#2d5aa0" stroke-width="1"/>`,
    );
    let labelledUpTo = Number.NEGATIVE_INFINITY; // labels of neighbouring cut bins must not overlap
    series.bins.forEach((value, bin) => {
      if (value <= yMax || x(bin) < labelledUpTo) return;
      labelledUpTo = x(bin) + 6 * String(value).length + 6;
      parts.push(
        `<text x="${(x(bin) + 3).toFixed(1)}" y="${top + 24}" fill="#2d5aa0" font-size="10">${value}</text>`,
      );
    });
    parts.push(
      `<text x="${LEFT - 8}" y="${top + PANEL_HEIGHT / 2 + 4}" text-anchor="end">${escapeXml(series.name)}</text>`,
    );
    parts.push(`<text x="${LEFT + 4}" y="${top + 12}" fill="#666" font-size="10">${yMax}</text>`);
  });

  const axisY = TOP + chart.series.length * (PANEL_HEIGHT + PANEL_GAP);
  const stepMs = niceStep(totalMs / 10);
  for (let atMs = 0; atMs <= totalMs; atMs += stepMs) {
    const tx = (LEFT + (atMs / totalMs) * plotWidth).toFixed(1);
    parts.push(
      `<line x1="${tx}" x2="${tx}" y1="${axisY - PANEL_GAP}" y2="${axisY - PANEL_GAP + 5}" stroke="#333"/>`,
    );
    parts.push(`<text x="${tx}" y="${axisY + 6}" text-anchor="middle">${atMs / 1000} s</text>`);
  }
  const legend = [
    `arrivals at the server per ${chart.binMs} ms (panels share the y scale, 0–${yMax}${chart.yCap === undefined ? '' : ', taller bins cut and labelled'})`,
    chart.reference ? `dashed: ${chart.reference.label}` : '',
    chart.shade ? `shaded: ${chart.shade.label}` : '',
  ]
    .filter(Boolean)
    .join(' · ');
  parts.push(`<text x="${LEFT}" y="${axisY + 24}" fill="#444">${escapeXml(legend)}</text>`);
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
