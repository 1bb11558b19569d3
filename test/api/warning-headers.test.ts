// The Warning headers of a response, checked against the rules of kube-apiserver's warning
// recorder (endpoints/filters/warning.go and its tests), at its real limits: 4096 characters in
// all, 256 per warning once over.
import { describe, expect, it } from 'vitest';
import { warningHeaders } from '../../runtime/api/warning-headers.js';

/** What the client reads: the header's bytes as UTF-8. */
const onTheWire = (values: string[]) => values.map((v) => Buffer.from(v, 'latin1').toString('utf8'));

describe('warningHeaders', () => {
  it('writes each warning once, quoted with " and \\ escaped, in order', () => {
    expect(warningHeaders(['a', 'b "quoted" \\', 'a', ''])).toEqual(['299 - "a"', '299 - "b \\"quoted\\" \\\\"']);
  });

  it('sends non-ASCII text as its UTF-8 bytes, each a header character node accepts', () => {
    const values = warningHeaders(['unknown field "日本"', 'Iñtërnâtiônàlizætiøn 🎉']);
    for (const v of values) expect(v).toMatch(/^[\x20-\x7e\x80-\xff]*$/);
    expect(onTheWire(values)).toEqual(['299 - "unknown field \\"日本\\""', '299 - "Iñtërnâtiônàlizætiøn 🎉"']);
  });

  it('drops a warning with a control character, as NewWarningHeader refuses it', () => {
    expect(warningHeaders(['bell \u0007', 'tab\there', 'c1 \u0085', 'kept'])).toEqual(['299 - "kept"']);
  });

  it('keeps warnings whole up to 4096 characters in all', () => {
    const sixteen = Array.from({ length: 16 }, (_, i) => String.fromCharCode(97 + i).repeat(256));
    expect(warningHeaders(sixteen)).toEqual(sixteen.map((w) => `299 - "${w}"`));
  });

  it('past 4096, cuts every warning to 256 characters, and adds none once those fill 4096', () => {
    const warnings = Array.from({ length: 20 }, (_, i) => String.fromCharCode(97 + i).repeat(300));
    const values = warningHeaders(warnings);
    // 13 fit whole (3900); the 14th overflows: all are cut to 256, 16 of them make 4096, the rest are dropped.
    expect(values).toEqual(warnings.slice(0, 16).map((w) => `299 - "${w.slice(0, 256)}"`));
  });

  it('cuts on character boundaries, never inside a surrogate pair', () => {
    const emoji = '🎉'.repeat(5000);
    const [value] = warningHeaders([emoji]);
    expect(onTheWire([value])).toEqual([`299 - "${'🎉'.repeat(256)}"`]);
  });

  it('sends a lone surrogate as U+FFFD, as Go holds it after decoding', () => {
    expect(onTheWire(warningHeaders(['bad \ud800 half']))).toEqual(['299 - "bad \ufffd half"']);
  });
});
