// The CEL view of a structural schema (apiserver pkg/cel/common SchemaDeclType): which type each
// node has in a rule, which properties a rule can name (escaped as kube escapes them), and the
// size facts the cost estimator needs (the most elements a list, map or string may hold, taken
// from maxItems / maxProperties / maxLength, or else from how many of them fit in one request).

/** celconfig.MaxRequestSizeBytes: the size assumed for anything without a declared bound. */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;
const MIN_STRING_SIZE = 2;
const MIN_BOOL_SIZE = 4;
const MIN_NUMBER_SIZE = 1;
const MAX_DURATION_SIZE_JSON = 32;
const MAX_DATETIME_SIZE_JSON = 32;
const MIN_DURATION_SIZE_JSON = 3;
const JSON_DATE_SIZE = 12;
const MIN_DATETIME_SIZE_JSON = 21;

export type Schema = Record<string, unknown>;

export type DeclKind = 'object' | 'map' | 'list' | 'string' | 'bytes' | 'int' | 'double' | 'bool' | 'duration' | 'timestamp' | 'dyn';

export interface DeclField {
  /** The property's name in JSON. */
  jsonName: string;
  decl: DeclNode;
}

export interface DeclNode {
  kind: DeclKind;
  schema: Schema;
  /** Escaped CEL name -> field, for objects. */
  fields?: Map<string, DeclField>;
  /** List items or map values. */
  elem?: DeclNode;
  /** Most elements (list items, map entries, string bytes) a value can have. */
  maxElements: number;
  minSerializedSize: number;
  /** The object type's name in the environment, set when types are registered. */
  typeName?: string;
}

const RESERVED = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if',
  'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while',
]);

/** Escape (apiserver pkg/cel/escaping.go): a property name as rules spell it, or undefined when rules cannot name it. */
export function escapeName(name: string): string | undefined {
  if (name === '' || (name[0] >= '0' && name[0] <= '9')) return undefined;
  if (RESERVED.has(name)) return `__${name}__`;
  let out = '';
  for (let i = 0; i < name.length; i++) {
    const c = name[i];
    if (c === '_' && name[i + 1] === '_') {
      out += '__underscores__';
      i++;
    } else if (c === '.') out += '__dot__';
    else if (c === '-') out += '__dash__';
    else if (c === '/') out += '__slash__';
    else if (/[a-zA-Z0-9_]/.test(c)) out += c;
    else return undefined;
  }
  return out;
}

const obj = (v: unknown): Schema | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Schema) : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' ? Math.max(0, v) : undefined);

export const isIntOrString = (s: Schema): boolean => s['x-kubernetes-int-or-string'] === true;
export const isEmbedded = (s: Schema): boolean => s['x-kubernetes-embedded-resource'] === true;

/** WithTypeAndObjectMeta: a resource root always lets rules read apiVersion, kind, metadata.name and metadata.generateName. */
function withTypeAndObjectMeta(s: Schema): Schema {
  const props = obj(s.properties) ?? {};
  const meta = obj(props.metadata);
  const metaProps = obj(meta?.properties);
  const isString = (p: unknown): boolean => obj(p)?.type === 'string';
  if (isString(props.kind) && isString(props.apiVersion) && meta?.type === 'object' && isString(metaProps?.name) && isString(metaProps?.generateName)) return s;
  return {
    ...s,
    properties: {
      ...props,
      kind: { type: 'string' },
      apiVersion: { type: 'string' },
      metadata: { type: 'object', properties: { name: { type: 'string' }, generateName: { type: 'string' } } },
    },
  };
}

function maxStringLength(s: Schema): number {
  if (isIntOrString(s)) return MAX_REQUEST_SIZE_BYTES - 2;
  switch (s.format) {
    case 'duration':
      return MAX_DURATION_SIZE_JSON;
    case 'date':
      return JSON_DATE_SIZE;
    case 'date-time':
      return MAX_DATETIME_SIZE_JSON;
    default:
      return MAX_REQUEST_SIZE_BYTES - 2;
  }
}

/** SchemaDeclType: undefined where a schema is not visible to rules. */
export function schemaDecl(s: Schema | undefined, isResourceRoot: boolean): DeclNode | undefined {
  if (!s) return undefined;
  if (isIntOrString(s)) {
    const maxLength = num(s.maxLength);
    return { kind: 'dyn', schema: s, maxElements: maxLength !== undefined ? maxLength * 4 : maxStringLength(s), minSerializedSize: 1 };
  }
  if (isResourceRoot) s = withTypeAndObjectMeta(s);
  switch (s.type) {
    case 'array': {
      const items = obj(s.items);
      if (!items) return undefined;
      const elem = schemaDecl(items, isEmbedded(items));
      if (!elem) return undefined;
      const maxItems = num(s.maxItems) ?? Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (elem.minSerializedSize + 1));
      return { kind: 'list', schema: s, elem, maxElements: maxItems, minSerializedSize: 2 };
    }
    case 'object': {
      const additional = obj(s.additionalProperties);
      if (additional) {
        const elem = schemaDecl(additional, isEmbedded(additional));
        if (!elem) return undefined;
        const maxProps = num(s.maxProperties) ?? Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (elem.minSerializedSize + 6));
        return { kind: 'map', schema: s, elem, maxElements: maxProps, minSerializedSize: 2 };
      }
      const fields = new Map<string, DeclField>();
      const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
      let minSerializedSize = 2;
      for (const [name, propValue] of Object.entries(obj(s.properties) ?? {})) {
        const prop = obj(propValue);
        if (!prop) continue;
        const decl = schemaDecl(prop, isEmbedded(prop));
        if (!decl) continue;
        const escaped = escapeName(name);
        if (escaped !== undefined) fields.set(escaped, { jsonName: name, decl });
        if (required.has(name) && prop.default === undefined) minSerializedSize += name.length + decl.minSerializedSize + 4;
      }
      return { kind: 'object', schema: s, fields, maxElements: 0, minSerializedSize };
    }
    case 'string': {
      const maxLength = num(s.maxLength);
      switch (s.format) {
        case 'byte':
          return { kind: 'bytes', schema: s, maxElements: maxLength ?? maxStringLength(s), minSerializedSize: MIN_STRING_SIZE };
        case 'duration':
          return { kind: 'duration', schema: s, maxElements: maxStringLength(s), minSerializedSize: MIN_DURATION_SIZE_JSON };
        case 'date':
          return { kind: 'timestamp', schema: s, maxElements: maxStringLength(s), minSerializedSize: JSON_DATE_SIZE };
        case 'date-time':
          return { kind: 'timestamp', schema: s, maxElements: maxStringLength(s), minSerializedSize: MIN_DATETIME_SIZE_JSON };
      }
      let maxElements: number;
      if (maxLength !== undefined) maxElements = maxLength * 4;
      else if (Array.isArray(s.enum) && s.enum.length > 0) maxElements = Math.max(0, ...s.enum.map((e) => (typeof e === 'string' ? Buffer.byteLength(e) : 0)));
      else maxElements = maxStringLength(s);
      return { kind: 'string', schema: s, maxElements, minSerializedSize: MIN_STRING_SIZE };
    }
    case 'boolean':
      return { kind: 'bool', schema: s, maxElements: 0, minSerializedSize: MIN_BOOL_SIZE };
    case 'number':
      return { kind: 'double', schema: s, maxElements: 0, minSerializedSize: MIN_NUMBER_SIZE };
    case 'integer':
      return { kind: 'int', schema: s, maxElements: 0, minSerializedSize: MIN_NUMBER_SIZE };
  }
  return undefined;
}

/** The type of a node as cel-js spells it (object types must have been named first). */
export function celTypeOf(d: DeclNode): string {
  switch (d.kind) {
    case 'object':
      return d.typeName ?? 'map<string, dyn>';
    case 'map':
      return `map<string, ${celTypeOf(d.elem as DeclNode)}>`;
    case 'list':
      return `list<${celTypeOf(d.elem as DeclNode)}>`;
    case 'bytes':
      return 'bytes';
    case 'duration':
      return 'google.protobuf.Duration';
    case 'timestamp':
      return 'google.protobuf.Timestamp';
    default:
      return d.kind;
  }
}

/** MaxCardinality for a rule's node (compilation.go): how many such values fit in one request. */
export function unboundedCardinality(d: DeclNode): number {
  return Math.floor(MAX_REQUEST_SIZE_BYTES / (d.minSerializedSize + 1));
}
