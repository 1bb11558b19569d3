// A rule's fieldPath (apiextensions ValidFieldPath): a JSON-path-like chain of `.name` and
// `['name']` steps below the rule's node, each naming a declared property, or a key of a map
// (additionalProperties). Array indexes are not part of it. Returns the path kube reports the
// error at (field.Path rendering: `.a.b`, `['x.y']` -> `a[x.y]`) or why it is not valid.

type Schema = Record<string, unknown>;

const obj = (v: unknown): Schema | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Schema) : undefined);

const ESCAPES: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', "'": "'", '\\': '\\' };

function unescapeSingleQuoted(s: string): string {
  return s.replace(/\\(.)/g, (m, c: string) => {
    const out = ESCAPES[c];
    if (out === undefined) throw new Error(`invalid string literal: invalid escape char ${m}`);
    return out;
  });
}

/** Splits a path into tokens: `.`, `[`, `]`, quoted strings and names (kube's scanner). */
function tokens(path: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < path.length) {
    if (path[i] === "'") {
      let j = i + 1;
      while (j < path.length && !(path[j] === "'" && path[j - 1] !== '\\')) j++;
      out.push(path.slice(i, j + 1));
      i = j + 1;
      continue;
    }
    if ('.[]'.includes(path[i])) {
      out.push(path[i]);
      i++;
      continue;
    }
    let j = i;
    while (j < path.length && !'.[]'.includes(path[j]) && path[j] !== "'") j++;
    if (j === i) j++;
    out.push(path.slice(i, j));
    i = j;
  }
  return out;
}

export interface FieldPathResult {
  /** The normalized path, e.g. `spec.foo` or `labels[a.b]`. */
  path: string;
  schema: Schema;
}

export function validFieldPath(fieldPath: string, schema: Schema): FieldPathResult {
  let path = '';
  let current = schema;
  const step = (name: string): void => {
    const props = obj(current.properties);
    if (props) {
      const next = obj(props[name]);
      if (!next) throw new Error('does not refer to a valid field');
      path = path === '' ? name : `${path}.${name}`;
      current = next;
      return;
    }
    const additional = obj(current.additionalProperties);
    if (!additional) throw new Error('does not refer to a valid field');
    path = `${path}[${name}]`;
    current = additional;
  };
  const toks = tokens(fieldPath);
  for (let i = 0; i < toks.length; i++) {
    const tok = toks[i];
    if (tok === '[') {
      const quoted = toks[++i];
      if (quoted === undefined) throw new Error('unexpected end of JSON path');
      if (quoted.length < 2 || quoted[0] !== "'" || quoted[quoted.length - 1] !== "'") throw new Error(`expected single quoted string but got ${quoted}`);
      step(unescapeSingleQuoted(quoted.slice(1, -1)));
      const close = toks[++i];
      if (close === undefined) throw new Error('unexpected end of JSON path');
      if (close !== ']') throw new Error(`expected ] but got ${close}`);
    } else if (tok === '.') {
      const name = toks[++i];
      if (name === undefined) throw new Error('unexpected end of JSON path');
      step(name);
    } else {
      throw new Error(`expected [ or . but got: ${tok}`);
    }
  }
  return { path, schema: current };
}
