// Embedded resources (x-kubernetes-embedded-resource): kube-apiserver requires their apiVersion and
// kind and checks their form (apiextensions-apiserver pkg/apiserver/schema/objectmeta validation),
// with paths in field.Path notation, and their metadata with ObjectMeta's rules (names as path
// segments). The root's own apiVersion, kind and metadata are the caller's.

import type { StatusCause } from '../../errors/status-error.js';
import { isDNS1035Label } from '../../machinery/formats.js';
import { validateObjectMeta } from '../object-meta.js';
import * as c from './causes.js';
import type { SchemaNode } from './structural.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The embedded resources anywhere in `x` (not the root itself), checked. */
export function validateEmbeddedResources(path: string, x: unknown, s: SchemaNode | undefined, out: StatusCause[]): void {
  if (!s) return;
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) validateEmbeddedResources(`${path}[${i}]`, x[i], s.items, out);
    return;
  }
  if (!isObject(x)) return;
  if (s.embeddedResource && path) validateEmbeddedResource(path, x, out);
  const extra = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
  for (const key of Object.keys(x)) {
    const prop = s.properties?.get(key);
    if (prop) validateEmbeddedResources(path ? `${path}.${key}` : key, x[key], prop, out);
    else if (extra) validateEmbeddedResources(`${path}[${key}]`, x[key], extra, out);
  }
}

function validateEmbeddedResource(path: string, x: Record<string, unknown>, out: StatusCause[]): void {
  if (!Object.hasOwn(x, 'apiVersion')) out.push(c.required(`${path}.apiVersion`));
  if (!Object.hasOwn(x, 'kind')) out.push(c.required(`${path}.kind`));
  for (const key of Object.keys(x)) {
    if (key === 'apiVersion') {
      const apiVersion = x.apiVersion;
      const field = `${path}.apiVersion`;
      if (typeof apiVersion !== 'string') out.push(c.invalid(field, apiVersion, 'must be a string'));
      else if (apiVersion === '') out.push(c.required(field));
      else if (apiVersion.split('/').length > 2) out.push(c.invalid(field, apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
    } else if (key === 'kind') {
      const kind = x.kind;
      const field = `${path}.kind`;
      if (typeof kind !== 'string') out.push(c.invalid(field, kind, 'must be a string'));
      else if (kind === '') out.push(c.required(field));
      else {
        const errs = isDNS1035Label(kind.toLowerCase());
        if (errs.length > 0) out.push(c.invalid(field, kind, `may have mixed case, but should otherwise match: ${errs.join(',')}`));
      }
    } else if (key === 'metadata' && isObject(x.metadata)) {
      // ObjectMeta's rules with names as path segments; a missing name stands in as kube's "fakename".
      const meta = { ...x.metadata };
      if (typeof meta.name !== 'string' || meta.name === '') meta.name = 'fakename';
      // apimachinery's ObjectMeta rules, without core's standard-finalizer rule (kubeFinalizerNames: false).
      const rules = { namespaced: typeof meta.namespace === 'string' && meta.namespace !== '', nameFormat: 'pathSegment', kubeFinalizerNames: false };
      c.appendAll(out, validateObjectMeta({ metadata: meta }, rules, `${path}.metadata`));
    }
  }
}
