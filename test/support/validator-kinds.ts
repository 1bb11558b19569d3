// The generated validators under test, by kind (run `npm run generate` first).

import { resources } from '../../generated/registry.js';
import type { ObjectValidator } from '../../runtime/registry/definition.js';

export function validatorOf(kind: string): ObjectValidator {
  const r = resources.find((x) => x.kind === kind);
  if (!r) throw new Error(`${kind} is not in generated/registry.ts`);
  return r.validator;
}

export const CONFIG_KEY_MSG =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";
export const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
export const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
export const IMMUTABLE_WHEN_SET = 'Forbidden: field is immutable when `immutable` is set';
