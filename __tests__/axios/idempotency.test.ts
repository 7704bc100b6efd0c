import { AxiosHeaders } from 'axios';
import { readHeader, stampIdempotencyKey } from '../../src/axios/idempotency';
import { resolveClientOptions } from '../../src/options/options';

const withKeys = resolveClientOptions({ idempotencyKey: { generate: () => 'k-1' } }).options;

describe('readHeader', () => {
  it('reads a header in any case, from axios headers or a plain object', () => {
    expect(readHeader(new AxiosHeaders({ 'Idempotency-Key': 'a' }), 'idempotency-key')).toBe('a');
    expect(readHeader({ 'IDEMPOTENCY-KEY': 'b' }, 'Idempotency-Key')).toBe('b');
  });

  it.each([
    ['no headers', null],
    ['undefined headers', undefined],
    ['a header set to null', { 'Idempotency-Key': null }],
    ['a header set to undefined', { 'Idempotency-Key': undefined }],
    ['a header set to false (axios: do not send)', { 'Idempotency-Key': false }],
  ])('finds nothing in %s', (_label, headers) => {
    expect(readHeader(headers, 'Idempotency-Key')).toBeUndefined();
  });

  it('reads a header set to true as "true"', () => {
    expect(readHeader({ 'Idempotency-Key': true }, 'Idempotency-Key')).toBe('true');
  });
});

describe('stampIdempotencyKey', () => {
  it('writes a new key into axios headers and into a plain object', () => {
    const headers = new AxiosHeaders();
    expect(stampIdempotencyKey(headers, 'post', withKeys)).toBe('k-1');
    expect(headers.get('Idempotency-Key')).toBe('k-1');
    const plain: Record<string, unknown> = {};
    expect(stampIdempotencyKey(plain, 'patch', withKeys)).toBe('k-1');
    expect(plain).toEqual({ 'Idempotency-Key': 'k-1' });
  });

  it("keeps the caller's key, even with keys off", () => {
    const off = resolveClientOptions().options;
    expect(stampIdempotencyKey({ 'idempotency-key': 'mine' }, 'post', off)).toBe('mine');
  });

  it('writes nothing for a method outside idempotencyKey.methods, or with keys off', () => {
    const headers: Record<string, unknown> = {};
    expect(stampIdempotencyKey(headers, 'get', withKeys)).toBeUndefined();
    expect(stampIdempotencyKey(headers, undefined, withKeys)).toBeUndefined();
    expect(stampIdempotencyKey(headers, 'post', resolveClientOptions().options)).toBeUndefined();
    expect(headers).toEqual({});
  });

  it.each([
    ['an empty string', ''],
    ['a number', 42],
  ])('refuses a generator that returns %s', (_label, key) => {
    const options = resolveClientOptions({
      idempotencyKey: { generate: () => key as string },
    }).options;
    expect(() => stampIdempotencyKey({}, 'post', options)).toThrow(
      /`idempotencyKey.generate\(\)` must be a non-empty string/,
    );
  });
});
