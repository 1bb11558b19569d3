// Go's `%#v` of the internal apiextensions values some CRD field errors carry (field.Invalid
// with a slice or struct prints it that way in kube 1.33), so our messages read as kube's:
// `[]string{"v1"}`, `[]apiextensions.CustomResourceDefinitionVersion{...}`. A pointer that is
// set prints as its address in Go, which no client can know or use; ours prints a stand-in.

import { goQuote } from '../../../machinery/go-format.js';
import { asObject, asString } from '../../../machinery/object.js';
import type { JsonObject } from '../../../machinery/json-values.js';

const PACKAGE = 'apiextensions';
const SET_POINTER = '0xc000000000';

export function goStringSlice(value: unknown): string {
  if (!Array.isArray(value)) return '[]string(nil)';
  return `[]string{${value.map((v) => goQuote(asString(v))).join(', ')}}`;
}

export function goByteSlice(bytes: Uint8Array): string {
  return `[]byte{${[...bytes].map((b) => `0x${b.toString(16)}`).join(', ')}}`;
}

const pointer = (type: string, value: unknown): string => `(*${type})(${value === undefined || value === null ? 'nil' : SET_POINTER})`;

function columnSyntax(c: JsonObject): string {
  const priority = typeof c.priority === 'number' ? c.priority : 0;
  return (
    `${PACKAGE}.CustomResourceColumnDefinition{Name:${goQuote(asString(c.name))}, Type:${goQuote(asString(c.type))}, Format:${goQuote(asString(c.format))}, ` +
    `Description:${goQuote(asString(c.description))}, Priority:${priority}, JSONPath:${goQuote(asString(c.jsonPath))}}`
  );
}

function sliceSyntax(type: string, value: unknown, item: (v: JsonObject) => string): string {
  if (!Array.isArray(value)) return `[]${type}(nil)`;
  return `[]${type}{${value.map((v) => item(asObject(v))).join(', ')}}`;
}

/** One internal CustomResourceDefinitionVersion (its fields in the Go struct's order). */
function versionSyntax(v: JsonObject): string {
  return (
    `${PACKAGE}.CustomResourceDefinitionVersion{Name:${goQuote(asString(v.name))}, Served:${v.served === true}, Storage:${v.storage === true}, ` +
    `Deprecated:${v.deprecated === true}, DeprecationWarning:${pointer('string', v.deprecationWarning)}, ` +
    `Schema:${pointer(`${PACKAGE}.CustomResourceValidation`, v.schema)}, Subresources:${pointer(`${PACKAGE}.CustomResourceSubresources`, v.subresources)}, ` +
    `AdditionalPrinterColumns:${sliceSyntax(`${PACKAGE}.CustomResourceColumnDefinition`, v.additionalPrinterColumns, columnSyntax)}, ` +
    `SelectableFields:${sliceSyntax(`${PACKAGE}.SelectableField`, v.selectableFields, (f) => `${PACKAGE}.SelectableField{JSONPath:${goQuote(asString(f.jsonPath))}}`)}}`
  );
}

/** The internal spec.versions list as `%#v` prints it. */
export function goVersionsSyntax(versions: unknown): string {
  return sliceSyntax(`${PACKAGE}.CustomResourceDefinitionVersion`, versions, versionSyntax);
}
