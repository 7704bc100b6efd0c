// Reading the code examples of README.md and docs/*.md, for the tests that keep them true.
//
// The scheme: every ```ts or ```js block of those files is preceded by a marker line,
// `<!-- example: <name> -->` (invisible on GitHub), and some test under __tests__/ loads it by
// name with `example('<file>', '<name>')`, then runs it, or compares it, word for word, with a
// region of its own source (`// #region <name>` … `// #endregion`), which `npm run typecheck`
// compiles. `examples-covered.test.ts` fails on a block without a marker, or whose marker no
// test loads.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');

/** README.md and every docs/*.md, as paths from the repository's root. */
export function docFiles(): string[] {
  const pages = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md'));
  return ['README.md', ...pages.sort().map((name) => `docs/${name}`)];
}

export const readDoc = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

export interface CodeBlock {
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly language: string;
  /** The `<!-- example: name -->` right above the fence, if any. */
  readonly name: string | undefined;
  readonly code: string;
}

/** The languages a block is code in, for the coverage test. */
export const CODE_LANGUAGES = /^(ts|js|tsx|jsx|mts|cts|mjs|cjs|typescript|javascript)$/;

/** Every fenced block of a markdown file. */
export function codeBlocks(file: string): CodeBlock[] {
  const lines = readDoc(file).split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i] as string);
    if (!open) continue;
    const end = lines.findIndex((line, j) => j > i && line.startsWith('```'));
    if (end < 0) throw new Error(`${file}:${i + 1}: a code block that never ends`);
    const marker = /^<!-- example: ([\w-]+) -->$/.exec(lines[i - 1] ?? '');
    blocks.push({
      file,
      line: i + 1,
      language: open[1] ?? '',
      name: marker?.[1],
      code: `${lines.slice(i + 1, end).join('\n')}\n`,
    });
    i = end;
  }
  return blocks;
}

/** The code of the block named `name` in `file`; throws if there is none. */
export function example(file: string, name: string): string {
  const block = codeBlocks(file).find((b) => b.name === name);
  if (!block) throw new Error(`${file} has no example named ${name}`);
  return block.code;
}

/**
 * The lines between `// #region <name>` and `// #endregion` of a source file, dedented to the
 * region line, with the imports of this repository's sources written as a user writes them
 * (`../../src` is `axios-safe-retry`).
 */
export function region(sourceFile: string, name: string): string {
  const source = readFileSync(sourceFile, 'utf8');
  const start = new RegExp(`^( *)// #region ${name}\\n`, 'm').exec(source);
  if (!start) throw new Error(`${sourceFile} has no region ${name}`);
  const indent = start[1] as string;
  const from = start.index + start[0].length;
  const to = source.indexOf(`${indent}// #endregion`, from);
  return source
    .slice(from, to)
    .split('\n')
    .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
    .join('\n')
    .replace(/'\.\.\/\.\.\/src'/g, "'axios-safe-retry'")
    .replace(/'\.\.\/\.\.\/src\/(server|redis)'/g, "'axios-safe-retry/$1'");
}

/**
 * Runs a JavaScript example (ESM, top-level `await` allowed) as the body of an async function:
 * its `import` lines are taken out, and each name they bind is given from `modules`, by
 * specifier (`import x from` takes the module's `default`, or the module itself if it has
 * none). `replace` swaps exact lines (a `// … your routes …` placeholder, say) before it runs;
 * `returns` names the bindings to hand back.
 */
export async function runExample(
  code: string,
  run: {
    readonly modules: Readonly<Record<string, unknown>>;
    readonly globals?: Readonly<Record<string, unknown>>;
    readonly replace?: readonly (readonly [string, string])[];
    readonly returns?: readonly string[];
  },
): Promise<Record<string, unknown>> {
  const names: string[] = [];
  const values: unknown[] = [];
  const bind = (name: string, value: unknown) => {
    names.push(name);
    values.push(value);
  };
  let body = code.replace(
    /^import\s+([\s\S]*?)\s+from\s+'([^']+)';?[^\n]*$/gm,
    (_line, clause: string, specifier: string) => {
      if (!(specifier in run.modules)) throw new Error(`the example imports ${specifier}`);
      const module = run.modules[specifier] as Record<string, unknown>;
      const named = /\{([^}]*)\}/.exec(clause)?.[1];
      const fallback = clause
        .replace(/\{[^}]*\}/, '')
        .replace(/,\s*$/, '')
        .trim();
      if (fallback.startsWith('* as ')) bind(fallback.slice(5), module);
      else if (fallback) bind(fallback, module.default ?? module);
      for (const part of named?.split(',') ?? []) {
        const [imported, local = imported] = part.trim().split(/\s+as\s+/);
        if (imported) bind(local as string, module[imported]);
      }
      return '';
    },
  );
  for (const [line, by] of run.replace ?? []) {
    if (!body.includes(line)) throw new Error(`the example has no line ${line}`);
    body = body.replace(line, by);
  }
  for (const [name, value] of Object.entries(run.globals ?? {})) bind(name, value);
  body += `\nreturn { ${(run.returns ?? []).join(', ')} };`;
  const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
    ...args: string[]
  ) => (...values: unknown[]) => Promise<Record<string, unknown>>;
  return new AsyncFunction(...names, body)(...values);
}
