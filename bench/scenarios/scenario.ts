import type { ArrivalChart } from '../report/svg';
import type { Table } from '../report/table';

/** A target from the brief, checked against what was measured. */
export interface TargetCheck {
  readonly target: string;
  /** `undefined` for a number the brief asks to report without a target. */
  readonly met: boolean | undefined;
  readonly measured: string;
}

export interface ScenarioReport {
  readonly title: string;
  /** What the server and the clients do, and how contestants were configured. */
  readonly setup: readonly string[];
  readonly tables: readonly Table[];
  readonly targets: readonly TargetCheck[];
  readonly charts: readonly ArrivalChart[];
  /** Real (wall-clock) seconds the scenario took to simulate. */
  readonly realSeconds: number;
}
