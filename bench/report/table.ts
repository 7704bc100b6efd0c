/** A table of already-formatted cells; the first column is the row label. */
export interface Table {
  readonly title: string;
  readonly columns: readonly string[];
  readonly rows: readonly (readonly string[])[];
}

/** Left-aligns the label column and right-aligns the numbers, for the terminal. */
export function renderTextTable(table: Table): string {
  const all = [table.columns, ...table.rows];
  const widths = table.columns.map((_, column) =>
    Math.max(...all.map((row) => (row[column] ?? '').length)),
  );
  const line = (row: readonly string[]): string =>
    row
      .map((cell, column) => {
        const width = widths[column] ?? 0;
        return column === 0 ? cell.padEnd(width) : cell.padStart(width);
      })
      .join('  ');
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [table.title, line(table.columns), rule, ...table.rows.map(line)].join('\n');
}

export function renderMarkdownTable(table: Table): string {
  const escapeCell = (cell: string): string => cell.replace(/\|/g, '\\|');
  const header = `| ${table.columns.map(escapeCell).join(' | ')} |`;
  const align = `| ${table.columns.map((_, column) => (column === 0 ? ':--' : '--:')).join(' | ')} |`;
  const body = table.rows.map((row) => `| ${row.map(escapeCell).join(' | ')} |`);
  return [`**${table.title}**`, '', header, align, ...body].join('\n');
}
