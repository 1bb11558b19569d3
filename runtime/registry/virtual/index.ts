// Virtual kinds (SelfSubjectReview; later TokenReview and the access reviews) stand for an
// operation, not a stored object: a POST is decoded as usual and then answered by a handler that
// computes the response from the posted object and the caller. Handlers are registered here by
// the name the kind's spec gives in `strategy`; nothing of theirs ever reaches storage.

import type { UserInfo } from '../../auth/user.js';
import type { ResourceDefinition } from '../definition.js';
import type { KubeObject } from '../object.js';
import { selfSubjectReview } from './selfsubjectreview.js';

export interface VirtualRequest {
  /** The authenticated caller, as the authentication filter produced it. */
  user: UserInfo;
  /** dryRun=All: a handler with side effects must not make them. */
  dryRun: boolean;
  now: Date;
}

/** Computes the response object of a create; may throw a StatusError. */
export type VirtualCreate = (obj: KubeObject, request: VirtualRequest) => KubeObject;

const HANDLERS: Record<string, VirtualCreate> = {
  selfsubjectreview: selfSubjectReview,
};

export interface VirtualResource {
  definition: ResourceDefinition;
  create: VirtualCreate;
}

export function virtualResourceFor(def: ResourceDefinition): VirtualResource {
  const create = def.strategy ? HANDLERS[def.strategy] : undefined;
  if (!create) throw new Error(`${def.plural}: virtual kind without a known handler (strategy ${JSON.stringify(def.strategy ?? '')})`);
  return { definition: def, create };
}
