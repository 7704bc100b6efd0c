/** Terminal output for the demo: plain text, with ANSI colours only on a TTY and when NO_COLOR is unset. */

const useColour = process.stdout.isTTY === true && (process.env.NO_COLOR ?? '') === '';

function paint(code: number): (text: string) => string {
  return (text) => (useColour ? `\u001b[${code}m${text}\u001b[0m` : text);
}

export const bold = paint(1);
export const dim = paint(2);
export const red = paint(31);
export const green = paint(32);
export const yellow = paint(33);
export const cyan = paint(36);

export function print(text = ''): void {
  process.stdout.write(`${text}\n`);
}

/** A line inside a story, indented under its heading. */
export function detail(text: string): void {
  print(`   ${text}`);
}

export function heading(number: number, title: string, setting: string): void {
  print();
  print(bold(`${number}. ${title}`));
  detail(dim(setting));
}

export function ms(value: number): string {
  return `${Math.round(value)} ms`;
}

export function seconds(valueMs: number): string {
  return `${(valueMs / 1000).toFixed(2)} s`;
}

/** `1 call`, `3 calls`. */
export function count(value: number, noun: string): string {
  return `${value} ${noun}${value === 1 ? '' : 's'}`;
}
