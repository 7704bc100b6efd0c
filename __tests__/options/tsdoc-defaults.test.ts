import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import {
  BREAKER_SCHEMA,
  BUDGET_SCHEMA,
  CLIENT_SCHEMA,
  DEFAULT_CIRCUIT_BREAKER,
  DEFAULT_PACING,
  DEFAULT_RETRY_BUDGET,
  KEY_SCHEMA,
  PACING_SCHEMA,
  REQUEST_SCHEMA,
} from '../../src/options/options';
import { type AnySchema, defaultsOf } from '../../src/options/rules';
import { REDIS_SCHEMA } from '../../src/redis/options';
import { LAYER_SCHEMA } from '../../src/server/layer-options';

// Issue 25, item 3: each option is declared once, in its schema (rule and default). The TSDoc
// `@default` line of each field of the public options types is held to it here, as the README's
// table is in readme-options.test.ts.

/** The fields of each interface of a source file, with the text of their `@default` tag. */
function defaultsInTsDoc(file: string): Map<string, Map<string, string | undefined>> {
  const path = join(__dirname, '..', '..', 'src', file);
  const source = ts.createSourceFile(
    path,
    readFileSync(path, 'utf8'),
    ts.ScriptTarget.Latest,
    true,
  );
  const interfaces = new Map<string, Map<string, string | undefined>>();
  for (const statement of source.statements) {
    if (!ts.isInterfaceDeclaration(statement)) continue;
    const fields = new Map<string, string | undefined>();
    for (const member of statement.members) {
      if (!ts.isPropertySignature(member) || !ts.isIdentifier(member.name)) continue;
      const tag = ts.getJSDocTags(member).find((t) => t.tagName.text === 'default');
      fields.set(member.name.text, tag && ts.getTextOfJSDocComment(tag.comment)?.trim());
    }
    interfaces.set(statement.name.text, fields);
  }
  return interfaces;
}

/** A `@default` text as a value: a literal, a name the code exports, or no default. */
function writtenValue(text: string | undefined): unknown {
  // What follows the value in parentheses is a comment: `1 (every attempt failed: …)`.
  const literal = text?.replace(/\s+\(.*\)$/s, '');
  const named: Record<string, unknown> = {
    undefined: undefined,
    'memoryStore()': undefined,
    DEFAULT_CIRCUIT_BREAKER,
    DEFAULT_PACING,
    'Math.random': 'a function',
    'uuid v4': 'a function',
  };
  if (literal === undefined || literal in named) return named[literal ?? 'undefined'];
  return JSON.parse(literal.replace(/'/g, '"').replace(/([{,]\s*)(\w+):/g, '$1"$2":'));
}

/** The schema's default of a field, as the TSDoc writes it (a function as `a function`). */
function schemaDefault(schema: AnySchema, field: string): unknown {
  const value = (defaultsOf(schema) as Record<string, unknown>)[field];
  return typeof value === 'function' ? 'a function' : value;
}

const GROUP_DEFAULTS: Record<string, unknown> = {
  retryBudget: DEFAULT_RETRY_BUDGET,
  circuitBreaker: DEFAULT_CIRCUIT_BREAKER,
  pacing: DEFAULT_PACING,
};

const contract = defaultsInTsDoc('contract/types.ts');
const cases: [string, Map<string, string | undefined> | undefined, AnySchema][] = [
  ['RequestRetryOptions', contract.get('RequestRetryOptions'), REQUEST_SCHEMA],
  [
    'RetryOptions (its own fields)',
    contract.get('RetryOptions'),
    Object.fromEntries(
      Object.entries(CLIENT_SCHEMA).filter(([name]) => !(name in REQUEST_SCHEMA)),
    ) as AnySchema,
  ],
  ['IdempotencyKeyOptions', contract.get('IdempotencyKeyOptions'), KEY_SCHEMA],
  ['RetryBudgetOptions', contract.get('RetryBudgetOptions'), BUDGET_SCHEMA],
  ['CircuitBreakerOptions', contract.get('CircuitBreakerOptions'), BREAKER_SCHEMA],
  ['PacingOptions', contract.get('PacingOptions'), PACING_SCHEMA],
  ['RetryLayerOptions', defaultsInTsDoc('server/index.ts').get('RetryLayerOptions'), LAYER_SCHEMA],
  ['RedisStoreOptions', defaultsInTsDoc('redis/index.ts').get('RedisStoreOptions'), REDIS_SCHEMA],
];

describe.each(cases)('the TSDoc of %s', (_name, fields, schema) => {
  it('declares the fields of the schema, and no other', () => {
    expect([...(fields?.keys() ?? [])].sort()).toEqual(Object.keys(schema).sort());
  });

  it.each(Object.keys(schema))('gives `%s` the default of the schema', (field) => {
    const written = writtenValue(fields?.get(field));
    const group = GROUP_DEFAULTS[field];
    expect(written).toEqual(group ?? schemaDefault(schema, field));
  });
});

it('reads every `@default` form used (a check of this test)', () => {
  expect(writtenValue("['POST', 'PATCH']")).toEqual(['POST', 'PATCH']);
  expect(writtenValue('{ ratio: 0.1, windowMs: 10000 }')).toEqual({ ratio: 0.1, windowMs: 10_000 });
  expect(writtenValue('1 (every attempt failed: paced, not cut off)')).toBe(1);
  expect(writtenValue('undefined (no deadline)')).toBeUndefined();
  expect(() => writtenValue('3 or so')).toThrow();
});
