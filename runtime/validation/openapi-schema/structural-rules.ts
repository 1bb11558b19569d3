// The structural-schema rules of kube-apiserver (apiextensions-apiserver pkg/apiserver/schema
// validation.go and complete.go): every specified field has a type, value validations (allOf,
// anyOf, oneOf, not) only validate values and name no field the schema itself lacks, metadata at
// the root only restricts name and generateName, and the vendor extensions sit where they may.

import type { StatusCause } from '../../errors/status-error.js';
import * as c from './causes.js';
import { compileGoRegexp, GoRegexpError } from '../re2/index.js';
import { jsonEqual } from './json.js';

type Raw = Record<string, unknown>;
const isObject = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const nonEmptyObject = (v: unknown): v is Raw => isObject(v) && Object.keys(v).length > 0;
const nonEmptyArray = (v: unknown): v is unknown[] => Array.isArray(v) && v.length > 0;

/** A Go zero value (kube's checks skip them). */
export function isZero(v: unknown): boolean {
  return v === undefined || v === null || v === false || v === 0 || v === '' || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0);
}

type Level = 'root' | 'item' | 'field';

const INT_OR_STRING_ANY_OF = [{ type: 'integer' }, { type: 'string' }];

function isIntOrStringAnyOf(anyOf: unknown): boolean {
  return Array.isArray(anyOf) && anyOf.length === 2 && jsonEqual(anyOf, INT_OR_STRING_ANY_OF);
}

export function structuralInvariants(s: Raw, lvl: Level, path: string): StatusCause[] {
  const errs: StatusCause[] = [];
  const type = str(s.type);
  if (type === 'array' && s.items === undefined) errs.push(c.required(`${path}.items`, 'must be specified'));
  if (isObject(s.items)) c.appendAll(errs, structuralInvariants(s.items, 'item', `${path}.items`));
  if (isObject(s.properties)) {
    for (const key of Object.keys(s.properties)) {
      const prop = s.properties[key];
      if (isObject(prop)) c.appendAll(errs, structuralInvariants(prop, 'field', `${path}.properties[${key}]`));
    }
  }
  if (s.additionalProperties !== undefined && s.additionalProperties !== null) {
    if (lvl === 'root') errs.push(c.forbidden(`${path}.additionalProperties`, 'must not be used at the root'));
    if (isObject(s.additionalProperties)) c.appendAll(errs, structuralInvariants(s.additionalProperties, 'field', `${path}.additionalProperties`));
  }
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (intOrString && preserve) {
    errs.push(c.invalid(`${path}.x-kubernetes-preserve-unknown-fields`, true, 'must be false if x-kubernetes-int-or-string is true'));
  }
  if (intOrString && embedded) errs.push(c.invalid(`${path}.x-kubernetes-embedded-resource`, true, 'must be false if x-kubernetes-int-or-string is true'));

  const skipAnyOf = isIntOrStringAnyOf(s.anyOf);
  const skipFirstAllOfAnyOf = Array.isArray(s.allOf) && s.allOf.length >= 1 && isObject(s.allOf[0]) && isIntOrStringAnyOf(s.allOf[0].anyOf);
  c.appendAll(errs, valueValidationRules(s, skipAnyOf, skipFirstAllOfAnyOf, lvl, path));

  const checkMetadata = lvl === 'root' || embedded;
  if (embedded && type !== 'object') {
    if (type === '') errs.push(c.required(`${path}.type`, 'must be object if x-kubernetes-embedded-resource is true'));
    else errs.push(c.invalid(`${path}.type`, type, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if (type === '' && !intOrString && !preserve) {
    const detail = { root: 'must not be empty at the root', item: 'must not be empty for specified array items', field: 'must not be empty for specified object fields' }[lvl];
    errs.push(c.required(`${path}.type`, detail));
  }
  if (embedded && s.additionalProperties !== undefined && s.additionalProperties !== null) {
    errs.push(c.forbidden(`${path}.additionalProperties`, 'must not be used if x-kubernetes-embedded-resource is set'));
  }
  if (lvl === 'root' && type !== '' && type !== 'object') errs.push(c.invalid(`${path}.type`, type, 'must be object at the root'));
  const props = isObject(s.properties) ? s.properties : {};
  for (const meta of ['kind', 'apiVersion']) {
    if (checkMetadata && Object.hasOwn(props, meta)) {
      const t = isObject(props[meta]) ? str((props[meta] as Raw).type) : '';
      if (t !== 'string') errs.push(c.invalid(`${path}.properties[${meta}].type`, t, 'must be string'));
    }
  }
  if (Object.hasOwn(props, 'metadata') && isObject(props.metadata)) {
    c.appendAll(errs, metadataInvariants(props.metadata, checkMetadata, lvl, `${path}.properties[metadata]`));
  }
  if (embedded && !preserve && !nonEmptyObject(s.properties)) {
    errs.push(c.required(`${path}.properties`, 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'));
  }
  return errs;
}

function metadataInvariants(s: Raw, checkMetadata: boolean, lvl: Level, path: string): StatusCause[] {
  const errs: StatusCause[] = [];
  const type = str(s.type);
  if (checkMetadata && type !== 'object') errs.push(c.invalid(`${path}.type`, type, 'must be object'));
  if (lvl === 'root') {
    // Only restrictions of name and generateName may be written: anything else is implied by ObjectMeta.
    const props = isObject(s.properties) ? Object.keys(s.properties) : [];
    const onlyNames = props.every((k) => k === 'name' || k === 'generateName');
    const others = Object.keys(s).filter((k) => k !== 'type' && k !== 'default' && k !== 'properties' && !isZero(s[k]));
    if (!onlyNames || others.length > 0) {
      errs.push(c.forbidden(path, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
    }
  }
  return errs;
}

/** The keys of a value validation (the schema fields kube allows inside allOf, anyOf, oneOf and not). */
function valueValidationRules(v: Raw, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, lvl: Level, path: string): StatusCause[] {
  const errs: StatusCause[] = [];
  if (!skipAnyOf && Array.isArray(v.anyOf)) {
    v.anyOf.forEach((x, i) => c.appendAll(errs, nestedValueValidationRules(x, false, lvl, `${path}.anyOf[${i}]`)));
  }
  if (Array.isArray(v.allOf)) {
    v.allOf.forEach((x, i) => c.appendAll(errs, nestedValueValidationRules(x, skipFirstAllOfAnyOf && i === 0, lvl, `${path}.allOf[${i}]`)));
  }
  if (Array.isArray(v.oneOf)) v.oneOf.forEach((x, i) => c.appendAll(errs, nestedValueValidationRules(x, false, lvl, `${path}.oneOf[${i}]`)));
  if (v.not !== undefined && v.not !== null) c.appendAll(errs, nestedValueValidationRules(v.not, false, lvl, `${path}.not`));
  if (typeof v.pattern === 'string' && v.pattern !== '') {
    try {
      compileGoRegexp(v.pattern);
    } catch (err) {
      if (!(err instanceof GoRegexpError)) throw err;
      errs.push(c.invalid(`${path}.pattern`, v.pattern, `must be a valid regular expression, but isn't: ${err.message}`));
    }
  }
  return errs;
}

function nestedValueValidationRules(raw: unknown, skipAnyOf: boolean, lvl: Level, path: string): StatusCause[] {
  if (!isObject(raw)) return [];
  const v = raw;
  const errs: StatusCause[] = [];
  c.appendAll(errs, valueValidationRules(v, skipAnyOf, false, lvl, path));
  if (isObject(v.items)) c.appendAll(errs, nestedValueValidationRules(v.items, false, lvl, `${path}.items`));
  if (isObject(v.properties)) {
    for (const key of Object.keys(v.properties)) c.appendAll(errs, nestedValueValidationRules(v.properties[key], false, 'field', `${path}.properties[${key}]`));
  }
  if (str(v.type) !== '') errs.push(c.forbidden(`${path}.type`, 'must be empty to be structural'));
  if (v.additionalProperties !== undefined && v.additionalProperties !== null) errs.push(c.forbidden(`${path}.additionalProperties`, 'must be undefined to be structural'));
  if (v.default !== undefined && v.default !== null) errs.push(c.forbidden(`${path}.default`, 'must be undefined to be structural'));
  if (str(v.title) !== '') errs.push(c.forbidden(`${path}.title`, 'must be empty to be structural'));
  if (str(v.description) !== '') errs.push(c.forbidden(`${path}.description`, 'must be empty to be structural'));
  if (v.nullable === true) errs.push(c.forbidden(`${path}.nullable`, 'must be false to be structural'));
  if (v.externalDocs !== undefined && v.externalDocs !== null) errs.push(c.forbidden(`${path}.externalDocs`, 'must be undefined to be structural'));
  if (v['x-kubernetes-preserve-unknown-fields'] === true) errs.push(c.forbidden(`${path}.x-kubernetes-preserve-unknown-fields`, 'must be false to be structural'));
  if (v['x-kubernetes-embedded-resource'] === true) errs.push(c.forbidden(`${path}.x-kubernetes-embedded-resource`, 'must be false to be structural'));
  if (v['x-kubernetes-int-or-string'] === true) errs.push(c.forbidden(`${path}.x-kubernetes-int-or-string`, 'must be false to be structural'));
  if (nonEmptyArray(v['x-kubernetes-list-map-keys'])) errs.push(c.forbidden(`${path}.x-kubernetes-list-map-keys`, 'must be empty to be structural'));
  if (typeof v['x-kubernetes-list-type'] === 'string') errs.push(c.forbidden(`${path}.x-kubernetes-list-type`, 'must be undefined to be structural'));
  if (typeof v['x-kubernetes-map-type'] === 'string') errs.push(c.forbidden(`${path}.x-kubernetes-map-type`, 'must be undefined to be structural'));
  if (nonEmptyArray(v['x-kubernetes-validations'])) errs.push(c.forbidden(`${path}.x-kubernetes-validations`, 'must be empty to be structural'));
  if (isObject(v.properties) && Object.hasOwn(v.properties, 'metadata')) {
    errs.push(c.forbidden(`${path}.properties[metadata]`, 'must not be specified in a nested context'));
  }
  return errs;
}

/** Fields and arrays named in the root's value validations must exist in the structural schema (complete.go checks the root's only). */
export function rootCompleteness(schema: Raw, path: string): StatusCause[] {
  return valueValidationCompleteness(schema, schema, path, path);
}

function valueValidationCompleteness(v: Raw, st: Raw | undefined, sPath: string, vPath: string): StatusCause[] {
  if (!st) return [c.required(sPath, `because it is defined in ${vPath}`)];
  const errs: StatusCause[] = [];
  if (isObject(v.not)) c.appendAll(errs, nestedCompleteness(v.not, st, sPath, `${vPath}.not`));
  for (const key of ['allOf', 'anyOf', 'oneOf']) {
    const list = v[key];
    if (Array.isArray(list)) list.forEach((x, i) => isObject(x) && c.appendAll(errs, nestedCompleteness(x, st, sPath, `${vPath}.${key}[${i}]`)));
  }
  return errs;
}

function nestedCompleteness(v: Raw, st: Raw | undefined, sPath: string, vPath: string): StatusCause[] {
  if (!st) return [c.required(sPath, `because it is defined in ${vPath}`)];
  const errs = valueValidationCompleteness(v, st, sPath, vPath);
  if (isObject(v.items)) c.appendAll(errs, nestedCompleteness(v.items, isObject(st.items) ? st.items : undefined, `${sPath}.items`, `${vPath}.items`));
  if (isObject(v.properties)) {
    const sProps = isObject(st.properties) ? st.properties : {};
    for (const key of Object.keys(v.properties)) {
      const vFld = v.properties[key];
      if (!isObject(vFld)) continue;
      if (!Object.hasOwn(sProps, key)) {
        errs.push(c.required(`${sPath}.properties[${key}]`, `because it is defined in ${vPath}.properties[${key}]`));
      } else {
        c.appendAll(errs, nestedCompleteness(vFld, isObject(sProps[key]) ? sProps[key] : undefined, `${sPath}.properties[${key}]`, `${vPath}.properties[${key}]`));
      }
    }
  }
  return errs;
}
