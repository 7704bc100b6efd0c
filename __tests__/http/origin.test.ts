import { originOf } from '../../src/http/origin';

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
    // A default port is left out for its own scheme only, and only as the whole port.
    [undefined, 'https://api.example.com:4430/x', 'https://api.example.com:4430'],
    [undefined, 'http://api.example.com:443/x', 'http://api.example.com:443'],
    [undefined, 'git+http://api.example.com:80/x', 'git+http://api.example.com:80'],
    [undefined, 'git+https://api.example.com:443/x', 'git+https://api.example.com:443'],
  ])('baseURL %s + url %s → %s', (baseURL, url, origin) => {
    expect(originOf(baseURL, url)).toBe(origin);
  });

  it('takes a relative URL that holds another URL for a relative one', () => {
    expect(originOf('https://api.example.com', 'go?to=http://other.test/x')).toBe(
      'https://api.example.com',
    );
    expect(originOf('https://api.example.com', 'redirect/https://other.test')).toBe(
      'https://api.example.com',
    );
    expect(originOf(undefined, 'redirect/https://other.test')).toBe('http://localhost');
  });

  it('takes a protocol-relative URL for an absolute one, whatever the baseURL', () => {
    // (the scheme is the page's, or http in Node, as in the test above)
    expect(originOf('https://api.example.com', '//cdn.example.com/x')).toMatch(
      /^https?:\/\/cdn\.example\.com$/,
    );
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

  it("falls back to localhost when the page's origin is opaque ('null')", () => {
    const g = globalThis as { location?: unknown };
    g.location = { origin: 'null' };
    try {
      expect(originOf(undefined, '/items')).toBe('http://localhost');
    } finally {
      delete g.location;
    }
  });
});
