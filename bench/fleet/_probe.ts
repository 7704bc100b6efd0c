import { runFleet, withFleetEnvironment } from './fleet';
import { attempts } from './metrics';
(async () => {
  await withFleetEnvironment(async (env) => {
    const run = await runFleet(env, { contestant: 'axios-safe-retry + Redis store', workers: 8, calls: 1000, inFlight: 20, retries: 10, deadlineMs: 15000, limiter: { limit: 50, windowMs: 1000, retryAfter: true }, timeoutMs: 90_000,
      events: [{ atMs: 6000, label: 'down', action: (c) => c.limiter.stop() }, { atMs: 14000, label: 'up', action: (c) => c.limiter.restart() }] });
    const per = new Map<number, Record<string, number>>();
    for (const a of attempts(run)) { const s = Math.floor((a.at - run.startedAt) / 500) / 2; const v = per.get(s) ?? {}; v[String(a.outcome)] = (v[String(a.outcome)] ?? 0) + 1; per.set(s, v); }
    console.log([...per].sort((a, b) => a[0] - b[0]).map(([s, v]) => `${s}:${JSON.stringify(v)}`).join('\n'));
  });
})();
