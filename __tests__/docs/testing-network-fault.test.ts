// docs/testing.md's axios-mock-adapter network-fault snippet, as written there: the region below
// is the page's example after its import line (`npm run typecheck` compiles it under `strict`),
// and it works.
import axios, { AxiosError, type InternalAxiosRequestConfig } from 'axios';
import MockAdapter from 'axios-mock-adapter';
import { attachRetry } from '../../src';
import { example, region } from './doc-examples';

jest.useFakeTimers();

test('docs/testing.md shows this snippet, word for word', () => {
  expect(example('docs/testing.md', 'network-fault')).toBe(
    `import { AxiosError, type InternalAxiosRequestConfig } from 'axios';\n\n${region(__filename, 'network-fault')}`,
  );
});

test('a network fault made so is retried', async () => {
  const api = axios.create();
  const mock = new MockAdapter(api);
  attachRetry(api, { random: () => 0.5 });
  // #region network-fault
  mock
    .onGet('/items')
    .replyOnce((config) =>
      Promise.reject(
        new AxiosError('Network Error', 'ERR_NETWORK', config as InternalAxiosRequestConfig),
      ),
    );
  // #endregion
  mock.onGet('/items').reply(200, ['a']);
  const call = api.get('/items');
  await jest.advanceTimersByTimeAsync(50);
  await expect(call).resolves.toMatchObject({ data: ['a'] });
});
