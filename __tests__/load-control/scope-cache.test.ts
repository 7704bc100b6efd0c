import { lastOf } from '../../src/load-control/scope-cache';

describe('lastOf', () => {
  it('answers as the function does, asking it again only when the arguments change', () => {
    const asked: string[] = [];
    const key = lastOf((origin: string, route: string) => {
      asked.push(`${origin} ${route}`);
      return `${origin}/${route}`;
    });
    expect([key('a', 'x'), key('a', 'x'), key('a', 'y'), key('b', 'y'), key('a', 'x')]).toEqual([
      'a/x',
      'a/x',
      'a/y',
      'b/y',
      'a/x',
    ]);
    expect(asked).toEqual(['a x', 'a y', 'b y', 'a x']);
  });
});
