// The Warning headers of a response, as kube-apiserver's warning recorder writes them
// (k8s.io/apiserver endpoints/filters/warning.go): each text once, as `299 - "<text>"`; while
// they fit in 4096 characters (runes) in all, whole; past that, every warning cut to 256
// characters, and none added once the cut ones fill the 4096. A text with a control character
// is dropped, as NewWarningHeader refuses it.
//
// Header values go out as bytes: Go writes the text's UTF-8, and so do we, by handing node each
// UTF-8 byte as one latin1 character (node refuses a header character above U+00FF).

const TOTAL_RUNES = 4 * 1024;
const ITEM_RUNES = 256;

/** unicode.IsControl: C0, DEL and C1. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const NON_ASCII = /[^\u0000-\u007f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function runeLength(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

function firstRunes(text: string, count: number): string {
  return Array.from(text).slice(0, count).join('');
}

/** RFC 7234 warn-code 299 with an unknown agent; only `"` and `\` are escaped, as Go's makeQuotedString does. */
function headerValue(text: string): string | undefined {
  if (CONTROL.test(text)) return undefined;
  const value = `299 - "${text.replace(/["\\]/g, '\\$&')}"`;
  return NON_ASCII.test(value) ? Buffer.from(value, 'utf8').toString('latin1') : value;
}

/** The Warning header values for warnings recorded in this order. */
export function warningHeaders(warnings: readonly string[]): string[] {
  if (warnings.length === 0) return [];
  const seen = new Set<string>();
  const recorded: string[] = [];
  let headers: string[] = [];
  let written = 0;
  let truncating = false;
  for (const raw of warnings) {
    if (raw === '') continue;
    if (truncating && written >= TOTAL_RUNES) break;
    if (seen.has(raw)) continue;
    seen.add(raw);
    // Go's strings hold no lone surrogates: its decoders have already made them U+FFFD.
    const text = raw.replace(LONE_SURROGATE, '\ufffd');
    recorded.push(text);
    let length = runeLength(text);
    let kept = text;
    if (truncating && length > ITEM_RUNES) {
      kept = firstRunes(text, ITEM_RUNES);
      length = ITEM_RUNES;
    }
    const value = headerValue(kept);
    if (value === undefined) continue;
    if (truncating || written + length <= TOTAL_RUNES) {
      written += length;
      headers.push(value);
      continue;
    }
    // Over the limit for the first time: start again with every warning so far cut short.
    truncating = true;
    written = 0;
    headers = [];
    for (const earlier of recorded) {
      const earlierLength = runeLength(earlier);
      const cut = earlierLength > ITEM_RUNES ? firstRunes(earlier, ITEM_RUNES) : earlier;
      const earlierValue = headerValue(cut);
      if (earlierValue === undefined) continue;
      written += Math.min(earlierLength, ITEM_RUNES);
      headers.push(earlierValue);
    }
  }
  return headers;
}
