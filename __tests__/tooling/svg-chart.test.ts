// The demo's chart: the breaker's labels do not draw over each other.
import { labelWidth, renderTimelineChart, textWidth } from '../../demo/svg-chart';

/** Each mark label's x, y and text, as drawn. */
function labels(svg: string): { x: number; y: number; text: string }[] {
  return [
    ...svg.matchAll(/<text x="([\d.]+)" y="([\d.]+)" fill="#6b7280" font-size="10"[^>]*>([^<]*)</g),
  ].map((m) => ({ x: Number(m[1]), y: Number(m[2]), text: m[3] as string }));
}

function overlap(a: { x: number; y: number; text: string }, b: typeof a): boolean {
  return a.y === b.y && a.x < b.x + labelWidth(b.text) && b.x < a.x + labelWidth(a.text);
}

test('"open", "probe" and "closed" at the same x are drawn on separate lines', () => {
  const svg = renderTimelineChart({
    title: 't',
    bucketMs: 100,
    panels: [
      {
        title: 'p',
        arrivalsMs: [0, 5000],
        marks: [
          { atMs: 1000, label: 'open' },
          { atMs: 1000, label: 'probe' },
          { atMs: 1001, label: 'closed' },
          { atMs: 4000, label: 'open' },
        ],
      },
    ],
  });
  const drawn = labels(svg);
  expect(drawn.map((l) => l.text)).toEqual(['open', 'probe', 'closed', 'open']);
  for (const [i, a] of drawn.entries()) {
    for (const b of drawn.slice(i + 1)) expect(overlap(a, b)).toBe(false);
  }
  // A label with room on the first line stays there.
  expect(drawn[3]?.y).toBe(drawn[0]?.y);
});

/** The breaker story's chart: an outage, a breaker held open across its end, and its marks. */
const breakerChart = (): string =>
  renderTimelineChart({
    title: 'A dependency dies for 1.98 s: one call every 20 ms, through the circuit breaker',
    bucketMs: 100,
    panels: [
      {
        title:
          'package defaults: the breaker opens, probes once per break, and releases the waiting calls paced',
        arrivalsMs: [0, 500, 900, 3500, 4000, 5100],
        attemptsMs: [0, 500, 900, 1500, 2000, 3500, 4000, 5100],
        spans: [
          { fromMs: 2090, toMs: 3440, label: 'breaker open: calls held', kind: 'held' },
          {
            fromMs: 1020,
            toMs: 3000,
            label: 'server down: connections refused',
            endLabel: 'server back at 3.00 s',
            kind: 'down',
          },
          { fromMs: 5000, toMs: 5100, label: 'a label that would run past the edge', kind: 'held' },
        ],
        marks: [
          { atMs: 2090, label: 'open' },
          { atMs: 2540, label: 'probe' },
          { atMs: 2545, label: 'open' },
          { atMs: 3430, label: 'probe' },
          { atMs: 3440, label: 'closed' },
        ],
      },
    ],
  });

interface Box {
  readonly left: number;
  readonly right: number;
  readonly top: number;
  readonly bottom: number;
}

/** Each text's estimated box, and the index of the element it is, in drawing order. */
function textBoxes(svg: string): { text: string; box: Box; index: number }[] {
  const elements = svg.split('\n');
  return elements.flatMap((line, index) => {
    const m = /^<text x="([\d.]+)" y="([\d.]+)"([^>]*)>([^<]*)<\/text>$/.exec(line);
    if (!m) return [];
    const [x, y, attributes, text] = [Number(m[1]), Number(m[2]), m[3] as string, m[4] as string];
    const size = Number(/font-size="(\d+)"/.exec(attributes)?.[1] ?? 12);
    const extent = textWidth(text, size, attributes.includes('bold'));
    const anchor = /text-anchor="(\w+)"/.exec(attributes)?.[1] ?? 'start';
    const left = anchor === 'end' ? x - extent : anchor === 'middle' ? x - extent / 2 : x;
    return [
      {
        text,
        index,
        box: { left, right: left + extent, top: y - 0.8 * size, bottom: y + 0.25 * size },
      },
    ];
  });
}

const rects = (svg: string): { box: Box; index: number }[] =>
  svg.split('\n').flatMap((line, index) => {
    const m = /^<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"/.exec(line);
    if (!m) return [];
    const [x, y, w, h] = [1, 2, 3, 4].map((i) => Number(m[i]));
    return [{ index, box: { left: x!, right: x! + w!, top: y!, bottom: y! + h! } }];
  });

const intersects = (a: Box, b: Box): boolean =>
  a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

test('every label fits in the view box, and no shading or bar drawn later covers one', () => {
  const svg = breakerChart();
  const [, width, height] = (/viewBox="0 0 (\d+) (\d+)"/.exec(svg) ?? []).map(Number);
  const texts = textBoxes(svg);
  expect(texts.map((t) => t.text)).toEqual(
    expect.arrayContaining([
      'server down: connections refused',
      'breaker open: calls held',
      'server back at 3.00 s',
      'a label that would run past the edge',
    ]),
  );
  for (const { text, box, index } of texts) {
    expect({ text, inside: box.left >= 0 && box.right <= width! && box.top >= 0 }).toEqual({
      text,
      inside: true,
    });
    expect(box.bottom).toBeLessThanOrEqual(height!);
    const covering = rects(svg).filter((r) => r.index > index && intersects(r.box, box));
    expect({ text, covering }).toEqual({ text, covering: [] });
  }
});

test("labels on the shading's lines do not overlap one another", () => {
  const spanLabels = textBoxes(breakerChart()).filter((t) =>
    /server|breaker|past the edge/.test(t.text),
  );
  for (const [i, a] of spanLabels.entries()) {
    for (const b of spanLabels.slice(i + 1)) expect(intersects(a.box, b.box)).toBe(false);
  }
});

test("an outage's end shows through a hold that covers it: its edge is drawn over the hold", () => {
  const svg = breakerChart();
  const lines = svg.split('\n');
  const held = lines.findIndex((line) => line.includes('fill="#fef3c7"'));
  const end = (x: string) =>
    lines.findIndex((line) => line.startsWith(`<line x1="${x}"`) && line.includes('#b91c1c'));
  // 3000 ms of 5200 drawn over 888 px from x = 56.
  const at = (56 + (3000 / 5200) * 888).toFixed(1);
  expect(end(at)).toBeGreaterThan(held);
  expect(lines.find((line) => line.includes('server back at 3.00 s'))).toBeDefined();
});
