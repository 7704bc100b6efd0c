import { originOf } from '../src/origin';

describe('originOf', () => {
  it.each([
    [undefined, 'https://api.example.com/v1/items?x=1', 'https://api.example.com'],
    ['https://api.example.com/v1', '/items', 'https://api.example.com'],
    ['https://api.example.com/v1', 'items', 'https://api.example.com'],
    ['https://api.example.com', 'http://other.test:8080/x', 'http://other.test:8080'],
    [undefined, 'HTTP://API.Example.com:80/x', 'http://api.example.com'],
    [undefined, 'https://api.example.com:443', 'https://api.example.com'],
    [undefined, 'https://api.example.com:8443/', 'https://api.example.com:8443'],
    [undefined, 'http://user:secret@api.test/x', 'http://api.test'],
    [undefined, 'http://127.0.0.1:3000/x', 'http://127.0.0.1:3000'],
    [undefined, 'http://[::1]:3000/x', 'http://[::1]:3000'],
  ])('baseURL %s + url %s → %s', (baseURL, url, origin) => {
    expect(originOf(baseURL, url)).toBe(origin);
  });

  it('sends a relative URL with no baseURL where axios in Node does: localhost', () => {
    expect(originOf(undefined, '/items')).toBe('http://localhost');
    expect(originOf(undefined, undefined)).toBe('http://localhost');
  });

  it("takes the page's origin in a browser", () => {
    const g = globalThis as { location?: unknown };
    g.location = { origin: 'https://app.example.com' };
    try {
      expect(originOf(undefined, '/items')).toBe('https://app.example.com');
      expect(originOf(undefined, '//cdn.example.com/x')).toBe('https://cdn.example.com');
    } finally {
      delete g.location;
    }
  });
});
