import type { SimulationResult } from '../sim/simulation';
import { ratio } from './format';
import type { Table } from './table';

export interface Metric {
  readonly name: string;
  readonly value: (result: SimulationResult) => number;
}

/** Contestants we compare against: everything that retries and is not ours. */
export function peersOf(results: readonly SimulationResult[]): SimulationResult[] {
  return results.filter(
    (result) => result.contestant.kind !== 'ours' && result.contestant.name !== 'no retry',
  );
}

export function oursOf(results: readonly SimulationResult[]): SimulationResult[] {
  return results.filter((result) => result.contestant.kind === 'ours');
}

/** The peer with the lowest value of `metric` (lower is better for every metric we rank). */
export function bestPeer(results: readonly SimulationResult[], metric: Metric): SimulationResult {
  const peers = peersOf(results);
  const best = peers.reduce(
    (a, b) => (metric.value(b) < metric.value(a) ? b : a),
    peers[0] as SimulationResult,
  );
  return best;
}

/** Our value divided by each peer's, for each metric, measured in the same run. */
export function ratioTable(
  title: string,
  results: readonly SimulationResult[],
  metrics: readonly Metric[],
): Table {
  const peers = peersOf(results);
  return {
    title,
    columns: ['ours ÷ peer', ...peers.map((peer) => peer.contestant.name)],
    rows: oursOf(results).flatMap((ours) =>
      metrics.map((metric) => [
        `${ours.contestant.name}: ${metric.name}`,
        ...peers.map((peer) => ratio(metric.value(ours), metric.value(peer))),
      ]),
    ),
  };
}
