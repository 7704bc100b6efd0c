// Shared by the load-control scenarios (issue 13): axios-retry, our defaults and our defaults with
// load control off, side by side.
import { loadControlOff } from '../contestants';
import { integer, ratio, seconds } from '../report/format';
import type { Table } from '../report/table';
import { breakerOpenedCell, completionMs, failedCalls, failureBreakdown } from '../sim/metrics';
import type { SimulationResult } from '../sim/simulation';

export const DEFAULTS = 'axios-safe-retry';

/** The result of the contestant called `name`; throws if the pool had none. */
export function named(results: readonly SimulationResult[], name: string): SimulationResult {
  const found = results.find((result) => result.contestant.name === name);
  if (!found) throw new Error(`no result for ${name}`);
  return found;
}

export const defaultsOf = (results: readonly SimulationResult[]) => named(results, DEFAULTS);
export const loadControlOffOf = (results: readonly SimulationResult[]) =>
  named(results, loadControlOff.name);

/** One column of a side-by-side table. */
export interface Column {
  readonly name: string;
  readonly cell: (result: SimulationResult) => string;
}

export const okColumn: Column = {
  name: 'calls ok',
  cell: (result) => integer(result.calls.length - failedCalls(result)),
};
export const failedColumn: Column = {
  name: 'failed',
  cell: (result) => integer(failedCalls(result)),
};
export const causesColumn: Column = { name: 'failures by cause', cell: failureBreakdown };
export const requestsColumn: Column = {
  name: 'requests sent',
  cell: (result) => integer(result.traffic.arrivals.length),
};
export const breakerColumn: Column = { name: 'breaker opened', cell: breakerOpenedCell };

export function statusColumn(status: number): Column {
  return { name: `${status}s`, cell: (result) => integer(result.traffic.count(status)) };
}

export function completionColumns(idealMs?: number): Column[] {
  const columns: Column[] = [
    { name: 'completion', cell: (result) => seconds(completionMs(result)) },
  ];
  if (idealMs !== undefined) {
    columns.push({ name: '÷ ideal', cell: (result) => ratio(completionMs(result), idealMs) });
  }
  return columns;
}

/** A column of `metric` over load control off's, measured in the same run. */
export function versusLoadControlOff(
  name: string,
  metric: (result: SimulationResult) => number,
  results: readonly SimulationResult[],
): Column {
  const reference = metric(loadControlOffOf(results));
  return { name, cell: (result) => ratio(metric(result), reference) };
}

export function sideBySide(
  title: string,
  results: readonly SimulationResult[],
  columns: readonly Column[],
): Table {
  return {
    title,
    columns: ['contestant', ...columns.map((column) => column.name)],
    rows: results.map((result) => [
      result.contestant.name,
      ...columns.map((column) => column.cell(result)),
    ]),
  };
}

/** Milliseconds from the first start to the last settlement of the calls `which` selects. */
export function spanMs(
  result: SimulationResult,
  which: (call: SimulationResult['calls'][number]) => boolean,
): number {
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const call of result.calls) {
    if (!which(call)) continue;
    first = Math.min(first, call.startedAtMs);
    last = Math.max(last, call.settledAtMs);
  }
  return last >= first ? last - first : 0;
}

export const LOAD_CONTROL_CONTESTANTS =
  'Contestants: axios-retry 4.5, axios-safe-retry with its defaults (the targets are for it), and axios-safe-retry with load control off (`circuitBreaker: false, pacing: false, maxConcurrent: Infinity`), each as in the list above.';
