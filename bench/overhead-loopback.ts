import { type ChildProcess, spawn } from 'node:child_process';
import { Agent } from 'node:http';
import type { AxiosInstance } from 'axios';
import { median, overheadClients, ratiosToBare } from './overhead-clients';
import { fixed, integer } from './report/format';
import type { Table } from './report/table';

const LOOPBACK = { rounds: 21, calls: 500, inFlight: 16 };

// The server runs in a process of its own, so the CPU measured is the client's alone. It answers
// every GET with a small JSON body and keeps connections alive.
const SERVER = `
const http = require('node:http');
const body = JSON.stringify({ ok: true });
const server = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
  res.end(body);
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.send(server.address().port));
`;

function startServer(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['-e', SERVER], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (port) => resolve({ child, port: port as number }));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`loopback server exited (${code})`)));
  });
}

/** `calls` GETs, `inFlight` at a time; the client process's CPU (user + system) in µs. */
async function drive(
  instance: AxiosInstance,
  calls: number,
): Promise<{ cpuUs: number; wallMs: number }> {
  let started = 0;
  const worker = async (): Promise<void> => {
    while (started++ < calls) await instance.get('/ok');
  };
  const wallAt = performance.now();
  const cpuAt = process.cpuUsage();
  await Promise.all(Array.from({ length: LOOPBACK.inFlight }, worker));
  const cpu = process.cpuUsage(cpuAt);
  return { cpuUs: cpu.user + cpu.system, wallMs: performance.now() - wallAt };
}

export interface LoopbackResult {
  readonly table: Table;
  /** Median over rounds of (client calls per CPU second ÷ bare axios's in the same round). */
  readonly ratioToBare: ReadonlyMap<string, number>;
}

/**
 * Successful GETs to a real node:http server on 127.0.0.1 over keep-alive connections (an agent
 * of 16 sockets per client), `LOOPBACK.inFlight` at a time. After one discarded warm-up round
 * (connections opened, code compiled), each of `LOOPBACK.rounds` rounds drives every client in
 * turn, the order rotated; each client's calls per CPU second of this process (the server's is
 * its own) are taken as a ratio to bare axios's in the same round, and the median is reported.
 */
export async function measureLoopbackOverhead(): Promise<LoopbackResult> {
  const { child, port } = await startServer();
  const agents: Agent[] = [];
  try {
    const instances = overheadClients.map((client) => {
      const agent = new Agent({ keepAlive: true, maxSockets: LOOPBACK.inFlight });
      agents.push(agent);
      return client.make({ baseURL: `http://127.0.0.1:${port}`, httpAgent: agent });
    });
    const cpuRounds: Map<string, number>[] = [];
    const wallRounds: Map<string, number>[] = [];
    for (let round = -1; round < LOOPBACK.rounds; round += 1) {
      const cpu = new Map<string, number>();
      const wall = new Map<string, number>();
      for (let index = 0; index < instances.length; index += 1) {
        const at = (index + Math.max(round, 0)) % instances.length;
        const { name } = overheadClients[at] as (typeof overheadClients)[number];
        const { cpuUs, wallMs } = await drive(instances[at] as AxiosInstance, LOOPBACK.calls);
        cpu.set(name, (LOOPBACK.calls * 1e6) / cpuUs);
        wall.set(name, (LOOPBACK.calls * 1000) / wallMs);
      }
      if (round >= 0) {
        cpuRounds.push(cpu);
        wallRounds.push(wall);
      }
    }
    const cpuRatios = ratiosToBare(cpuRounds);
    const wallRatios = ratiosToBare(wallRounds);
    const table: Table = {
      title: `Overhead: successful GETs to a loopback server, keep-alive, ${LOOPBACK.inFlight} in flight (${LOOPBACK.rounds} rounds of ${LOOPBACK.calls} calls per client)`,
      columns: [
        'client',
        'calls per CPU second (client process)',
        '÷ bare axios (median of per-round ratios)',
        'ratio range over rounds',
        'calls/s (wall) ÷ bare axios',
      ],
      rows: overheadClients.map(({ name }) => {
        const ratio = cpuRatios.get(name);
        return [
          name,
          integer(median(cpuRounds.map((r) => r.get(name) ?? 0))),
          `${fixed(ratio?.median ?? 0)}×`,
          `${fixed(ratio?.min ?? 0)}–${fixed(ratio?.max ?? 0)}`,
          `${fixed(wallRatios.get(name)?.median ?? 0)}×`,
        ];
      }),
    };
    return {
      table,
      ratioToBare: new Map([...cpuRatios].map(([name, ratio]) => [name, ratio.median])),
    };
  } finally {
    for (const agent of agents) agent.destroy();
    child.kill();
  }
}
