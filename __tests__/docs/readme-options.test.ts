import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  BREAKER_SCHEMA,
  BUDGET_SCHEMA,
  CLIENT_SCHEMA,
  DEFAULT_CIRCUIT_BREAKER,
  DEFAULT_IDEMPOTENCY_KEY,
  DEFAULT_OPTIONS,
  DEFAULT_PACING,
  DEFAULT_RETRY_BUDGET,
  KEY_SCHEMA,
  PACING_SCHEMA,
} from '../../src/options/options';

// The README's options table is the fourth place a default is written (after the schema, the
// TSDoc of types.ts and the exported DEFAULT_* objects derived from the schema): this test keeps
// it in step with the code.

interface Row {
  readonly type: string;
  readonly default: string;
  readonly description: string;
}

/** The rows of the table under `## Options`, by option name. */
function optionsTable(): Map<string, Row> {
  const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Options\n'));
  const lines = section.split('\n');
  const header = lines.findIndex((line) => /^\| Option \| Type \| Default \|/.test(line));
  expect(header).toBeGreaterThan(0);
  const rows = new Map<string, Row>();
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    // A cell may hold an escaped pipe (`boolean \| {…}`).
    const cells = line
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim().replace(/\\\|/g, '|'));
    const [name = '', type = '', fallback = '', description = ''] = cells;
    rows.set(name.replace(/`/g, ''), { type, default: fallback, description });
  }
  return rows;
}

/** A default as the README writes it, as a value: a JSON-like literal, or no default. */
function literalOf(cell: string): unknown {
  const text = cell.replace(/^`|`$/g, '');
  if (['—', 'none', 'undefined'].includes(text)) return undefined;
  if (text === 'Math.random') return Math.random;
  const json = text.replace(/'/g, '"').replace(/([{,]\s*)(\w+):/g, '$1"$2":');
  return JSON.parse(json);
}

/** The field names a type cell lists in braces (`{ ratio, minRetriesPerSecond } | false`). */
const fieldsOf = (type: string): string[] =>
  (/\{([^}]*)\}/.exec(type)?.[1] ?? '').split(',').map((name) => name.trim());

const GROUPS = {
  retryBudget: [BUDGET_SCHEMA, DEFAULT_RETRY_BUDGET],
  circuitBreaker: [BREAKER_SCHEMA, DEFAULT_CIRCUIT_BREAKER],
  pacing: [PACING_SCHEMA, DEFAULT_PACING],
} as const;

describe("README's options table", () => {
  const table = optionsTable();

  it('lists every option of the schema, and no other', () => {
    expect([...table.keys()].sort()).toEqual(Object.keys(CLIENT_SCHEMA).sort());
  });

  it.each(Object.keys(CLIENT_SCHEMA))('gives the default of `%s` that the code has', (name) => {
    const row = table.get(name);
    expect(row).toBeDefined();
    const written = literalOf((row as Row).default);
    const group = GROUPS[name as keyof typeof GROUPS];
    const inCode = group ? group[1] : (DEFAULT_OPTIONS as Readonly<Record<string, unknown>>)[name];
    if (typeof inCode === 'function') {
      // `random` defaults to a draw from Math.random.
      expect(written).toBe(Math.random);
      const spy = jest.spyOn(Math, 'random').mockReturnValue(0.25);
      try {
        expect(inCode()).toBe(0.25);
      } finally {
        spy.mockRestore();
      }
    } else {
      expect(written).toEqual(inCode);
    }
  });

  it.each(Object.keys(GROUPS))('lists every field of `%s`, and no other', (name) => {
    const [schema] = GROUPS[name as keyof typeof GROUPS];
    expect(fieldsOf((table.get(name) as Row).type)).toEqual(Object.keys(schema));
  });

  it('gives the idempotency key defaults that `true` stands for', () => {
    const row = table.get('idempotencyKey') as Row;
    expect(fieldsOf(row.type)).toEqual(Object.keys(KEY_SCHEMA));
    const meaning = /`true` = `(\{[^`]*\})`/.exec(row.description)?.[1] ?? '';
    const { header, methods } = literalOf(meaning.replace(/generate: uuid v4/, '"x": 0')) as {
      header: string;
      methods: string[];
    };
    expect({ header, methods }).toEqual({
      header: DEFAULT_IDEMPOTENCY_KEY.header,
      methods: DEFAULT_IDEMPOTENCY_KEY.methods,
    });
  });
});
