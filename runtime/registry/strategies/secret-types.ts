// The keys kube-apiserver's ValidateSecret requires of the well-known Secret types, checked on
// create and on every update (ValidateSecretUpdate repeats the full check): a service account
// token names its account in an annotation; docker configs carry their JSON under the expected
// key; basic-auth has a username or a password; ssh-auth a private key; TLS both halves. The
// contents of dockercfg keys are never echoed back in messages.

import type { StatusCause } from '../../errors/status-error.js';
import { invalid, required } from '../../validation/field-errors.js';
import { goUnmarshalObjectError } from '../../machinery/go-json.js';
import { isPlainObject, metaOf, type KubeObject } from '../../machinery/object.js';

const REDACTED = '<secret contents redacted>';

/** data as decoded bytes by key (values are base64 in the object); null for a value that is not a string, which the schema check reports. */
function decodedData(obj: KubeObject): Map<string, Buffer | null> {
  const out = new Map<string, Buffer | null>();
  if (!isPlainObject(obj.data)) return out;
  for (const [key, value] of Object.entries(obj.data)) out.set(key, typeof value === 'string' ? Buffer.from(value, 'base64') : null);
  return out;
}

function jsonKeyCauses(data: Map<string, Buffer | null>, key: string): StatusCause[] {
  const bytes = data.get(key);
  if (bytes === undefined) return [required(`data[${key}]`)];
  if (bytes === null) return [];
  const error = goUnmarshalObjectError(bytes);
  return error ? [invalid(`data[${key}]`, REDACTED, error)] : [];
}

/** Causes for the type-specific keys of `obj`; [] for Opaque and types kube-apiserver does not check. */
export function secretTypeCauses(obj: KubeObject): StatusCause[] {
  const data = decodedData(obj);
  switch (obj.type) {
    case 'kubernetes.io/service-account-token': {
      const name = metaOf(obj).annotations?.['kubernetes.io/service-account.name'];
      return name ? [] : [required('metadata.annotations[kubernetes.io/service-account.name]')];
    }
    case 'kubernetes.io/dockercfg':
      return jsonKeyCauses(data, '.dockercfg');
    case 'kubernetes.io/dockerconfigjson':
      return jsonKeyCauses(data, '.dockerconfigjson');
    case 'kubernetes.io/basic-auth':
      // Either may be empty, but one of the two keys must be there.
      return data.has('username') || data.has('password') ? [] : [required('data[username]'), required('data[password]')];
    case 'kubernetes.io/ssh-auth': {
      const key = data.get('ssh-privatekey');
      return key === null || key?.length ? [] : [required('data[ssh-privatekey]')];
    }
    case 'kubernetes.io/tls':
      return [...(data.has('tls.crt') ? [] : [required('data[tls.crt]')]), ...(data.has('tls.key') ? [] : [required('data[tls.key]')])];
    default:
      return [];
  }
}
