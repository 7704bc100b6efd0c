// Run by hostile-limits.integration.test.ts in a child process, as a CommonJS script whose only
// handle is its pending call (issue 13, item 2): `node -r ts-node/register/transpile-only
// held-call-script.ts <url>`. The first call meets the hostile response; the second must settle
// (succeed, or fail with the gate's error): a call parked with no timer lets Node exit with
// code 0 without running the code after its `await`, and nothing is printed.
import http from 'node:http';
import axios, { type AxiosError } from 'axios';
import { attachRetry } from '../../src';

async function main(url: string): Promise<void> {
  const api = axios.create({ baseURL: url, httpAgent: new http.Agent({ keepAlive: false }) });
  attachRetry(api);
  await api.get('/first');
  try {
    await api.get('/second');
    console.log('settled: ok');
  } catch (error) {
    console.log(`settled: ${(error as AxiosError).code}`);
  }
}

void main(process.argv[2] ?? '').then(
  () => console.log('after await'),
  (error: unknown) => console.log(`main failed: ${String(error)}`),
);
