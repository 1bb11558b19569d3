// The Fetch standard's Headers, for the answers the server makes and the requests it reads. Node
// has one (undici's), but reaching any of the fetch globals loads all of undici: its sources, its
// HTTP parser compiled to WebAssembly and the engine that compiles it, about 7 MB of a server's
// memory and 25 ms of its start, for a client the server never uses to serve. kube's handlers
// write to Go's http.Header, which every layer shares from the standard library; this class
// stands where that does, with the Fetch standard's rules: names are case-insensitive and listed
// lowercase in sorted order, a name's values are joined with ", " (each Set-Cookie kept apart),
// values lose their leading and trailing whitespace, and a name or value HTTP cannot carry is a
// TypeError.

/** An HTTP token (RFC 9110 5.6.2): what a header name may be. */
export const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/**
 * What a header value may not hold once trimmed: NUL, CR, LF, and any character above U+00FF (a
 * value is a ByteString, one byte per character; node refuses those too, but only when it writes).
 */
const FORBIDDEN_IN_VALUE = /[\0\r\n\u0100-\uffff]/;

const isHttpWhitespace = (code: number) => code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;

/** A value without leading and trailing HTTP whitespace (tab, LF, CR, space). */
export function normalizeHeaderValue(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && isHttpWhitespace(value.charCodeAt(start))) start++;
  while (end > start && isHttpWhitespace(value.charCodeAt(end - 1))) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

function checkedName(name: string): string {
  const text = String(name);
  if (!TOKEN.test(text)) throw new TypeError(`Headers: invalid header name ${JSON.stringify(text)}`);
  return text.toLowerCase();
}

function checkedValue(name: string, value: string): string {
  const text = normalizeHeaderValue(String(value));
  if (FORBIDDEN_IN_VALUE.test(text)) throw new TypeError(`Headers: invalid value for header ${JSON.stringify(name)}`);
  return text;
}

type Init = ConstructorParameters<typeof globalThis.Headers>[0];
/**
 * The iterators the Fetch types promise carry ES2025's iterator helpers, which neither Node 20's V8
 * nor undici's own iterators have: generators stand in for them, as undici's do, under that type.
 */
type EntryIterator = ReturnType<globalThis.Headers['entries']>;
type TextIterator = ReturnType<globalThis.Headers['keys']>;

export class HttpHeaders implements globalThis.Headers {
  /** Lowercase name to its values, in the order they were added. */
  #values = new Map<string, string[]>();

  constructor(init?: Init) {
    if (init === undefined || init === null) return;
    if (typeof init !== 'object') throw new TypeError('Headers: init must be an object, an iterable of pairs or a Headers');
    if (Symbol.iterator in init) {
      for (const pair of init as Iterable<Iterable<string>>) {
        // A string is iterable too, but not a pair: the standard takes only sequences here.
        if (typeof pair !== 'object' || pair === null) throw new TypeError('Headers: each header of an init sequence must be a [name, value] pair');
        const entry = [...pair];
        if (entry.length !== 2) throw new TypeError('Headers: each header of an init sequence must be a [name, value] pair');
        this.append(entry[0], entry[1]);
      }
      return;
    }
    for (const name of Object.keys(init)) this.append(name, (init as Record<string, string>)[name]);
  }

  append(name: string, value: string): void {
    const key = checkedName(name);
    const text = checkedValue(key, value);
    const list = this.#values.get(key);
    if (list) list.push(text);
    else this.#values.set(key, [text]);
  }

  set(name: string, value: string): void {
    const key = checkedName(name);
    this.#values.set(key, [checkedValue(key, value)]);
  }

  delete(name: string): void {
    this.#values.delete(checkedName(name));
  }

  get(name: string): string | null {
    const list = this.#values.get(checkedName(name));
    if (!list) return null;
    return list.length === 1 ? list[0] : list.join(', ');
  }

  has(name: string): boolean {
    return this.#values.has(checkedName(name));
  }

  getSetCookie(): string[] {
    return [...(this.#values.get('set-cookie') ?? [])];
  }

  forEach(callback: (value: string, key: string, parent: globalThis.Headers) => void, thisArg?: unknown): void {
    for (const [key, value] of this.#entries()) callback.call(thisArg, value, key, this);
  }

  entries(): EntryIterator {
    return this.#entries() as unknown as EntryIterator;
  }

  *#entries(): Generator<[string, string]> {
    for (const key of [...this.#values.keys()].sort()) {
      const list = this.#values.get(key)!;
      if (key === 'set-cookie') {
        for (const value of list) yield [key, value];
      } else {
        yield [key, list.length === 1 ? list[0] : list.join(', ')];
      }
    }
  }

  keys(): TextIterator {
    return (function* (entries) {
      for (const [key] of entries) yield key;
    })(this.#entries()) as unknown as TextIterator;
  }

  values(): TextIterator {
    return (function* (entries) {
      for (const [, value] of entries) yield value;
    })(this.#entries()) as unknown as TextIterator;
  }

  [Symbol.iterator](): EntryIterator {
    return this.entries();
  }

  /**
   * The headers as node writes them: lowercase names, repeated values joined as get() joins them,
   * Set-Cookie as a list.
   */
  toNodeHeaders(): Record<string, string | string[]> {
    const out: Record<string, string | string[]> = {};
    for (const [key, list] of this.#values) {
      out[key] = key === 'set-cookie' ? [...list] : list.length === 1 ? list[0] : list.join(', ');
    }
    return out;
  }

  get [Symbol.toStringTag](): string {
    return 'Headers';
  }
}

/** Made with `new Headers(...)` where node's would be; typed as the standard's Headers. */
export const Headers = HttpHeaders;
export type Headers = globalThis.Headers;
