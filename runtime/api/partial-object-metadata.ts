// The metadata-only views a client can ask for with `Accept: ...;as=PartialObjectMetadata[List];
// g=meta.k8s.io;v=v1` (the metadata informers of controllers use them).

import { StatusError } from '../errors/status-error.js';

type JsonObject = Record<string, unknown>;

const isList = (obj: JsonObject): boolean => Array.isArray(obj.items);

/** Go's %T of a typed object, as kube-apiserver's messages show it: `*v1.ConfigMapList`. */
function goTypeName(obj: JsonObject): string {
  const apiVersion = String(obj.apiVersion ?? '');
  return `*${apiVersion.slice(apiVersion.indexOf('/') + 1)}.${String(obj.kind ?? '')}`;
}

function notAcceptable(message: string): StatusError {
  return new StatusError(406, 'NotAcceptable', message);
}

/** One object's metadata, as kind PartialObjectMetadata in meta.k8s.io/<version>. */
export function asPartialObjectMetadata(obj: JsonObject, version = 'v1'): JsonObject {
  if (isList(obj)) {
    throw notAcceptable(`you requested PartialObjectMetadata, but the requested object is a list (${goTypeName(obj)})`);
  }
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: obj.metadata ?? {} };
}

/** A list's items as PartialObjectMetadata, keeping the list's resourceVersion and continue. */
export function asPartialObjectMetadataList(list: JsonObject, version = 'v1'): JsonObject {
  if (!isList(list)) {
    throw notAcceptable(`you requested PartialObjectMetadataList, but the requested object is not a list (${goTypeName(list)})`);
  }
  const items = (list.items as JsonObject[]).map((item) => asPartialObjectMetadata(item, version));
  // A typed ListMeta omits an empty continue, which an unstructured list (custom resources) carries.
  const { continue: token, ...metadata } = (list.metadata ?? {}) as JsonObject;
  return { kind: 'PartialObjectMetadataList', apiVersion: `meta.k8s.io/${version}`, metadata: token ? { ...metadata, continue: token } : metadata, items };
}
