import type { StoryReport } from './story-report';

/** One scenario of the demo: it prints its own log and checks its claims on `report`. */
export interface Story {
  readonly title: string;
  /** One line on what the server does, printed under the title. */
  readonly setting: string;
  run(report: StoryReport): Promise<void>;
}
