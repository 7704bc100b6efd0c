// The README's "How do I test code that uses it?" example, as written there: it must pass.
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
