// The oracle of fill-struct.test.ts: the sequence of walks readObject made over a decoded body
// before they became one (session 12), kept here only to compare the one walk with: the Go type
// check alone (the decoder without its filling, as patches still use it), then the pruner, the
// null pass and the member count, which still serve patches and custom resources.

import { generatedSchemaIndex } from '../../runtime/machinery/openapi-schema.js';
import { jsonDecodeError } from '../../runtime/machinery/go-decode/index.js';
import { memberCount } from '../../runtime/machinery/go-decode/member-count.js';
import { pruneUnknownFields } from '../../runtime/registry/unknown-fields.js';
import { dropNullMembers } from '../../runtime/registry/null-members.js';

/** What the old sequence made of a body (its apiVersion and kind filled in): a complaint, or what it dropped and counted. */
export interface OldDecoding {
  error?: string;
  unknown?: string[];
  members: number;
}

/**
 * The old readObject's steps after the type fields were filled: the member count of the body as
 * parsed (`held`, taken before filling), the type check, then the pruner and the null pass when
 * it found nothing.
 */
export function oldDecode(openAPIName: string, obj: Record<string, unknown>, held: number): OldDecoding {
  const index = generatedSchemaIndex();
  const schema = index.component(openAPIName)!;
  const error = jsonDecodeError(openAPIName, obj);
  if (error) return { error, members: held };
  const unknown = pruneUnknownFields(obj, schema, index);
  dropNullMembers(obj, schema, index);
  return { unknown, members: held };
}

export { memberCount };
