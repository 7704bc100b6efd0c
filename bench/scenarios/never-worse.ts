// Issue 21: the long run of the "never worse than off" search (`npm run bench -- never-worse`).
import { baselineAt } from '../sim/baseline';
import { openClassOf } from '../sim/cases';
import type { Invariant } from '../sim/differential';
import { TOLERANCE } from '../sim/differential';
import { search } from '../sim/search';
import { contentionHerd } from './contention-herd';
import { fullOutage } from './full-outage';
import type { ScenarioReport, TargetCheck } from './scenario';

export const NEVER_WORSE = {
  cases: 5_000,
  firstSeed: 1,
  maxJobs: 40,
} as const;

const INVARIANTS: Record<Invariant, string> = {
  'a-succeeds': '(a) every job done with load control off is done with it on (± 0.5 % of jobs)',
  'b-time': `(b) done within ${TOLERANCE.time}× off's time or the capacity bound (+ ${TOLERANCE.timeSlackMs} ms)`,
  'c-requests': `(c) no more requests than off (× ${TOLERANCE.requests} + ${TOLERANCE.requestsSlack})`,
  'd-retry-after': '(d) no attempt before a Retry-After asked, in either mode',
};

export async function neverWorse(
  options: {
    cases?: number;
    progress?: (line: string) => void;
    /** A git ref: each case is judged against the package at that ref too (`baseline.ts`). */
    baseline?: string | undefined;
  } = {},
): Promise<ScenarioReport> {
  const startedAt = performance.now();
  const cases = options.cases ?? NEVER_WORSE.cases;
  const baseline = options.baseline === undefined ? undefined : baselineAt(options.baseline);
  const report = await search({
    baseline: baseline?.attach,
    cases,
    firstSeed: NEVER_WORSE.firstSeed,
    maxJobs: NEVER_WORSE.maxJobs,
    shrinkWorst: true,
    progress: options.progress,
    classOf: openClassOf,
  });
  const rows = (Object.keys(INVARIANTS) as Invariant[]).map((invariant) => [
    INVARIANTS[invariant],
    String(report.byInvariant[invariant]),
    String(report.byInvariantOutsideOpen[invariant]),
    report.worstRatio[invariant] ? report.worstRatio[invariant].toFixed(2) : '–',
  ]);
  const targets: TargetCheck[] = [
    {
      target: 'the search: 0 violations in the long run',
      met: report.violating === 0,
      measured: `${report.violating} of ${cases} cases violate an invariant (${report.violatingOutsideOpen} outside the open classes); worst completion on ÷ off ${report.worstTimeRatio.toFixed(2)}`,
    },
  ];
  const vs = report.vsBaseline;
  if (baseline && vs) {
    targets.push({
      target: `never worse than the baseline (${options.baseline}, ${baseline.commit}): (a)–(c) against it`,
      met: vs.violating === 0,
      measured: `${vs.violating} of ${cases} cases worse (a ${vs.byInvariant['a-succeeds']}, b ${vs.byInvariant['b-time']}, c ${vs.byInvariant['c-requests']})${vs.worst.map((w) => `; seed ${w.seed}: ${w.detail}`).join('')}`,
    });
  }
  // (e): the gains in overload and outage stay: the existing scenarios' targets.
  for (const scenario of [fullOutage, contentionHerd]) {
    const { targets: theirs } = await scenario();
    for (const check of theirs) targets.push({ ...check, target: `(e) ${check.target}` });
  }
  return {
    title: 'Never worse than off (issue 21)',
    setup: [
      `${cases} cases (seeds ${NEVER_WORSE.firstSeed}–${NEVER_WORSE.firstSeed + cases - 1}, fast-check's first value for each seed, up to ${NEVER_WORSE.maxJobs} jobs): one seeded workload against one server of the family, run with load control on (defaults) and off (\`circuitBreaker: false, pacing: false\`), in virtual time.`,
      'The family: no limiter, or fixed window, sliding window, token bucket, leaky bucket (nginx limit_req, with burst), concurrency; mounted on one route, a prefix or the whole origin; 429 or 503 with no header, Retry-After in seconds or as a date, RateLimit drafts 6/7/8 (with and without RateLimit-Policy), X-RateLimit-* (delta, epoch with Date), GitHub’s 403; random 429s (with Retry-After: 1 where the server speaks a header dialect) or 503s at 0–30 %; outages (refused or 503, 0.5–20 s); a slow tail; 1 to 8 clients on one key, with or without a shared store; 1 in flight to all at once; paths with ids; retries 2–10, deadlines, axios timeouts; jobs re-issued up to 1, 5 or 40 times.',
      `Open classes (the CI slice in \`npm test\` leaves them out; counted apart here): ${report.openClasses.join('; ') || 'none'}.`,
      ...report.worst.map(
        (w) =>
          `Worst ${w.invariant}: seed ${w.seed} (${w.result.violations.find((v) => v.invariant === w.invariant)?.detail}); shrunk: \`${JSON.stringify(w.shrunk)}\``,
      ),
    ],
    tables: [
      {
        title: 'Violations by invariant',
        columns: ['invariant', 'cases', 'outside the open classes', 'worst ratio'],
        rows,
      },
    ],
    targets,
    charts: [],
    realSeconds: (performance.now() - startedAt) / 1000,
  };
}
