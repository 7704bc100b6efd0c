// A leaky bucket (nginx limit_req: 20 r/s, burst 5, bare 503s) behind an ingress that takes a
// request every 10 ms, 100 GETs at once, in virtual time. The burst reaches the bucket over a
// second, and is answered mostly 503 after pacing began. (Seen on a loaded CI box, where the
// loopback suite's client and server share one event loop: pacing judged its first window by
// those answers, gave up, and the unpaced retries spent the budget: 22 of 100 calls failed.)
import { contestants, loadControlOff } from '../../bench/contestants';
import { leakyBucketServer, slowIngress } from '../../bench/sim/server-model';
import { simulate } from '../../bench/sim/simulation';
import { openLoop } from '../../bench/sim/workload';

const ours = contestants.find((c) => c.name === 'axios-safe-retry');

async function failedWith(contestant: typeof loadControlOff, gapMs: number) {
  const { calls } = await simulate(contestant, {
    settings: { retries: 3 },
    server: () =>
      slowIngress(
        leakyBucketServer({ ratePerSecond: 20, burst: 5, latencyMs: 10, rejectStatus: 503 }),
        gapMs,
      ),
    workload: openLoop(new Array<number>(100).fill(0)),
  });
  return calls.filter((call) => !call.ok).length;
}

it.each([10, 15])(
  'nginx limit_req behind an ingress of one request per %i ms: all 100 calls succeed',
  async (gapMs) => {
    if (!ours) throw new Error('no contestant named axios-safe-retry');
    const [on, off] = [await failedWith(ours, gapMs), await failedWith(loadControlOff, gapMs)];
    expect({ on, offFailedSome: off > 0 }).toEqual({ on: 0, offFailedSome: true });
  },
);
