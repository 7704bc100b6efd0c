/**
 * Reads a header in any case, from axios's headers or a plain object: the first spelling set
 * (not `undefined`, `null` or `false`), as a string. A scan: the success path reads one header
 * on every call, and builds no object of them all.
 */
export function readHeader(headers: unknown, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(headers ?? {})) {
    if (value != null && value !== false && key.toLowerCase() === lower) return String(value);
  }
}
