// The swagger 2.0 JSON document turned into gnostic's protobuf Document, the form kubectl's
// apply, explain and validation ask for. The mapping is the one gnostic's own JSON parser makes
// (kube-apiserver serves exactly that): fields copy by name, `$ref` becomes `_ref`, keys starting
// with `x-` become vendor extensions, and every free-form value (vendor extensions, defaults,
// examples, enum members) travels as YAML text, which kube-openapi reads back with a YAML 1.1
// parser. Which wrapper a parameter, response or security scheme takes is decided from its `in`,
// `$ref`, `type` and `flow` keys, as gnostic decides.

import type protobuf from 'protobufjs';
import { stringify } from 'yaml';
import { openAPIV2Type } from './openapi-v2-descriptor.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };
type Message = Record<string, unknown>;

/** Only these keys of a Responses object name a response; gnostic drops any other. */
const RESPONSE_CODE = /^([0-9]{3})$|^(default)$/;

const NON_BODY_PARAMETER: Record<string, string> = {
  header: 'headerParameterSubSchema',
  formData: 'formDataParameterSubSchema',
  query: 'queryParameterSubSchema',
  path: 'pathParameterSubSchema',
};

const OAUTH2_FLOW: Record<string, string> = {
  implicit: 'oauth2ImplicitSecurity',
  password: 'oauth2PasswordSecurity',
  application: 'oauth2ApplicationSecurity',
  accessCode: 'oauth2AccessCodeSecurity',
};

const isObject = (value: Json | undefined): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
const asArray = (value: Json): Json[] => (Array.isArray(value) ? value : [value]);

function object(value: Json, where: string): JsonObject {
  // The document is our own generated file, so a malformed one is a server bug, not a client error.
  if (!isObject(value)) throw new Error(`openapi v2: ${where} is not an object`);
  return value;
}

/**
 * YAML 1.1 because kube-openapi decodes with gopkg.in/yaml.v2: strings such as `on` or `0755`
 * must come out quoted. No line folding, so long descriptions stay one scalar line.
 */
function anyValue(value: Json): Message {
  return { yaml: stringify(value, { version: '1.1', lineWidth: 0 }) };
}

function vendorExtensions(json: JsonObject): Message[] {
  return Object.entries(json)
    .filter(([key]) => key.startsWith('x-'))
    .map(([name, value]) => ({ name, value: anyValue(value) }));
}

/** proto3 leaves zero values off the wire; so does gnostic's output, and so do we. */
function isZero(value: unknown): boolean {
  return value === '' || value === false || value === 0 || (Array.isArray(value) && value.length === 0);
}

/** Copies the fields of `type` that `json` holds, converting nested messages. */
function toMessage(type: protobuf.Type, json: JsonObject): Message {
  const message: Message = {};
  for (const field of type.fieldsArray) {
    if (field.name === 'vendorExtension') {
      const extensions = vendorExtensions(json);
      if (extensions.length > 0) message.vendorExtension = extensions;
      continue;
    }
    const value = json[field.name === 'ref' ? '$ref' : field.name];
    const nested = field.resolvedType as protobuf.Type | null;
    // `default: null` is a value worth carrying; a null anywhere else means the key is unset.
    if (value === undefined || (value === null && (nested?.name !== 'Any' || field.repeated))) continue;
    if (!nested) {
      if (!isZero(value)) message[field.name] = value;
    } else if (field.repeated) {
      const items = asArray(value).map((item) => toValue(nested, item));
      if (items.length > 0) message[field.name] = items;
    } else {
      // A message field is kept even when empty: its presence is what `properties: {}` means.
      message[field.name] = toValue(nested, value);
    }
  }
  return message;
}

/** A gnostic map message: its one field lists (name, value) pairs in document order. */
function toNamedList(type: protobuf.Type, json: JsonObject): Message[] {
  const entryType = type.fieldsArray[0].resolvedType as protobuf.Type;
  const valueType = entryType.fields.value.resolvedType as protobuf.Type | null;
  return Object.entries(json).map(([name, value]) => ({ name, value: valueType ? toValue(valueType, value) : value }));
}

function toValue(type: protobuf.Type, value: Json): Message {
  const json = () => object(value, type.name);
  switch (type.name) {
    case 'Any':
      return anyValue(value);
    case 'TypeItem':
    case 'StringArray':
      return { value: asArray(value) };
    case 'ItemsItem':
      return { schema: asArray(value).map((item) => toValue(openAPIV2Type('Schema'), item)) };
    case 'AdditionalPropertiesItem':
      return typeof value === 'boolean' ? { boolean: value } : { schema: toValue(openAPIV2Type('Schema'), value) };
    case 'SchemaItem':
      return json().type === 'file'
        ? { fileSchema: toMessage(openAPIV2Type('FileSchema'), json()) }
        : { schema: toMessage(openAPIV2Type('Schema'), json()) };
    case 'ParametersItem':
      return '$ref' in json()
        ? { jsonReference: toMessage(openAPIV2Type('JsonReference'), json()) }
        : { parameter: toValue(openAPIV2Type('Parameter'), value) };
    case 'ResponseValue':
      return '$ref' in json()
        ? { jsonReference: toMessage(openAPIV2Type('JsonReference'), json()) }
        : { response: toMessage(openAPIV2Type('Response'), json()) };
    case 'Parameter':
      return toParameter(json());
    case 'SecurityDefinitionsItem':
      return toSecurityScheme(json());
    case 'Paths':
      return toKeyed(json(), 'path', (key) => key.startsWith('/'), 'PathItem');
    case 'Responses':
      return toKeyed(json(), 'responseCode', (key) => RESPONSE_CODE.test(key), 'ResponseValue');
  }
  const fields = type.fieldsArray;
  if (fields.length === 1 && fields[0].name === 'additionalProperties' && fields[0].repeated) {
    const entries = toNamedList(type, json());
    return entries.length > 0 ? { additionalProperties: entries } : {};
  }
  return toMessage(type, json());
}

/** Paths and Responses mix named entries with vendor extensions in one JSON object. */
function toKeyed(json: JsonObject, field: string, isEntry: (key: string) => boolean, entryType: string): Message {
  const message: Message = {};
  const extensions = vendorExtensions(json);
  if (extensions.length > 0) message.vendorExtension = extensions;
  const entries = Object.entries(json)
    .filter(([key]) => isEntry(key))
    .map(([name, value]) => ({ name, value: toValue(openAPIV2Type(entryType), value) }));
  if (entries.length > 0) message[field] = entries;
  return message;
}

function toParameter(json: JsonObject): Message {
  if (json.in === 'body') return { bodyParameter: toMessage(openAPIV2Type('BodyParameter'), json) };
  const wrapper = NON_BODY_PARAMETER[String(json.in)];
  if (!wrapper) throw new Error(`openapi v2: parameter ${String(json.name)} is in unknown location ${String(json.in)}`);
  const subSchema = wrapper.charAt(0).toUpperCase() + wrapper.slice(1);
  return { nonBodyParameter: { [wrapper]: toMessage(openAPIV2Type(subSchema), json) } };
}

function toSecurityScheme(json: JsonObject): Message {
  const wrapper = json.type === 'basic' ? 'basicAuthenticationSecurity' : json.type === 'apiKey' ? 'apiKeySecurity' : json.type === 'oauth2' ? OAUTH2_FLOW[String(json.flow)] : undefined;
  if (!wrapper) throw new Error(`openapi v2: unknown security scheme type ${String(json.type)}`);
  const messageName = wrapper.charAt(0).toUpperCase() + wrapper.slice(1);
  return { [wrapper]: toMessage(openAPIV2Type(messageName), json) };
}

/**
 * The gnostic Document message for a swagger 2.0 document, as a plain object. The document is
 * what JSON.parse returned, so every value in it is a JSON value.
 */
export function toOpenAPIV2Document(swagger: Record<string, unknown>): Message {
  return toMessage(openAPIV2Type('Document'), swagger as JsonObject);
}

/** The protobuf bytes kube-apiserver serves for `/openapi/v2` in the gnostic form. */
export function encodeOpenAPIV2(swagger: Record<string, unknown>): Uint8Array {
  const documentType = openAPIV2Type('Document');
  return documentType.encode(toOpenAPIV2Document(swagger)).finish();
}
