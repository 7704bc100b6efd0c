// One case of "never worse than off", traced: what the server was asked and answered, request by
// request, with load control on and off. The long run names its violating cases by seed; this
// shows why one of them is slow.
//
//   npm run bench:case -- 3999                 every request of both runs
//   npm run bench:case -- 3999 --from 2000 --to 4000
//   npm run bench:case -- '{"server":…,"workload":…}'   a case as the long run prints it, shrunk
import { openClassOf } from './cases';
import { type Case, judge, type RunOutcome, traceMode } from './differential';
import { caseOf } from './search';
import type { Answered } from './server-family';

/** The cases the long run draws: up to this many jobs (bench/scenarios/never-worse.ts). */
const MAX_JOBS = 40;

export interface TraceWindow {
  /** Requests that arrived in [fromMs, toMs) of virtual time are listed one by one. */
  readonly fromMs: number;
  readonly toMs: number;
}

/** How one request was answered, in a few characters: `200`, `429 retry-after=1`, `refused`. */
function answerOf({ answer }: Answered): string {
  if (answer.kind !== 'response') return answer.kind;
  const wait = answer.headers?.['retry-after'];
  return wait === undefined ? String(answer.status) : `${answer.status} retry-after=${wait}`;
}

/** Requests, and those not answered 200, in each second of the run: `0s 28/1`. */
function perSecond(answers: readonly Answered[]): string {
  const seconds = new Map<number, [number, number]>();
  for (const note of answers) {
    const second = Math.floor(note.arrivedAtMs / 1000);
    const [sent, refused] = seconds.get(second) ?? [0, 0];
    const ok = note.answer.kind === 'response' && note.answer.status === 200;
    seconds.set(second, [sent + 1, refused + (ok ? 0 : 1)]);
  }
  return [...seconds].map(([second, [sent, bad]]) => `${second}s ${sent}/${bad}`).join('  ');
}

function summaryOf(mode: string, run: RunOutcome): string {
  const failures = Object.entries(run.failures)
    .map(([reason, count]) => `${reason} ×${count}`)
    .join(', ');
  return (
    `== ${mode}: ${run.jobsOk} of ${run.jobs} jobs done in ${run.completionMs} ms, ` +
    `${run.requests} requests, breaker opened ${run.breakerOpenings}×` +
    (failures ? `; failed calls: ${failures}` : '')
  );
}

/** The trace of one case as lines of text: the case, each run's summary, its seconds and requests. */
export async function traceCase(c: Case, window: TraceWindow): Promise<string[]> {
  const lines = [
    `server: ${JSON.stringify(c.server)}`,
    `workload: ${JSON.stringify(c.workload)}`,
    `open class: ${openClassOf(c) ?? 'none'}`,
  ];
  const runs = { off: await traceMode(c, 'off'), on: await traceMode(c, 'on') };
  for (const v of judge(c, runs.on.outcome, runs.off.outcome)) {
    lines.push(`violates ${v.invariant}: ${v.detail}`);
  }
  for (const mode of ['on', 'off'] as const) {
    const { outcome, answers } = runs[mode];
    lines.push(summaryOf(mode, outcome), `per second (requests/not 200): ${perSecond(answers)}`);
    lines.push('arrived  answered  call  path  answer');
    const listed = [...answers]
      .filter((a) => a.arrivedAtMs >= window.fromMs && a.arrivedAtMs < window.toMs)
      .sort((a, b) => a.arrivedAtMs - b.arrivedAtMs);
    for (const a of listed) {
      lines.push(
        `${a.arrivedAtMs}  ${a.answeredAtMs}  ${a.callId ?? '-'}  ${a.path}  ${answerOf(a)}`,
      );
    }
  }
  return lines;
}

/** The case a command line names: a seed of the long run, or a case as JSON. */
export function caseFrom(arg: string): Case {
  return arg.trim().startsWith('{') ? (JSON.parse(arg) as Case) : caseOf(Number(arg), MAX_JOBS);
}

async function main(argv: readonly string[]): Promise<void> {
  const [arg] = argv;
  if (arg === undefined || (!arg.trim().startsWith('{') && !Number.isInteger(Number(arg)))) {
    console.error('usage: npm run bench:case -- <seed | case JSON> [--from ms] [--to ms]');
    process.exitCode = 2;
    return;
  }
  const flag = (name: string, fallback: number): number => {
    const i = argv.indexOf(name);
    return i < 0 ? fallback : Number(argv[i + 1]);
  };
  const window = { fromMs: flag('--from', 0), toMs: flag('--to', Infinity) };
  for (const line of await traceCase(caseFrom(arg), window)) console.log(line);
}

if (require.main === module) void main(process.argv.slice(2));
