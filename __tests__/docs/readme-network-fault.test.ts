// The README's axios-mock-adapter network-fault snippet, as written there: `npm run typecheck`
// compiles this file under `strict`, so the snippet must compile; and it must work.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import axios, { AxiosError, type InternalAxiosRequestConfig } from 'axios';
import MockAdapter from 'axios-mock-adapter';
import { attachRetry } from '../../src';

const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');

jest.useFakeTimers();

test('the README shows this snippet, word for word', () => {
  const snippet = `mock.onGet('/items').replyOnce((config) =>
  Promise.reject(
    new AxiosError('Network Error', 'ERR_NETWORK', config as InternalAxiosRequestConfig),
  ),
);`;
  expect(readme).toContain(
    `import { AxiosError, type InternalAxiosRequestConfig } from 'axios';\n\n${snippet}`,
  );
});

test('a network fault made so is retried', async () => {
  const api = axios.create();
  const mock = new MockAdapter(api);
  attachRetry(api, { random: () => 0.5 });
  // The snippet:
  mock
    .onGet('/items')
    .replyOnce((config) =>
      Promise.reject(
        new AxiosError('Network Error', 'ERR_NETWORK', config as InternalAxiosRequestConfig),
      ),
    );
  mock.onGet('/items').reply(200, ['a']);
  const call = api.get('/items');
  await jest.advanceTimersByTimeAsync(50);
  await expect(call).resolves.toMatchObject({ data: ['a'] });
});
