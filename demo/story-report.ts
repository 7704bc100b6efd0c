import { count, detail, dim, green, red, seconds } from './log';

/** What one story counted, for its summary line. */
export interface Tally {
  readonly calls: number;
  readonly successes: number;
  readonly userVisibleErrors: number;
  readonly serverArrivals: number;
  readonly elapsedMs: number;
}

/** Collects a story's claims (each checked against what was measured) and prints them as it goes. */
export class StoryReport {
  private failures = 0;
  private total = 0;

  check(holds: boolean, text: string): void {
    this.total += 1;
    if (!holds) this.failures += 1;
    detail(`${holds ? green('✓') : red('✗')} ${text}`);
  }

  summary(label: string, tally: Tally): void {
    const errors = count(tally.userVisibleErrors, 'user-visible error');
    detail(
      `${dim(label)} ${count(tally.calls, 'call')} · ${tally.successes} succeeded · ` +
        `${tally.userVisibleErrors === 0 ? errors : red(errors)} · ` +
        `${count(tally.serverArrivals, 'server arrival')} · ${seconds(tally.elapsedMs)}`,
    );
  }

  /** A failure the story did not expect (a thrown error) counts as a failed claim. */
  crashed(error: unknown): void {
    this.check(
      false,
      `the story crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
  }

  get claimCount(): number {
    return this.total;
  }

  get failedCount(): number {
    return this.failures;
  }
}
