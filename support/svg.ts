// Small pieces shared by the hand-written SVG charts of the demo and of the benchmarks.

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The smallest 1, 2 or 5 × 10^k that is at least `raw` (and at least `minimum`): a round gridline step. */
export function niceStep(raw: number, minimum = 0): number {
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((candidate) => candidate >= raw);
  return Math.max(minimum, step ?? 10 * magnitude);
}
