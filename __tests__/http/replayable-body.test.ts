import { Readable } from 'node:stream';
import { isReplayableBody } from '../../src/http/replayable-body';

describe('isReplayableBody', () => {
  it.each([
    ['no body', undefined],
    ['a null body', null],
    ['a string', '{"a":1}'],
    ['a number', 42],
    ['a plain object', { a: 1 }],
    ['a Buffer', Buffer.from('abc')],
    ['an ArrayBuffer', new ArrayBuffer(4)],
    ['a Uint8Array', new Uint8Array(4)],
    ['URLSearchParams', new URLSearchParams('a=1')],
    ['FormData', new FormData()],
    ['a Blob', new Blob(['abc'])],
  ])('%s can be sent again', (_label, body) => {
    expect(isReplayableBody(body)).toBe(true);
  });

  it.each([
    ['a Node stream', Readable.from(['a'])],
    ['an object with pipe()', { pipe: () => undefined }],
    [
      'an async iterable',
      (async function* chunks() {
        yield 'a';
      })(),
    ],
    ['a web ReadableStream', new ReadableStream()],
  ])('%s cannot', (_label, body) => {
    expect(isReplayableBody(body)).toBe(false);
  });
});
