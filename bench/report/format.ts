/** Number formatting shared by every table, so the same quantity always reads the same way. */

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}

export function millis(ms: number): string {
  return `${Math.round(ms)} ms`;
}

export function ratio(value: number, reference: number): string {
  if (reference === 0) return value === 0 ? '1.00×' : '∞';
  return `${(value / reference).toFixed(2)}×`;
}

export function fixed(value: number, digits = 2): string {
  return value.toFixed(digits);
}

export function integer(value: number): string {
  return String(Math.round(value));
}

/** 0.9912 → "99.12%" (`digits` after the point). */
export function percent(share: number, digits = 2): string {
  return `${(share * 100).toFixed(digits)}%`;
}
