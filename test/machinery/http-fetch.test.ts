// The server's own Fetch Headers and Response (runtime/machinery/http), which stand where Node's
// undici classes would: each rule of the Fetch standard they keep, checked against undici's own
// classes (globalThis.Headers and globalThis.Response, loaded here only) where both should agree,
// and the few places they differ on purpose stated as ours.
import { describe, expect, it } from 'vitest';
import { Headers, HttpHeaders } from '../../runtime/machinery/http/headers.js';
import { Response, writtenResponse } from '../../runtime/machinery/http/response.js';

type HeadersClass = new (init?: ConstructorParameters<typeof globalThis.Headers>[0]) => globalThis.Headers;
type ResponseClass = new (...args: ConstructorParameters<typeof globalThis.Response>) => globalThis.Response;

const undiciHeaders = globalThis.Headers as HeadersClass;
const undiciResponse = globalThis.Response as ResponseClass;

/** What `make` gives with ours and with undici's: the value, or the error's class when it throws. */
function withBoth<T>(make: (H: HeadersClass) => T): { ours: T | string; undici: T | string } {
  const run = (H: HeadersClass) => {
    try {
      return make(H);
    } catch (err) {
      return (err as Error).constructor.name;
    }
  };
  return { ours: run(Headers), undici: run(undiciHeaders) };
}

async function withBothResponses<T>(make: (R: ResponseClass) => T | Promise<T>): Promise<{ ours: T | string; undici: T | string }> {
  const run = async (R: ResponseClass) => {
    try {
      return await make(R);
    } catch (err) {
      return (err as Error).constructor.name;
    }
  };
  return { ours: await run(Response), undici: await run(undiciResponse) };
}

const bytesOf = (text: string) => new TextEncoder().encode(text);

function streamOf(...chunks: string[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(bytesOf(chunk));
      controller.close();
    },
  });
}

describe('Headers', () => {
  it('lists names lowercase and sorted, whatever order and case they were given in', () => {
    const both = withBoth((H) => [...new H({ 'X-Zeta': '1', accept: '2', 'Content-Type': '3', 'x-alpha': '4' })]);
    expect(both.ours).toEqual([['accept', '2'], ['content-type', '3'], ['x-alpha', '4'], ['x-zeta', '1']]);
    expect(both.ours).toEqual(both.undici);
  });

  it('joins a name\'s repeated values with ", " and keeps each Set-Cookie apart', () => {
    const both = withBoth((H) => {
      const h = new H();
      h.append('Warning', '299 - "one"');
      h.append('warning', '299 - "two"');
      h.append('Set-Cookie', 'a=1; Path=/');
      h.append('set-cookie', 'b=2, c=3');
      return { get: h.get('WARNING'), cookie: h.get('set-cookie'), cookies: h.getSetCookie(), entries: [...h], keys: [...h.keys()], values: [...h.values()] };
    });
    expect(both.ours).toEqual({
      get: '299 - "one", 299 - "two"',
      cookie: 'a=1; Path=/, b=2, c=3',
      cookies: ['a=1; Path=/', 'b=2, c=3'],
      entries: [['set-cookie', 'a=1; Path=/'], ['set-cookie', 'b=2, c=3'], ['warning', '299 - "one", 299 - "two"']],
      keys: ['set-cookie', 'set-cookie', 'warning'],
      values: ['a=1; Path=/', 'b=2, c=3', '299 - "one", 299 - "two"'],
    });
    expect(both.ours).toEqual(both.undici);
  });

  it('trims leading and trailing HTTP whitespace from values and keeps what is inside', () => {
    const both = withBoth((H) => {
      const h = new H({ a: ' \t\r\n v \t w \n', b: '', c: '\t' });
      h.append('d', '  x  ');
      h.set('e', '\r\ny\r\n');
      return [...h];
    });
    expect(both.ours).toEqual([['a', 'v \t w'], ['b', ''], ['c', ''], ['d', 'x'], ['e', 'y']]);
    expect(both.ours).toEqual(both.undici);
  });

  it('set replaces every value of a name, delete removes them all, has and get ignore case', () => {
    const both = withBoth((H) => {
      const h = new H([['Accept', 'a'], ['accept', 'b'], ['x', '1']]);
      h.set('ACCEPT', 'c');
      h.delete('X');
      return { entries: [...h], has: [h.has('Accept'), h.has('x')], missing: h.get('x') };
    });
    expect(both.ours).toEqual({ entries: [['accept', 'c']], has: [true, false], missing: null });
    expect(both.ours).toEqual(both.undici);
  });

  it('is made from a record, a sequence of pairs or another Headers, keeping repeats and cookies', () => {
    const both = withBoth((H) => {
      const source = new H([['a', '1'], ['A', '2'], ['set-cookie', 'x=1'], ['set-cookie', 'y=2']]);
      const pairs = new Map([['b', '3'], ['c', '4']]);
      return { copy: [...new H(source)], fromMap: [...new H(pairs as unknown as HeadersInit)], fromRecord: [...new H({ b: 3 as unknown as string })] };
    });
    expect(both.ours).toEqual({
      copy: [['a', '1, 2'], ['set-cookie', 'x=1'], ['set-cookie', 'y=2']],
      fromMap: [['b', '3'], ['c', '4']],
      fromRecord: [['b', '3']],
    });
    expect(both.ours).toEqual(both.undici);
  });

  it('forEach visits the entries in order with the Headers as its third argument and this as given', () => {
    const seen: unknown[] = [];
    const h = new Headers({ b: '2', a: '1' });
    const self = {};
    h.forEach(function (this: unknown, value, key, parent) {
      seen.push([key, value, parent === h, this === self]);
    }, self);
    expect(seen).toEqual([['a', '1', true, true], ['b', '2', true, true]]);
    expect(Object.prototype.toString.call(h)).toBe('[object Headers]');
  });

  it('toNodeHeaders gives node lowercase names, joined repeats and Set-Cookie as a list', () => {
    const h = new HttpHeaders([['Content-Type', 'application/json'], ['Warning', 'a'], ['warning', 'b'], ['Set-Cookie', 'x=1']]);
    expect(h.toNodeHeaders()).toEqual({ 'content-type': 'application/json', warning: 'a, b', 'set-cookie': ['x=1'] });
  });

  describe('hostile input', () => {
    const pairs = (list: unknown[]) => list as [string, string][];
    it.each<[string, (H: HeadersClass) => unknown]>([
      ['a space in a name', (H) => new H({ 'a b': 'x' })],
      ['an empty name', (H) => new H({ '': 'x' })],
      ['a colon in a name', (H) => new H([['a:b', 'x']])],
      ['a non-ASCII name', (H) => new H({ 'é': 'x' })],
      ['a name with a newline', (H) => new H().append('a\nb', 'x')],
      ['NUL in a value', (H) => new H({ a: 'x\0y' })],
      ['LF inside a value', (H) => new H({ a: 'x\ny' })],
      ['CR inside a value', (H) => new H().set('a', 'x\ry')],
      ['a value splitting the response', (H) => new H().append('location', '/\r\nSet-Cookie: owned=1')],
      ['a character above U+00FF (not a ByteString)', (H) => new H({ a: 'ā' })],
      ['an emoji value', (H) => new H().append('a', '😀')],
      ['get with an invalid name', (H) => new H().get('a b')],
      ['has with an invalid name', (H) => new H().has('a\tb')],
      ['delete with an invalid name', (H) => new H().delete('(a)')],
      ['a pair of three', (H) => new H(pairs([['a', 'b', 'c']]))],
      ['a pair of one', (H) => new H(pairs([['a']]))],
      ['a two-letter string as a pair', (H) => new H(pairs(['ab']))],
      ['null as a pair', (H) => new H(pairs([null]))],
      ['a number as init', (H) => new H(5 as unknown as HeadersInit)],
      ['a string as init', (H) => new H('a: b' as unknown as HeadersInit)],
    ])('refuses %s with a TypeError, as undici does', (_, make) => {
      expect(withBoth(make)).toEqual({ ours: 'TypeError', undici: 'TypeError' });
    });

    it('takes Latin-1 above ASCII as it is, a ByteString, as undici does', () => {
      const both = withBoth((H) => [new H({ a: 'caf\u00e9' }).get('a'), new H({ a: '\u00ff\u0080' }).get('a')]);
      expect(both.ours).toEqual(['café', '\u00ff\u0080']);
      expect(both.ours).toEqual(both.undici);
    });
  });
});

describe('Response', () => {
  it('takes statuses 200 to 599 and refuses others with a RangeError, as undici does', async () => {
    for (const status of [99, 100, 101, 103, 199, 600, 1000, -200, 0]) {
      const both = await withBothResponses((R) => new R(null, { status }).status);
      expect(both.ours, `status ${status}`).toBe('RangeError');
      expect(both.undici, `status ${status}`).toBe('RangeError');
    }
    for (const status of [200, 204, 299, 304, 404, 599]) {
      const both = await withBothResponses((R) => new R(null, { status }).status);
      expect(both).toEqual({ ours: status, undici: status });
    }
  });

  it('refuses a body with a null-body status (204, 205, 304) with a TypeError, even an empty one', async () => {
    for (const status of [204, 205, 304]) {
      for (const body of ['x', '', new Uint8Array(0)]) {
        const both = await withBothResponses((R) => new R(body, { status }));
        expect(both, `${status} with ${JSON.stringify(body)}`).toEqual({ ours: 'TypeError', undici: 'TypeError' });
      }
      const both = await withBothResponses((R) => new R(null, { status }).status);
      expect(both).toEqual({ ours: status, undici: status });
    }
  });

  it('gives a URLSearchParams body the form type when the headers give none, as undici does', async () => {
    const types = await withBothResponses(async (R) => [new R(new URLSearchParams({ a: 'b' })).headers.get('content-type'), new R(new URLSearchParams({ a: 'b' }), { headers: { 'Content-Type': 'text/x-mine' } }).headers.get('content-type')]);
    expect(types.ours).toEqual(types.undici);
    expect(types.ours).toEqual(['application/x-www-form-urlencoded;charset=UTF-8', 'text/x-mine']);
  });

  it('reads a string, bytes, an ArrayBuffer, a view, URLSearchParams and a stream as undici does', async () => {
    const view = new Uint8Array([0, 104, 105, 0]);
    const bodies: Array<[string, () => ConstructorParameters<typeof globalThis.Response>[0]]> = [
      ['a string of multi-byte UTF-8', () => 'héllo ✓ 😀'],
      ['bytes', () => bytesOf('bytes')],
      ['an ArrayBuffer', () => bytesOf('buffer').buffer],
      ['a DataView over part of a buffer', () => new DataView(view.buffer, 1, 2)],
      ['URLSearchParams', () => new URLSearchParams({ a: 'b c', d: 'é' })],
      ['a stream in pieces', () => streamOf('str', 'eam', '')],
    ];
    for (const [what, body] of bodies) {
      const text = await withBothResponses((R) => new R(body()).text());
      const bytes = await withBothResponses(async (R) => [...(await new R(body()).bytes())]);
      const buffer = await withBothResponses(async (R) => [...new Uint8Array(await new R(body()).arrayBuffer())]);
      expect(text.ours, what).toEqual(text.undici);
      expect(bytes.ours, what).toEqual(bytes.undici);
      expect(buffer.ours, what).toEqual(buffer.undici);
    }
    expect(await new Response('{"a":[1,"é"]}').json()).toEqual({ a: [1, 'é'] });
    expect(await new Response(null).text()).toBe('');
  });

  it('gives bytes the caller owns: changing them leaves the body as it was made', async () => {
    const given = bytesOf('abc');
    const res = new Response(given);
    const read = await res.bytes();
    read[0] = 0x7a;
    expect(new TextDecoder().decode(given)).toBe('abc');
  });

  it('refuses Blob and FormData bodies with a TypeError (undici takes them; the server never makes them)', () => {
    expect(() => new Response(new Blob(['x']))).toThrow(TypeError);
    expect(() => new Response(new FormData())).toThrow(TypeError);
  });

  it('refuses to read a body twice with a TypeError, by any reader, as undici does', async () => {
    const readers: Array<(r: globalThis.Response) => Promise<unknown>> = [(r) => r.text(), (r) => r.bytes(), (r) => r.arrayBuffer(), (r) => r.json(), (r) => r.blob()];
    for (const first of readers) {
      for (const second of readers) {
        for (const body of ['"x"', bytesOf('"x"')]) {
          const both = await withBothResponses(async (R) => {
            const res = new R(body);
            await first(res);
            return [res.bodyUsed, await second(res)];
          });
          expect(both.ours).toBe('TypeError');
          expect(both.undici).toBe('TypeError');
        }
      }
    }
    const streamed = await withBothResponses(async (R) => {
      const res = new R(streamOf('a'));
      await res.text();
      return res.text();
    });
    expect(streamed).toEqual({ ours: 'TypeError', undici: 'TypeError' });
  });

  it('says ok for 2xx only, with the standard\'s fixed fields', async () => {
    const both = await withBothResponses((R) => [200, 201, 299, 300, 404, 500].map((status) => new R(null, { status }).ok));
    expect(both.ours).toEqual([true, true, true, false, false, false]);
    expect(both.ours).toEqual(both.undici);
    const fields = await withBothResponses((R) => {
      const res = new R(null, { statusText: 'Fine' });
      return [res.type, res.url, res.redirected, res.statusText, new R(null).statusText, Object.prototype.toString.call(res)];
    });
    expect(fields.ours).toEqual(['default', '', false, 'Fine', '', '[object Response]']);
    expect(fields.ours).toEqual(fields.undici);
  });

  it('keeps a plain object of headers as given until .headers is read, then gives the standard\'s Headers', () => {
    const given = { 'Content-Type': 'application/json', 'X-Padded': ' v ' };
    const res = new Response('{}', { status: 201, headers: given });
    expect(writtenResponse(res)).toEqual({ content: '{}', headers: given });
    expect(writtenResponse(res)!.headers).toBe(given);
    expect([...res.headers]).toEqual([['content-type', 'application/json'], ['x-padded', 'v']]);
    expect(writtenResponse(res)!.headers).toBeInstanceOf(HttpHeaders);
    // The object the handler gave is never changed by any of it.
    expect(given).toEqual({ 'Content-Type': 'application/json', 'X-Padded': ' v ' });
  });

  it('makes Headers at once from pairs or a Headers, and refuses invalid ones at once', () => {
    const res = new Response(null, { headers: [['A', '1'], ['a', '2']] });
    expect(writtenResponse(res)!.headers).toBeInstanceOf(HttpHeaders);
    expect(res.headers.get('a')).toBe('1, 2');
    expect(() => new Response(null, { headers: [['a b', '1']] })).toThrow(TypeError);
    // A plain object is checked when its Headers are first made, as the writer never makes them.
    const plain = new Response(null, { headers: { 'a b': '1' } });
    expect(() => plain.headers).toThrow(TypeError);
  });

  it('gives the body as a stream, its bytes once, then used', async () => {
    const res = new Response('héllo');
    const reader = res.body!.getReader();
    const chunks: number[] = [];
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(...r.value);
    expect(new TextDecoder().decode(new Uint8Array(chunks))).toBe('héllo');
    expect(new Response(null).body).toBeNull();
    // writtenResponse then hands the writer the stream, not the string, so it is not written twice.
    const streamed = new Response('x');
    const body = streamed.body;
    expect(writtenResponse(streamed)!.content).toBe(body);
  });

  it('clones a body into two that each read it whole, a stream teed, and refuses to clone a used one', async () => {
    for (const make of [() => new Response('héllo'), () => new Response(bytesOf('héllo')), () => new Response(streamOf('hé', 'llo'))]) {
      const res = make();
      const copy = res.clone();
      expect(await copy.text()).toBe('héllo');
      expect(await res.text()).toBe('héllo');
      expect(() => res.clone()).toThrow(TypeError);
    }
    const withHeaders = new Response('x', { status: 202, statusText: 'Queued', headers: { 'x-a': '1' } });
    const copy = withHeaders.clone();
    expect([copy.status, copy.statusText, [...copy.headers]]).toEqual([202, 'Queued', [['x-a', '1']]]);
    // The copy's Headers are its own.
    copy.headers.set('x-a', '2');
    expect(withHeaders.headers.get('x-a')).toBe('1');
  });

  it('gives a blob typed by its Content-Type', async () => {
    const both = await withBothResponses(async (R) => {
      const blob = await new R('héllo', { headers: { 'content-type': 'text/x-test' } }).blob();
      return [blob.type, blob.size, await blob.text()];
    });
    expect(both.ours).toEqual(['text/x-test', 6, 'héllo']);
    expect(both.ours).toEqual(both.undici);
  });

  it('leaves the default Content-Type of a string body to the writer (undici puts it in the headers)', async () => {
    const both = await withBothResponses((R) => new R('x').headers.get('content-type'));
    expect(both).toEqual({ ours: null, undici: 'text/plain;charset=UTF-8' });
  });
});
