import { originOf } from '../../src/http/origin';
import { routeOf, whereOf } from '../../src/http/route';

describe('routeOf', () => {
  it.each([
    [undefined, '/users/42', 'users/:id'],
    [undefined, 'http://api.test/users/42?x=1#top', 'users/:id'],
    ['http://api.test/v1', '/orders/3f2a5c1e-0b6d-4e8a-9c1f-2a3b4c5d6e7f', 'v1/orders/:id'],
    ['http://api.test/v1/', 'orders/0123456789abcdef0123/items', 'v1/orders/:id/items'],
    ['http://api.test/v1', 'https://other.test/health', 'health'],
    [undefined, '/orders', 'orders'],
    [undefined, '', ''],
  ])('baseURL %j, url %j: %j', (baseURL, url, route) => {
    expect(routeOf(baseURL, url)).toBe(route);
  });

  it('keeps the names of resources: only id-like segments are one route', () => {
    expect(routeOf(undefined, '/users/me')).not.toBe(routeOf(undefined, '/users/you'));
    expect(routeOf(undefined, '/users/7')).toBe(routeOf(undefined, '/users/8'));
    // A segment is id-like as a whole: one that only starts like an id is a name.
    expect(routeOf(undefined, '/users/7/2fa')).toBe('users/:id/2fa');
  });
});

describe('whereOf', () => {
  it('is the origin and the route of a request, the same tuple each time for one URL', () => {
    const where = whereOf({ baseURL: 'https://API.test:443/v1', url: 'users/42?x=1' });
    expect(where).toEqual([originOf('https://API.test:443/v1', 'users/42?x=1'), 'v1/users/:id']);
    expect(where[0]).toBe('https://api.test');
    expect(whereOf({ baseURL: 'https://API.test:443/v1', url: 'users/42?x=1' })).toBe(where);
    expect(whereOf({ url: 'http://other.test/a' })).toEqual(['http://other.test', 'a']);
  });

  it('keeps at most a thousand URLs read, whatever the number of base URLs', () => {
    let whereOf!: typeof import('../../src/http/route').whereOf;
    jest.isolateModules(() => {
      ({ whereOf } = require('../../src/http/route'));
    });
    const first = whereOf({ baseURL: 'http://kept.test', url: 'a' });
    for (let i = 0; i < 999; i++) whereOf({ baseURL: `http://b${i % 7}.test`, url: `r${i}` });
    expect(whereOf({ baseURL: 'http://kept.test', url: 'a' })).toBe(first);
    // The thousand-and-first forgets them all: the first is read again, to an equal tuple.
    for (let i = 0; i < 1001; i++) whereOf({ baseURL: `http://c${i % 7}.test`, url: `r${i}` });
    const again = whereOf({ baseURL: 'http://kept.test', url: 'a' });
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });
});
