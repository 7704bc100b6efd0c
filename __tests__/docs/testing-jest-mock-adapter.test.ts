// docs/testing.md's first example, a whole test file: the region below is the page's example,
// word for word (testing-examples.test.ts compares them), and it runs here as it is.
// #region jest-mock-adapter
import axios from 'axios';
import MockAdapter from 'axios-mock-adapter';
import { attachRetry } from '../../src';

jest.useFakeTimers();

test('rides through a 503', async () => {
  const api = axios.create();
  const mock = new MockAdapter(api);
  attachRetry(api, { random: () => 0.5 }); // delays: 50, 100, 200 ms
  mock.onGet('/items').replyOnce(503).onGet('/items').reply(200, ['a']);

  const call = api.get('/items');
  await jest.advanceTimersByTimeAsync(50);
  await expect(call).resolves.toMatchObject({ data: ['a'] });
});
// #endregion
