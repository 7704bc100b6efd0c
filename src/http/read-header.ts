// Headers are read from axios's headers or a plain object, by name in any case; a header is set
// unless it is `undefined`, `null` or `false`, and of two spellings of one name the first set wins.

/**
 * Reads one header, as a string. A scan: the success path reads one header on every call, and
 * builds no object of them all.
 */
export function readHeader(headers: unknown, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(headers ?? {})) {
    if (value != null && value !== false && key.toLowerCase() === lower) return String(value);
  }
}
