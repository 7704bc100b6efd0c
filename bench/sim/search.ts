// The search loop of "never worse than off": many seeded cases, the violations counted by
// invariant, and the worst ones shrunk by fast-check to the smallest case that still breaks the
// same invariant.
import fc from 'fast-check';
import type { AttachRetry } from './baseline';
import { caseArbitrary } from './cases';
import { type Case, type CaseResult, type Invariant, runCase } from './differential';

export interface Found {
  readonly seed: number;
  readonly case: Case;
  readonly result: CaseResult;
}

export interface SearchReport {
  readonly cases: number;
  /** Cases that violate at least one invariant, and those of them outside the open classes. */
  readonly violating: number;
  readonly violatingOutsideOpen: number;
  readonly byInvariant: Readonly<Record<Invariant, number>>;
  readonly byInvariantOutsideOpen: Readonly<Record<Invariant, number>>;
  /** The open classes met, with their count of violating cases. */
  readonly openClasses: readonly string[];
  /** The worst case of each invariant, shrunk. */
  readonly worst: readonly (Found & { readonly invariant: Invariant; readonly shrunk: Case })[];
  /** The worst ratio on ÷ off over every case, by invariant (1 or less: never worse). */
  readonly worstRatio: Readonly<Record<Invariant, number>>;
  /** Of every case: completion on ÷ off, at its largest. */
  readonly worstTimeRatio: number;
  /** With a baseline: the cases this tree does worse in than the baseline, by invariant, and the worst few. */
  readonly vsBaseline?: {
    readonly violating: number;
    readonly byInvariant: Readonly<Record<Invariant, number>>;
    readonly worst: readonly {
      readonly seed: number;
      readonly detail: string;
      readonly ratio: number;
    }[];
  };
}

const INVARIANTS: readonly Invariant[] = ['a-succeeds', 'b-time', 'c-requests', 'd-retry-after'];

/** The case the seed generates: fast-check's first value for it, as `fc.check` would draw. */
export function caseOf(seed: number, maxJobs?: number): Case {
  const [value] = fc.sample(caseArbitrary(maxJobs), { seed, numRuns: 1 });
  if (!value) throw new Error(`no case for seed ${seed}`);
  return value;
}

/** Shrinks `seed`'s case to the smallest that still violates `invariant`. */
export async function shrink(seed: number, invariant: Invariant, maxJobs?: number): Promise<Case> {
  const details = await fc.check(
    fc.asyncProperty(caseArbitrary(maxJobs), async (c) => {
      const { violations } = await runCase(c);
      return !violations.some((v) => v.invariant === invariant);
    }),
    // The limit is checked between runs, on the real clock: an interrupt would race a timer that
    // a run's fake clock fires once a case passes 60 s of virtual time, abandon that run with
    // its fake timers installed, and make the next run fail to install its own.
    { seed, numRuns: 1, skipAllAfterTimeLimit: 60_000 },
  );
  return details.counterexample?.[0] ?? caseOf(seed, maxJobs);
}

export async function search(options: {
  readonly cases: number;
  readonly firstSeed: number;
  readonly maxJobs?: number;
  readonly shrinkWorst?: boolean;
  readonly progress?: ((line: string) => void) | undefined;
  /** The open class of a case, if it is in one. */
  readonly classOf?: (c: Case) => string | undefined;
  /** The package at a git ref (`baseline.ts`), each case judged against it too. */
  readonly baseline?: AttachRetry | undefined;
}): Promise<SearchReport> {
  const zero = () => Object.fromEntries(INVARIANTS.map((i) => [i, 0])) as Record<Invariant, number>;
  const byInvariant = zero();
  const byInvariantOutsideOpen = zero();
  const open = new Map<string, number>();
  let violating = 0;
  let violatingOutsideOpen = 0;
  const worstRatio = zero();
  const worstFound = new Map<Invariant, Found & { ratio: number }>();
  let worstTimeRatio = 0;
  const vs = {
    violating: 0,
    byInvariant: zero(),
    worst: [] as { seed: number; detail: string; ratio: number }[],
  };
  for (let i = 0; i < options.cases; i++) {
    const seed = options.firstSeed + i;
    const c = caseOf(seed, options.maxJobs);
    const result = await runCase(c, options.baseline);
    if (result.vsBaseline?.length) vs.violating += 1;
    for (const v of result.vsBaseline ?? []) {
      const detail = `${v.invariant} ${v.detail}`;
      vs.byInvariant[v.invariant] += 1;
      vs.worst.push({ seed, detail, ratio: v.ratio });
      options.progress?.(`seed ${seed}: worse than the baseline: ${detail}`);
    }
    worstTimeRatio = Math.max(
      worstTimeRatio,
      result.on.completionMs / Math.max(1, result.off.completionMs),
    );
    const openClass = options.classOf?.(c);
    if (result.violations.length) {
      violating += 1;
      if (openClass) open.set(openClass, (open.get(openClass) ?? 0) + 1);
      else violatingOutsideOpen += 1;
    }
    for (const v of result.violations) {
      byInvariant[v.invariant] += 1;
      if (!openClass) byInvariantOutsideOpen[v.invariant] += 1;
      worstRatio[v.invariant] = Math.max(worstRatio[v.invariant], v.ratio);
      const known = worstFound.get(v.invariant);
      if (!known || v.ratio > known.ratio) {
        worstFound.set(v.invariant, { seed, case: c, result, ratio: v.ratio });
      }
      options.progress?.(`seed ${seed}: ${v.invariant} ${v.detail}`);
    }
    if ((i + 1) % 500 === 0) options.progress?.(`${i + 1} cases`);
  }
  const worst = [];
  for (const [invariant, found] of worstFound) {
    const shrunk = options.shrinkWorst
      ? await shrink(found.seed, invariant, options.maxJobs)
      : found.case;
    worst.push({ ...found, invariant, shrunk });
  }
  return {
    ...{ cases: options.cases, violating, violatingOutsideOpen, byInvariant },
    byInvariantOutsideOpen,
    openClasses: [...open].map(([name, count]) => `${name} (${count} cases)`),
    ...{ worst, worstRatio, worstTimeRatio },
    ...(options.baseline
      ? { vsBaseline: { ...vs, worst: vs.worst.sort((a, b) => b.ratio - a.ratio).slice(0, 10) } }
      : {}),
  };
}
