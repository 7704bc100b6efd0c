// A Go-style duration, as OpenAI writes its quotas' resets: `1s`, `6m0s`, `20ms`, `1h2m3.5s`.

const UNIT_MS: Record<string, number> = {
  h: 36e5,
  m: 6e4,
  s: 1e3,
  ms: 1,
  us: 1e-3,
  µs: 1e-3,
  ns: 1e-6,
};

/**
 * Parses a duration (numbers, each with its unit: `1h2m3.5s`, `20ms`) to milliseconds;
 * `undefined` when the text is not one. It is not bounded here: `1000000h` is read as it is.
 */
export function parseDuration(text: string): number | undefined {
  let ms = 0;
  const value = text.trim();
  // Each part is summed as it is taken out: a duration leaves nothing behind.
  const rest = value.replace(/(\d+(?:\.\d+)?)(ms|us|µs|ns|[hms])/g, (_, amount, unit) => {
    ms += Number(amount) * (UNIT_MS[unit] as number);
    return '';
  });
  return value && !rest ? ms : undefined;
}
