// The demo's chart: the breaker's labels do not draw over each other.
import { labelWidth, renderTimelineChart } from '../../demo/svg-chart';

/** Each mark label's x, y and text, as drawn. */
function labels(svg: string): { x: number; y: number; text: string }[] {
  return [
    ...svg.matchAll(/<text x="([\d.]+)" y="([\d.]+)" fill="#6b7280" font-size="10">([^<]*)</g),
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
