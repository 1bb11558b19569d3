// The built-in scalar field types: how each looks in JSON Schema / OpenAPI and on the protobuf
// wire. The wire messages of the special scalars keep their upstream layout (apimachinery's
// generated.proto); the codec reads them from generated/protobuf/descriptors.json.

export const SCALARS = [
  'string',
  'boolean',
  'int32',
  'int64',
  'number',
  'bytes',
  'quantity',
  'time',
  'microTime',
  'intOrString',
  'duration',
  'fieldsV1',
  'rawExtension',
  'json',
  'jsonSchemaPropsOrArray',
  'jsonSchemaPropsOrBool',
  'jsonSchemaPropsOrStringArray',
] as const;

export type ScalarName = (typeof SCALARS)[number];

export const isScalar = (s: string): s is ScalarName => (SCALARS as readonly string[]).includes(s);

export interface SpecialScalar {
  /** OpenAPI definition name (referenced with $ref, as kube-apiserver does). */
  openAPIName: string;
  /** Fully qualified protobuf message. */
  protoName: string;
  /** The message's wire fields. */
  protoFields: Record<string, { type: string; id: number; rule?: 'repeated' }>;
  schema: Record<string, unknown>;
  description: string;
}

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const APIEXTENSIONS_PROTO = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';
const APIEXTENSIONS_OPENAPI = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1';

/**
 * The model id of apiextensions/v1 JSONSchemaProps, which the three schema unions hold: the spec
 * file declares the type, these scalars only give the unions' custom JSON forms.
 */
export const JSON_SCHEMA_PROPS_ID = `${APIEXTENSIONS_OPENAPI}.JSONSchemaProps`;
const JSON_SCHEMA_PROPS_PROTO = `.${APIEXTENSIONS_PROTO}.JSONSchemaProps`;

export const SPECIAL_SCALARS: Partial<Record<ScalarName, SpecialScalar>> = {
  quantity: {
    openAPIName: 'io.k8s.apimachinery.pkg.api.resource.Quantity',
    protoName: 'k8s.io.apimachinery.pkg.api.resource.Quantity',
    protoFields: { string: { type: 'string', id: 1 } },
    schema: { type: 'string' },
    description: 'A fixed-point number with an optional SI or binary suffix, written as a string such as "100m" or "1Gi".',
  },
  time: {
    openAPIName: 'io.k8s.apimachinery.pkg.apis.meta.v1.Time',
    protoName: `${META}.Time`,
    protoFields: { seconds: { type: 'int64', id: 1 }, nanos: { type: 'int32', id: 2 } },
    schema: { type: 'string', format: 'date-time' },
    description: 'A timestamp in RFC 3339 form with second precision.',
  },
  microTime: {
    openAPIName: 'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime',
    protoName: `${META}.MicroTime`,
    protoFields: { seconds: { type: 'int64', id: 1 }, nanos: { type: 'int32', id: 2 } },
    schema: { type: 'string', format: 'date-time' },
    description: 'A timestamp in RFC 3339 form with microsecond precision.',
  },
  intOrString: {
    openAPIName: 'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
    protoName: 'k8s.io.apimachinery.pkg.util.intstr.IntOrString',
    protoFields: { type: { type: 'int64', id: 1 }, intVal: { type: 'int32', id: 2 }, strVal: { type: 'string', id: 3 } },
    schema: { type: 'string', format: 'int-or-string' },
    description: 'Either an integer or a string.',
  },
  duration: {
    openAPIName: 'io.k8s.apimachinery.pkg.apis.meta.v1.Duration',
    protoName: `${META}.Duration`,
    protoFields: { duration: { type: 'int64', id: 1 } },
    schema: { type: 'string' },
    description: 'A duration written as a Go duration string such as "1h2m3s".',
  },
  fieldsV1: {
    openAPIName: 'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1',
    protoName: `${META}.FieldsV1`,
    protoFields: { Raw: { type: 'bytes', id: 1 } },
    schema: { type: 'object' },
    description: 'A set of fields in the trie form server-side apply uses, with keys prefixed "f:", "k:", "v:" or "i:".',
  },
  rawExtension: {
    openAPIName: 'io.k8s.apimachinery.pkg.runtime.RawExtension',
    protoName: 'k8s.io.apimachinery.pkg.runtime.RawExtension',
    protoFields: { raw: { type: 'bytes', id: 1 } },
    schema: { type: 'object' },
    description: 'An embedded object, kept as its serialized form.',
  },
  // apiextensions' JSON and schema unions: kube publishes them without a type (their Go types
  // answer OpenAPISchemaType with nil), because each has more than one JSON form.
  json: {
    openAPIName: `${APIEXTENSIONS_OPENAPI}.JSON`,
    protoName: `${APIEXTENSIONS_PROTO}.JSON`,
    protoFields: { raw: { type: 'bytes', id: 1 } },
    schema: {},
    description: 'Any JSON value: a boolean, number, string, list, object or null.',
  },
  jsonSchemaPropsOrArray: {
    openAPIName: `${APIEXTENSIONS_OPENAPI}.JSONSchemaPropsOrArray`,
    protoName: `${APIEXTENSIONS_PROTO}.JSONSchemaPropsOrArray`,
    protoFields: { schema: { type: JSON_SCHEMA_PROPS_PROTO, id: 1 }, jSONSchemas: { type: JSON_SCHEMA_PROPS_PROTO, id: 2, rule: 'repeated' } },
    schema: {},
    description: 'A schema, or a list of schemas.',
  },
  jsonSchemaPropsOrBool: {
    openAPIName: `${APIEXTENSIONS_OPENAPI}.JSONSchemaPropsOrBool`,
    protoName: `${APIEXTENSIONS_PROTO}.JSONSchemaPropsOrBool`,
    protoFields: { allows: { type: 'bool', id: 1 }, schema: { type: JSON_SCHEMA_PROPS_PROTO, id: 2 } },
    schema: {},
    description: 'A schema, or a boolean (true allows anything, false nothing).',
  },
  jsonSchemaPropsOrStringArray: {
    openAPIName: `${APIEXTENSIONS_OPENAPI}.JSONSchemaPropsOrStringArray`,
    protoName: `${APIEXTENSIONS_PROTO}.JSONSchemaPropsOrStringArray`,
    protoFields: { schema: { type: JSON_SCHEMA_PROPS_PROTO, id: 1 }, property: { type: 'string', id: 2, rule: 'repeated' } },
    schema: {},
    description: 'A schema, or a list of property names.',
  },
};

const APIEXTENSIONS_SCALARS: readonly ScalarName[] = ['json', 'jsonSchemaPropsOrArray', 'jsonSchemaPropsOrBool', 'jsonSchemaPropsOrStringArray'];

/**
 * The special scalars whose wire messages a model needs: apiextensions' only beside its
 * JSONSchemaProps (the unions' messages hold it), every other one always.
 */
export function specialScalarsOf(types: ReadonlyMap<string, unknown>): SpecialScalar[] {
  return Object.entries(SPECIAL_SCALARS)
    .filter(([name]) => types.has(JSON_SCHEMA_PROPS_ID) || !APIEXTENSIONS_SCALARS.includes(name as ScalarName))
    .map(([, s]) => s as SpecialScalar);
}

/** Protobuf scalar type of the plain scalars. */
export const PROTO_SCALAR: Partial<Record<ScalarName, string>> = {
  string: 'string',
  boolean: 'bool',
  int32: 'int32',
  int64: 'int64',
  number: 'double',
  bytes: 'bytes',
};

/** OpenAPI schema of the plain scalars (the special ones are $ref'd definitions). */
export const OPENAPI_SCALAR: Partial<Record<ScalarName, Record<string, unknown>>> = {
  string: { type: 'string' },
  boolean: { type: 'boolean' },
  int32: { type: 'integer', format: 'int32' },
  int64: { type: 'integer', format: 'int64' },
  number: { type: 'number', format: 'double' },
  bytes: { type: 'string', format: 'byte' },
};

/** Go's zero values of the scalars an alwaysEmitted field may have. */
export const GO_ZERO: Readonly<Record<string, unknown>> = { boolean: false, string: '', int32: 0, int64: 0 };
