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
] as const;

export type ScalarName = (typeof SCALARS)[number];

export const isScalar = (s: string): s is ScalarName => (SCALARS as readonly string[]).includes(s);

export interface SpecialScalar {
  /** OpenAPI definition name (referenced with $ref, as kube-apiserver does). */
  openAPIName: string;
  /** Fully qualified protobuf message. */
  protoName: string;
  /** The message's wire fields. */
  protoFields: Record<string, { type: string; id: number }>;
  schema: Record<string, unknown>;
  description: string;
}

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';

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
};

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
