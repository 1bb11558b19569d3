// Ownership through the scale subresource, as kube-apiserver's ScaleHandler keeps it: a Scale has
// no managedFields of its own, so the Scale a write works on is given the parent's managers of the
// replicas field (as managers of Scale's `.spec.replicas`, in autoscaling/v1), the Scale's field
// manager records the write on it, and the outcome goes back into the parent's managedFields:
// the replicas field moves to whoever owns it on the Scale, every other field stays where it was.

import { StatusError } from '../../errors/status-error.js';
import { generatedSchemaIndex, SchemaIndex, type JsonSchema } from '../../machinery/openapi-schema.js';
import { FieldManager } from './field-manager.js';
import { FieldSet, fieldElement, type Path } from './fieldpath.js';
import { decodeManagedFields, encodeManagedFields, type Managed, type ManagedFieldsEntry } from './managed-fields.js';
import { TypedSchema } from './schema.js';
import type { VersionedSet } from './updater.js';

export const SCALE_API_VERSION = 'autoscaling/v1';
const SCALE_COMPONENT = 'io.k8s.api.autoscaling.v1.Scale';
const REPLICAS_IN_SCALE: Path = [fieldElement('spec'), fieldElement('replicas')];

/**
 * The parent's replicas field in each of its versions (group/version): null for a version that has
 * no scale subresource. Entries in a version it does not name are dropped, as kube drops them.
 */
export type ReplicasPathMappings = ReadonlyMap<string, Path | null>;

/** A CRD's dotted specReplicasPath (`.spec.scaling.replicas`) as a field path. */
export function replicasFieldPath(specReplicasPath: string): Path {
  const dotted = specReplicasPath.startsWith('.') ? specReplicasPath.slice(1) : specReplicasPath;
  return dotted.split('.').map(fieldElement);
}

/** autoscaling/v1 Scale as the field manager types it: two small structs beside ObjectMeta. */
const SCALE_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
    spec: { type: 'object', properties: { replicas: { type: 'integer' } } },
    status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' } } },
  },
};

let scaleManager: FieldManager | undefined;

/** The field manager of every scale endpoint: it sees Scales, in autoscaling/v1, through `scale`. */
export function scaleFieldManager(): FieldManager {
  if (!scaleManager) {
    const typed = new TypedSchema(new SchemaIndex({ ...generatedSchemaIndex().all(), [SCALE_COMPONENT]: SCALE_SCHEMA }));
    scaleManager = new FieldManager({ node: typed.forComponent(SCALE_COMPONENT), apiVersion: SCALE_API_VERSION, subresource: 'scale' });
  }
  return scaleManager;
}

/** Decodes stored entries; kube's handler fails the write (a plain 500) on entries it cannot read. */
function decoded(entries: unknown): Managed {
  try {
    return decodeManagedFields(entries);
  } catch (e) {
    throw new StatusError(500, '', (e as Error).message);
  }
}

export class ScaleManagedFields {
  /**
   * @param parentEntries the parent's managedFields as stored
   * @param groupVersion the version the parent is served in at this endpoint
   */
  constructor(
    private readonly parentEntries: unknown,
    private readonly groupVersion: string,
    private readonly mappings: ReplicasPathMappings,
  ) {}

  /**
   * The managedFields of the Scale: each parent manager that owns the replicas field, now owning
   * Scale's `.spec.replicas` in autoscaling/v1 (its identity and time kept); no one else.
   */
  toSubresource(): ManagedFieldsEntry[] {
    const parent = decoded(this.parentEntries);
    const out: Managed = { fields: new Map(), times: new Map() };
    for (const [id, versioned] of parent.fields) {
      const path = this.mappings.get(versioned.apiVersion);
      if (!path || !versioned.set.has(path)) continue;
      out.fields.set(id, { set: FieldSet.of(REPLICAS_IN_SCALE), apiVersion: SCALE_API_VERSION, applied: versioned.applied });
      const time = parent.times.get(id);
      if (time) out.times.set(id, time);
    }
    return encodeManagedFields(out);
  }

  /**
   * The parent's managedFields after a write through the Scale whose managers are `scaleEntries`:
   * a parent manager absent from them loses the replicas field (and its entry, if nothing is
   * left); a Scale manager owning `.spec.replicas` that the parent does not have as such becomes
   * a parent entry owning the replicas field. A new entry carries the time the parent had for the
   * same identifier, which for a manager new to the parent is none, as kube's handler leaves it.
   */
  toParent(scaleEntries: unknown): ManagedFieldsEntry[] {
    const parent = decoded(this.parentEntries);
    const scale = decoded(scaleEntries).fields;
    const out: Managed = { fields: new Map(), times: new Map() };
    const keep = (id: string, versioned: VersionedSet) => {
      out.fields.set(id, versioned);
      const time = parent.times.get(id);
      if (time) out.times.set(id, time);
    };
    for (const [id, versioned] of parent.fields) {
      if (!this.mappings.has(versioned.apiVersion)) continue;
      const path = this.mappings.get(versioned.apiVersion);
      if (!path || !versioned.set.has(path)) {
        keep(id, versioned);
      } else if (scale.has(id)) {
        keep(id, versioned);
        scale.delete(id);
      } else {
        const rest = versioned.set.difference(FieldSet.of(path));
        if (!rest.empty()) keep(id, { ...versioned, set: rest });
      }
    }
    const ownPath = this.mappings.get(this.groupVersion);
    for (const [id, versioned] of scale) {
      if (!versioned.set.has(REPLICAS_IN_SCALE) || !ownPath) continue;
      keep(id, { set: FieldSet.of(ownPath), apiVersion: this.groupVersion, applied: versioned.applied });
    }
    return encodeManagedFields(out);
  }
}
