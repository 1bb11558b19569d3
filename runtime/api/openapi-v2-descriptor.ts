// The wire layout of gnostic's OpenAPI v2 document (package openapi.v2 of
// github.com/google/gnostic-models), the message kubectl and client-go decode from
// `GET /openapi/v2` when they ask for the protobuf form. Built here as a protobufjs descriptor
// rather than read from a .proto file, so nothing is parsed at run time.
//
// Every gnostic v2 message numbers its fields 1..n in the order it declares them, so each list
// below is written in field-number order and numbered by position; the oneof messages hold a
// single oneof spanning all their fields. Field names are the swagger JSON keys (camelCase), so
// the converter can copy most fields by name; gnostic's `_ref` is named `ref` here. Only the wire
// numbers and types have to match gnostic's.

import protobuf from 'protobufjs';

type Field = [name: string, type: string, repeated?: 'repeated'];

const VENDOR_EXTENSION: Field = ['vendorExtension', 'NamedAny', 'repeated'];

/** The constraints a non-body parameter, a header and an item of a primitive array share. */
const PRIMITIVE_CONSTRAINTS: Field[] = [
  ['type', 'string'],
  ['format', 'string'],
  ['items', 'PrimitivesItems'],
  ['collectionFormat', 'string'],
  ['default', 'Any'],
  ['maximum', 'double'],
  ['exclusiveMaximum', 'bool'],
  ['minimum', 'double'],
  ['exclusiveMinimum', 'bool'],
  ['maxLength', 'int64'],
  ['minLength', 'int64'],
  ['pattern', 'string'],
  ['maxItems', 'int64'],
  ['minItems', 'int64'],
  ['uniqueItems', 'bool'],
  ['enum', 'Any', 'repeated'],
  ['multipleOf', 'double'],
];

const PARAMETER_HEAD: Field[] = [
  ['required', 'bool'],
  ['in', 'string'],
  ['description', 'string'],
  ['name', 'string'],
];

/** query and formData parameters may be sent without a value; header and path ones may not. */
const PARAMETER_WITH_EMPTY_VALUE: Field[] = [...PARAMETER_HEAD, ['allowEmptyValue', 'bool'], ...PRIMITIVE_CONSTRAINTS, VENDOR_EXTENSION];
const PARAMETER_WITHOUT_EMPTY_VALUE: Field[] = [...PARAMETER_HEAD, ...PRIMITIVE_CONSTRAINTS, VENDOR_EXTENSION];

const OAUTH2_HEAD: Field[] = [
  ['type', 'string'],
  ['flow', 'string'],
  ['scopes', 'Oauth2Scopes'],
];

/** A gnostic map: one repeated list of (name, value) pairs, in document order. */
const map = (entry: string): Field[] => [['additionalProperties', entry, 'repeated']];
const named = (value: string): Field[] => [
  ['name', 'string'],
  ['value', value],
];

const MESSAGES: Record<string, Field[]> = {
  Any: [
    ['value', 'ProtobufAny'],
    ['yaml', 'string'],
  ],
  // google.protobuf.Any, declared locally with its own two fields; gnostic never fills it for
  // documents parsed from JSON, and neither do we.
  ProtobufAny: [
    ['typeUrl', 'string'],
    ['value', 'bytes'],
  ],
  ApiKeySecurity: [['type', 'string'], ['name', 'string'], ['in', 'string'], ['description', 'string'], VENDOR_EXTENSION],
  BasicAuthenticationSecurity: [['type', 'string'], ['description', 'string'], VENDOR_EXTENSION],
  BodyParameter: [['description', 'string'], ['name', 'string'], ['in', 'string'], ['required', 'bool'], ['schema', 'Schema'], VENDOR_EXTENSION],
  Contact: [['name', 'string'], ['url', 'string'], ['email', 'string'], VENDOR_EXTENSION],
  Default: map('NamedAny'),
  Definitions: map('NamedSchema'),
  Document: [
    ['swagger', 'string'],
    ['info', 'Info'],
    ['host', 'string'],
    ['basePath', 'string'],
    ['schemes', 'string', 'repeated'],
    ['consumes', 'string', 'repeated'],
    ['produces', 'string', 'repeated'],
    ['paths', 'Paths'],
    ['definitions', 'Definitions'],
    ['parameters', 'ParameterDefinitions'],
    ['responses', 'ResponseDefinitions'],
    ['security', 'SecurityRequirement', 'repeated'],
    ['securityDefinitions', 'SecurityDefinitions'],
    ['tags', 'Tag', 'repeated'],
    ['externalDocs', 'ExternalDocs'],
    VENDOR_EXTENSION,
  ],
  Examples: map('NamedAny'),
  ExternalDocs: [['description', 'string'], ['url', 'string'], VENDOR_EXTENSION],
  FileSchema: [
    ['format', 'string'],
    ['title', 'string'],
    ['description', 'string'],
    ['default', 'Any'],
    ['required', 'string', 'repeated'],
    ['type', 'string'],
    ['readOnly', 'bool'],
    ['externalDocs', 'ExternalDocs'],
    ['example', 'Any'],
    VENDOR_EXTENSION,
  ],
  FormDataParameterSubSchema: PARAMETER_WITH_EMPTY_VALUE,
  Header: [...PRIMITIVE_CONSTRAINTS, ['description', 'string'], VENDOR_EXTENSION],
  HeaderParameterSubSchema: PARAMETER_WITHOUT_EMPTY_VALUE,
  Headers: map('NamedHeader'),
  Info: [
    ['title', 'string'],
    ['version', 'string'],
    ['description', 'string'],
    ['termsOfService', 'string'],
    ['contact', 'Contact'],
    ['license', 'License'],
    VENDOR_EXTENSION,
  ],
  ItemsItem: [['schema', 'Schema', 'repeated']],
  JsonReference: [
    ['ref', 'string'],
    ['description', 'string'],
  ],
  License: [['name', 'string'], ['url', 'string'], VENDOR_EXTENSION],
  NamedAny: named('Any'),
  NamedHeader: named('Header'),
  NamedParameter: named('Parameter'),
  NamedPathItem: named('PathItem'),
  NamedResponse: named('Response'),
  NamedResponseValue: named('ResponseValue'),
  NamedSchema: named('Schema'),
  NamedSecurityDefinitionsItem: named('SecurityDefinitionsItem'),
  NamedString: named('string'),
  NamedStringArray: named('StringArray'),
  NonBodyParameter: [
    ['headerParameterSubSchema', 'HeaderParameterSubSchema'],
    ['formDataParameterSubSchema', 'FormDataParameterSubSchema'],
    ['queryParameterSubSchema', 'QueryParameterSubSchema'],
    ['pathParameterSubSchema', 'PathParameterSubSchema'],
  ],
  Oauth2AccessCodeSecurity: [...OAUTH2_HEAD, ['authorizationUrl', 'string'], ['tokenUrl', 'string'], ['description', 'string'], VENDOR_EXTENSION],
  Oauth2ApplicationSecurity: [...OAUTH2_HEAD, ['tokenUrl', 'string'], ['description', 'string'], VENDOR_EXTENSION],
  Oauth2ImplicitSecurity: [...OAUTH2_HEAD, ['authorizationUrl', 'string'], ['description', 'string'], VENDOR_EXTENSION],
  Oauth2PasswordSecurity: [...OAUTH2_HEAD, ['tokenUrl', 'string'], ['description', 'string'], VENDOR_EXTENSION],
  Oauth2Scopes: map('NamedString'),
  Operation: [
    ['tags', 'string', 'repeated'],
    ['summary', 'string'],
    ['description', 'string'],
    ['externalDocs', 'ExternalDocs'],
    ['operationId', 'string'],
    ['produces', 'string', 'repeated'],
    ['consumes', 'string', 'repeated'],
    ['parameters', 'ParametersItem', 'repeated'],
    ['responses', 'Responses'],
    ['schemes', 'string', 'repeated'],
    ['deprecated', 'bool'],
    ['security', 'SecurityRequirement', 'repeated'],
    VENDOR_EXTENSION,
  ],
  Parameter: [
    ['bodyParameter', 'BodyParameter'],
    ['nonBodyParameter', 'NonBodyParameter'],
  ],
  ParameterDefinitions: map('NamedParameter'),
  ParametersItem: [
    ['parameter', 'Parameter'],
    ['jsonReference', 'JsonReference'],
  ],
  PathItem: [
    ['ref', 'string'],
    ['get', 'Operation'],
    ['put', 'Operation'],
    ['post', 'Operation'],
    ['delete', 'Operation'],
    ['options', 'Operation'],
    ['head', 'Operation'],
    ['patch', 'Operation'],
    ['parameters', 'ParametersItem', 'repeated'],
    VENDOR_EXTENSION,
  ],
  PathParameterSubSchema: PARAMETER_WITHOUT_EMPTY_VALUE,
  Paths: [VENDOR_EXTENSION, ['path', 'NamedPathItem', 'repeated']],
  PrimitivesItems: [...PRIMITIVE_CONSTRAINTS, VENDOR_EXTENSION],
  Properties: map('NamedSchema'),
  QueryParameterSubSchema: PARAMETER_WITH_EMPTY_VALUE,
  Response: [['description', 'string'], ['schema', 'SchemaItem'], ['headers', 'Headers'], ['examples', 'Examples'], VENDOR_EXTENSION],
  ResponseDefinitions: map('NamedResponse'),
  ResponseValue: [
    ['response', 'Response'],
    ['jsonReference', 'JsonReference'],
  ],
  Responses: [['responseCode', 'NamedResponseValue', 'repeated'], VENDOR_EXTENSION],
  Schema: [
    ['ref', 'string'],
    ['format', 'string'],
    ['title', 'string'],
    ['description', 'string'],
    ['default', 'Any'],
    ['multipleOf', 'double'],
    ['maximum', 'double'],
    ['exclusiveMaximum', 'bool'],
    ['minimum', 'double'],
    ['exclusiveMinimum', 'bool'],
    ['maxLength', 'int64'],
    ['minLength', 'int64'],
    ['pattern', 'string'],
    ['maxItems', 'int64'],
    ['minItems', 'int64'],
    ['uniqueItems', 'bool'],
    ['maxProperties', 'int64'],
    ['minProperties', 'int64'],
    ['required', 'string', 'repeated'],
    ['enum', 'Any', 'repeated'],
    ['additionalProperties', 'AdditionalPropertiesItem'],
    ['type', 'TypeItem'],
    ['items', 'ItemsItem'],
    ['allOf', 'Schema', 'repeated'],
    ['properties', 'Properties'],
    ['discriminator', 'string'],
    ['readOnly', 'bool'],
    ['xml', 'Xml'],
    ['externalDocs', 'ExternalDocs'],
    ['example', 'Any'],
    VENDOR_EXTENSION,
  ],
  AdditionalPropertiesItem: [
    ['schema', 'Schema'],
    ['boolean', 'bool'],
  ],
  SchemaItem: [
    ['schema', 'Schema'],
    ['fileSchema', 'FileSchema'],
  ],
  SecurityDefinitions: map('NamedSecurityDefinitionsItem'),
  SecurityDefinitionsItem: [
    ['basicAuthenticationSecurity', 'BasicAuthenticationSecurity'],
    ['apiKeySecurity', 'ApiKeySecurity'],
    ['oauth2ImplicitSecurity', 'Oauth2ImplicitSecurity'],
    ['oauth2PasswordSecurity', 'Oauth2PasswordSecurity'],
    ['oauth2ApplicationSecurity', 'Oauth2ApplicationSecurity'],
    ['oauth2AccessCodeSecurity', 'Oauth2AccessCodeSecurity'],
  ],
  SecurityRequirement: map('NamedStringArray'),
  StringArray: [['value', 'string', 'repeated']],
  Tag: [['name', 'string'], ['description', 'string'], ['externalDocs', 'ExternalDocs'], VENDOR_EXTENSION],
  TypeItem: [['value', 'string', 'repeated']],
  VendorExtension: map('NamedAny'),
  Xml: [['name', 'string'], ['namespace', 'string'], ['prefix', 'string'], ['attribute', 'bool'], ['wrapped', 'bool'], VENDOR_EXTENSION],
};

/** Messages whose fields all belong to one oneof (gnostic names it `oneof`). */
const ONEOF_MESSAGES = new Set([
  'AdditionalPropertiesItem',
  'NonBodyParameter',
  'Parameter',
  'ParametersItem',
  'ResponseValue',
  'SchemaItem',
  'SecurityDefinitionsItem',
]);

function typeDescriptor(name: string, fields: Field[]): protobuf.IType {
  const descriptor: protobuf.IType = { fields: {} };
  fields.forEach(([fieldName, type, repeated], index) => {
    descriptor.fields[fieldName] = { id: index + 1, type, ...(repeated ? { rule: 'repeated' } : {}) };
  });
  if (ONEOF_MESSAGES.has(name)) descriptor.oneofs = { oneof: { oneof: fields.map(([fieldName]) => fieldName) } };
  return descriptor;
}

let root: protobuf.Root | undefined;

/** The resolved `openapi.v2` namespace; built on first use. */
export function openAPIV2Root(): protobuf.Root {
  if (!root) {
    const nested: Record<string, protobuf.IType> = {};
    for (const [name, fields] of Object.entries(MESSAGES)) nested[name] = typeDescriptor(name, fields);
    root = protobuf.Root.fromJSON({ nested: { openapi: { nested: { v2: { nested } } } } });
    root.resolveAll();
  }
  return root;
}

export function openAPIV2Type(name: string): protobuf.Type {
  return openAPIV2Root().lookupType(`openapi.v2.${name}`);
}
