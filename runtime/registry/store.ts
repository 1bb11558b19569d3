// The generic REST store, after k8s.io/apiserver's registry.Store: one flow for every kind over
// the resource's storage (resource-storage.ts; whether a watch cache serves its reads is not the
// store's business), calling the kind's Strategy at kube-apiserver's fixed points. It owns
// ObjectMeta (uid, creationTimestamp, generateName, resourceVersion, generation, deletion and
// finalizers); the kind owns its fields. Lists, delete-collection and watch live beside it.

import { randomUUID } from 'node:crypto';
import type { UserInfo } from '../auth/user.js';
import {
  OBJECT_MODIFIED,
  StatusError,
  alreadyExists,
  badRequest,
  conflict,
  invalid,
  isStatusError,
  notFound,
  type GroupResource,
  type StatusReason,
} from '../errors/status-error.js';
import type { ResourceDefinition } from './definition.js';
import { objectKey } from './keys.js';
import { MAX_NAME_GENERATION_ATTEMPTS, generateName } from './names.js';
import { admitCreate, type NamespaceLookup } from './namespace-lifecycle.js';
import { runMutatingAdmission, runValidatingAdmission, type AdmissionAttributes, type AdmissionPlugin } from './admission/admission.js';
import { deepClone, deepEqual, metaOf, nowRFC3339, type KubeObject } from '../machinery/object.js';
import { sortKeysDeep } from '../machinery/go-format.js';
import type { DeletionDecision, ResourceStorage } from './resource-storage.js';
import { storedGroup } from './stored-form.js';
import { omitEmptyCollections } from './omit-empty.js';
import { canonicalizeQuantities } from '../machinery/canonical-quantities.js';
import { generatedSchemaIndex } from '../machinery/openapi-schema.js';
import type { ResourceStrategies, Strategy } from './strategy.js';
import { validateDeleteOptions, type DeleteOptions, type SuccessStatus } from './delete-options.js';
import { managedFieldsOfUpdate } from './apply/field-managers.js';
import { finalizersForGarbageCollection } from './gc-finalizers.js';

export interface WriteOptions {
  /** `?dryRun=All`: run every step, persist nothing. */
  dryRun?: boolean;
  fieldManager?: string;
  /** The request's User-Agent: names the manager of a non-apply write without fieldManager. */
  userAgent?: string;
  /** Set by server-side apply, which has already written managedFields for its manager. */
  managedFieldsRecorded?: boolean;
  /** Receives the strategy's warnings about an accepted write (each once), for Warning headers. */
  warnings?: string[];
  /** Who writes; absent for the server's own writes (bootstrap, controllers), which are privileged. */
  user?: UserInfo;
}

function addWarnings(options: WriteOptions, warnings: string[]): void {
  for (const w of warnings) if (options.warnings && !options.warnings.includes(w)) options.warnings.push(w);
}

export interface DeleteResult {
  /** The object as last stored (for a pending deletion: with deletionTimestamp). */
  object: KubeObject;
  /** True when the object is gone; false when finalizers keep it. */
  deleted: boolean;
}

export interface StoreHooks {
  /** Called after a write that left the object marked for deletion but still present. */
  onDeletionPending?(obj: KubeObject): void;
}

export interface StoreOptions {
  /** The resource's storage: directly over the backend, or the watch cache in front of it. */
  storage: ResourceStorage;
  definition: ResourceDefinition;
  strategies: ResourceStrategies;
  /** Looks namespaces up for NamespaceLifecycle admission; absent: no namespace checks. */
  namespaces?: NamespaceLookup;
  /** Admission plugins, in order, asked about every create and update (LimitRanger). */
  admission?: readonly AdmissionPlugin[];
  hooks?: StoreHooks;
}

/** tryUpdate of GuaranteedUpdate: given a copy of the stored object, returns the object to write. */
export type UpdateFunc = (existing: KubeObject) => KubeObject;

/** The admission of one write: the plugins that handle it, and the object before they changed it. */
interface Admitting {
  plugins: readonly AdmissionPlugin[];
  attributes: AdmissionAttributes;
  unadmitted?: KubeObject;
}

const NO_PLUGINS: readonly AdmissionPlugin[] = [];

export class Store {
  readonly definition: ResourceDefinition;
  readonly storage: ResourceStorage;
  readonly strategies: ResourceStrategies;
  readonly groupResource: GroupResource;
  readonly apiVersion: string;
  private readonly namespaces?: NamespaceLookup;
  private readonly admission: readonly AdmissionPlugin[];
  private readonly deleteAdmission: readonly AdmissionPlugin[];
  hooks: StoreHooks;

  constructor(options: StoreOptions) {
    this.definition = options.definition;
    this.storage = options.storage;
    this.strategies = options.strategies;
    this.namespaces = options.namespaces;
    this.admission = options.admission ?? [];
    this.deleteAdmission = this.admission.filter((p) => p.validateDelete !== undefined);
    this.hooks = options.hooks ?? {};
    const def = this.definition;
    this.groupResource = { group: def.group, resource: def.plural };
    this.apiVersion = def.group ? `${def.group}/${def.version}` : def.version;
  }

  key(namespace: string | undefined, name: string): string {
    return objectKey(this.definition, namespace, name);
  }

  strategyFor(subresource = ''): Strategy {
    if (!subresource) return this.strategies.main;
    const s = this.strategies.subresources[subresource];
    if (!s) throw notFound(this.groupResource, subresource);
    return s;
  }

  /** The namespace an object of this kind belongs to for a request; '' for cluster-scoped kinds. */
  private scopeNamespace(namespace: string | undefined): string {
    return this.definition.namespaced ? (namespace ?? '') : '';
  }

  /** rest.EnsureObjectNamespaceMatchesRequestNamespace. */
  private ensureNamespace(obj: KubeObject, namespace: string | undefined): void {
    const meta = metaOf(obj);
    const expected = this.scopeNamespace(namespace);
    const actual = meta.namespace ?? '';
    if (actual === expected) return;
    if (actual === '' || expected === '') {
      if (expected) meta.namespace = expected;
      else delete meta.namespace;
      return;
    }
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }

  private invalid(name: string, causes: { field?: string; message?: string; reason?: string }[]): StatusError {
    // kube-apiserver names the kind it validated: for a view of another version's objects (Event
    // through events.k8s.io/v1), the stored kind's group ("Event", not "Event.events.k8s.io").
    return invalid(storedGroup(this.definition), this.definition.kind, name, causes);
  }

  /** The object as last written (Most Recent). */
  get(namespace: string | undefined, name: string): Promise<KubeObject> {
    return this.storage.get(this.key(namespace, name));
  }

  async create(namespace: string | undefined, input: KubeObject, options: WriteOptions = {}): Promise<KubeObject> {
    const meta = metaOf(input);
    // kube-apiserver refuses a create that carries a version (it was probably copied from a read).
    if (meta.resourceVersion && /^\d+$/.test(meta.resourceVersion) && meta.resourceVersion !== '0') {
      throw new StatusError(500, '', 'resourceVersion should not be set on objects to be created');
    }
    const namespaceRead = admitCreate(this.namespaces, this.definition, this.scopeNamespace(namespace), meta.name ?? '');
    if (namespaceRead) await namespaceRead;
    const generated = Boolean(meta.generateName) && !meta.name;
    const attempts = generated ? MAX_NAME_GENERATION_ATTEMPTS : 1;
    let lastError: unknown;
    for (let i = 0; i < attempts; i++) {
      try {
        // Only a generated name can need another attempt, and each attempt needs the input as sent.
        return await this.createOnce(namespace, attempts > 1 ? deepClone(input) : input, options);
      } catch (e) {
        if (!(isStatusError(e) && e.reason === 'AlreadyExists' && generated)) throw e;
        lastError = e;
      }
    }
    const name = isStatusError(lastError) ? (lastError.details?.name ?? '') : '';
    throw new StatusError(409, 'AlreadyExists', 'the server was not able to generate a unique name for the object', {
      name,
      ...(this.definition.group ? { group: this.definition.group } : {}),
      kind: this.definition.plural,
      retryAfterSeconds: 1,
    });
  }

  private async createOnce(namespace: string | undefined, obj: KubeObject, options: WriteOptions): Promise<KubeObject> {
    const strategy = this.strategies.main;
    const meta = metaOf(obj);
    meta.creationTimestamp = nowRFC3339();
    meta.uid = randomUUID();
    delete meta.resourceVersion;
    delete meta.selfLink;
    if (meta.generateName && !meta.name) meta.name = generateName(meta.generateName);
    this.ensureNamespace(obj, namespace);
    const admitting = this.admitting('CREATE', '', namespace, obj, undefined, options);
    if (admitting.plugins.length) await this.mutatingAdmission(strategy, admitting);
    strategy.prepareForCreate(obj);
    // After the strategy, so fields it resets are not recorded as the writer's; before
    // admission's changes, as kube-apiserver's handlers record them.
    if (admitting.unadmitted) strategy.prepareForCreate(admitting.unadmitted);
    this.recordManagedFields(undefined, obj, options, admitting.unadmitted);
    const name = metaOf(obj).name ?? '';
    const causes = strategy.validate(obj);
    if (causes.length) throw this.invalid(name, causes);
    addWarnings(options, strategy.warningsOnCreate(obj));
    this.canonicalize(strategy, obj);
    if (admitting.plugins.length) await runValidatingAdmission(admitting.plugins, admitting.attributes);
    const key = this.key(namespace, name);
    if (options.dryRun) {
      const existing = await this.storage.get(key, { ignoreNotFound: true });
      if (existing) throw this.alreadyExists(existing, name);
      const out = this.dryRunCopy(obj);
      out.apiVersion = this.apiVersion;
      out.kind = this.definition.kind;
      return out;
    }
    try {
      return await this.storage.create(key, obj);
    } catch (e) {
      if (!(isStatusError(e) && e.reason === 'AlreadyExists')) throw e;
      const existing = await this.storage.get(key, { ignoreNotFound: true }).catch(() => undefined);
      throw this.alreadyExists(existing, name);
    }
  }

  /**
   * A dry run's answer: kube's dry-run storage round-trips it through the storage codec, which
   * sorts an unstructured object's keys (custom resources) as a real write does.
   */
  private dryRunCopy(obj: KubeObject): KubeObject {
    return this.definition.unstructured ? (sortKeysDeep(obj) as KubeObject) : deepClone(obj);
  }

  /** AlreadyExists, prefixed as kube-apiserver does when the holder of the name is being deleted. */
  private alreadyExists(existing: KubeObject | undefined, name: string): StatusError {
    const err = alreadyExists(this.groupResource, name);
    const terminating = existing !== undefined && Boolean(metaOf(existing).deletionTimestamp);
    return terminating ? new StatusError(err.code, err.reason, `object is being deleted: ${err.message}`, err.details) : err;
  }

  /** PUT: replaces the object (or, with a subresource, the part that subresource owns). */
  update(namespace: string | undefined, name: string, input: KubeObject, options: WriteOptions & { subresource?: string } = {}) {
    return this.guaranteedUpdate(namespace, name, () => deepClone(input), options);
  }

  /**
   * PUT as kube-apiserver's store runs it: kinds whose strategy allows create on update (Event)
   * create a missing object, whatever resourceVersion the body names; `created` tells the
   * handler to answer 201.
   */
  async updateOrCreate(
    namespace: string | undefined,
    name: string,
    input: KubeObject,
    options: WriteOptions & { subresource?: string } = {},
  ): Promise<{ object: KubeObject; created: boolean }> {
    const createsMissing = !options.subresource && this.strategies.main.allowCreateOnUpdate();
    for (;;) {
      try {
        return { object: await this.update(namespace, name, input, options), created: false };
      } catch (e) {
        if (!(createsMissing && isStatusError(e) && e.code === 404)) throw e;
      }
      const obj = deepClone(input);
      this.checkName(obj, name, namespace);
      delete metaOf(obj).resourceVersion;
      try {
        return { object: await this.create(namespace, obj, options), created: true };
      } catch (e) {
        // Someone created it meanwhile: replace theirs, as a retried GuaranteedUpdate would.
        if (!(isStatusError(e) && e.reason === 'AlreadyExists')) throw e;
      }
    }
  }

  /**
   * GuaranteedUpdate: read, compute, write if unchanged since the read, else retry. An object that
   * names a resourceVersion is a conditional write and fails with 409 when it is stale.
   */
  async guaranteedUpdate(
    namespace: string | undefined,
    name: string,
    tryUpdate: UpdateFunc,
    options: WriteOptions & { subresource?: string } = {},
  ): Promise<KubeObject> {
    const strategy = this.strategyFor(options.subresource);
    const key = this.key(namespace, name);
    let existing: KubeObject | undefined;
    let written = false;
    const out = await this.storage.guaranteedUpdate(key, async (current) => {
      existing = current;
      written = false;
      const obj = tryUpdate(deepClone(current));
      this.checkName(obj, name, namespace);
      const requested = metaOf(obj).resourceVersion;
      if (!requested && !strategy.allowUnconditionalUpdate()) {
        // kube-apiserver names the resource, not the kind, in this one Invalid error (and shows the version as the integer 0).
        const cause = { reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be specified for an update', field: 'metadata.resourceVersion' };
        throw invalid(this.definition.group, this.definition.plural, name, [cause]);
      }
      if (requested && requested !== metaOf(current).resourceVersion) {
        throw conflict(this.groupResource, name, OBJECT_MODIFIED);
      }
      // An unconditional write (no resourceVersion) applies to the version just read, as
      // kube-apiserver's store fills it in before validation.
      if (!requested && strategy.allowUnconditionalUpdate()) metaOf(obj).resourceVersion = metaOf(current).resourceVersion;
      await this.beforeUpdate(strategy, obj, current, namespace, options);
      const { resourceVersion: _ignored, ...objMeta } = metaOf(obj);
      const { resourceVersion: _current, ...oldMeta } = metaOf(current);
      // kube-apiserver skips writes that change nothing: the version stays, no watch event fires.
      if (deepEqual({ ...obj, metadata: objMeta, apiVersion: undefined, kind: undefined }, { ...current, metadata: oldMeta, apiVersion: undefined, kind: undefined })) {
        return { object: current, write: false };
      }
      if (options.dryRun) {
        metaOf(obj).resourceVersion = metaOf(current).resourceVersion;
        obj.apiVersion = this.apiVersion;
        obj.kind = this.definition.kind;
        return { object: this.definition.unstructured ? this.dryRunCopy(obj) : obj, write: false };
      }
      written = true;
      return { object: obj, write: true };
    });
    if (!written) return out;
    const meta = metaOf(out);
    // As upstream's shouldDeleteDuringUpdate: only objects whose deletion was waiting on
    // finalizers alone (grace period 0; a kind may also count none as that) go once the last
    // finalizer is removed.
    const grace = metaOf(existing!).deletionGracePeriodSeconds;
    const finalizedOnly = grace === 0 || (grace === undefined && this.strategies.deletesWithoutGracePeriod === true);
    if (meta.deletionTimestamp && !meta.finalizers?.length && finalizedOnly) {
      await this.removeFinalized(key, out);
    } else if (meta.deletionTimestamp) {
      this.hooks.onDeletionPending?.(out);
    }
    return out;
  }

  /**
   * metadata.managedFields gains (or updates) an Update entry for the writer, as kube-apiserver's
   * field manager records it; the writer owns the fields of `written` (obj before admission).
   */
  private recordManagedFields(live: KubeObject | undefined, obj: KubeObject, options: WriteOptions & { subresource?: string }, written = obj): void {
    if (options.managedFieldsRecorded) return;
    const entries = managedFieldsOfUpdate(this.definition, live, written, { fieldManager: options.fieldManager, userAgent: options.userAgent, subresource: options.subresource });
    if (entries) metaOf(obj).managedFields = entries;
    else delete metaOf(obj).managedFields;
  }

  /** The last finalizer of an object being deleted is gone: the object goes too. */
  private async removeFinalized(key: string, written: KubeObject): Promise<void> {
    const revision = metaOf(written).resourceVersion;
    try {
      // Only the version just written: a write in between decides what happens next.
      await this.storage.delete(key, (current) => (metaOf(current).resourceVersion === revision ? { action: 'delete' } : { action: 'none', object: current, deleted: false }), written);
    } catch (e) {
      // Someone else removed it first.
      if (!(isStatusError(e) && e.code === 404)) throw e;
    }
  }

  /** rest.checkName: the body must name the object the URL names. */
  private checkName(obj: KubeObject, name: string, namespace: string | undefined): void {
    const meta = metaOf(obj);
    const objName = meta.name ?? '';
    if (objName !== name) throw badRequest(`the name of the object (${objName}) does not match the name on the URL (${name})`);
    const ns = this.scopeNamespace(namespace);
    if (ns && meta.namespace && meta.namespace !== ns) {
      throw badRequest(`the namespace of the object (${meta.namespace}) does not match the namespace on the request (${ns})`);
    }
  }

  /** rest.BeforeUpdate: system metadata comes from the stored object, then the strategy runs. */
  private async beforeUpdate(strategy: Strategy, obj: KubeObject, old: KubeObject, namespace: string | undefined, options: WriteOptions & { subresource?: string }): Promise<void> {
    this.ensureNamespace(obj, namespace);
    const admitting = this.admitting('UPDATE', options.subresource ?? '', namespace, obj, old, options);
    if (admitting.plugins.length) await this.mutatingAdmission(strategy, admitting);
    const meta = metaOf(obj);
    const oldMeta = metaOf(old);
    if (oldMeta.generation === undefined) delete meta.generation;
    else meta.generation = oldMeta.generation;
    strategy.prepareForUpdate(obj, old);
    if (!meta.uid) meta.uid = oldMeta.uid;
    if (oldMeta.creationTimestamp) meta.creationTimestamp = oldMeta.creationTimestamp;
    if (oldMeta.deletionTimestamp) meta.deletionTimestamp = oldMeta.deletionTimestamp;
    if (oldMeta.deletionGracePeriodSeconds !== undefined && meta.deletionGracePeriodSeconds === undefined) {
      meta.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
    }
    // After the strategy, so fields it resets are not recorded as the writer's; before
    // admission's changes, as kube-apiserver's handlers record them.
    if (admitting.unadmitted) strategy.prepareForUpdate(admitting.unadmitted, old);
    this.recordManagedFields(old, obj, options, admitting.unadmitted);
    const causes = strategy.validateUpdate(obj, old);
    if (causes.length) throw this.invalid(meta.name ?? '', causes);
    addWarnings(options, strategy.warningsOnUpdate(obj, old));
    this.canonicalize(strategy, obj);
    if (admitting.plugins.length) await runValidatingAdmission(admitting.plugins, admitting.attributes);
  }

  /**
   * The admission plugins that handle a write, and the attributes they are asked with. Most
   * writes have none, and then no admission step runs at all (not even an await).
   */
  private admitting(
    operation: 'CREATE' | 'UPDATE',
    subresource: string,
    namespace: string | undefined,
    object: KubeObject,
    oldObject: KubeObject | undefined,
    options: WriteOptions,
  ): Admitting {
    const attributes: AdmissionAttributes = {
      operation,
      definition: this.definition,
      subresource,
      namespace: this.scopeNamespace(namespace),
      object,
      oldObject,
      dryRun: options.dryRun ?? false,
      user: options.user,
    };
    const plugins = this.admission.length ? this.admission.filter((p) => p.handles(attributes)) : NO_PLUGINS;
    return { plugins, attributes };
  }

  /**
   * Mutating admission, where kube-apiserver's handlers run it: on the decoded and defaulted
   * object, before the strategy prepares it (so a pod's QoS class sees the limits a plugin set).
   * Records the object as it was before a plugin changed it, if one did.
   */
  private async mutatingAdmission(strategy: Strategy, admitting: Admitting): Promise<void> {
    const { plugins, attributes } = admitting;
    strategy.applyDefaults?.(attributes.object);
    const before = deepClone(attributes.object);
    await runMutatingAdmission(plugins, attributes);
    // The object as the writer sent it, when a plugin changed it: managedFields describe that one.
    if (!deepEqual(before, attributes.object)) admitting.unadmitted = before;
  }

  /** The kind's Canonicalize, then the shape a Go round trip gives (no empty optional maps or lists). */
  private canonicalize(strategy: Strategy, obj: KubeObject): void {
    strategy.canonicalize(obj);
    const index = generatedSchemaIndex();
    const schema = index.component(this.definition.openAPIName);
    if (schema) {
      omitEmptyCollections(obj, schema, index, this.definition.validator.emptyAlwaysEmitted?.(obj));
      canonicalizeQuantities(obj, schema, index);
    }
  }

  /**
   * Deletes the object, or marks it for deletion while finalizers remain. Preconditions in the
   * options must hold against the stored object (409 otherwise).
   */
  async delete(namespace: string | undefined, name: string, options: DeleteOptions = {}): Promise<DeleteResult> {
    validateDeleteOptions(options);
    if (options.user && this.deleteAdmission.length > 0) options = await this.admitDelete(namespace, name, options);
    const key = this.key(namespace, name);
    const outcome = await this.storage.delete(key, (existing): DeletionDecision => {
      this.checkPreconditions(existing, options);
      const decision = this.strategies.beforeDelete?.(existing, options) ?? { action: 'delete' as const };
      if (decision.action === 'keep') return { action: 'none', object: existing, deleted: false };
      // Namespaces run their own lifecycle (the namespace deleter), not the collector's finalizers.
      const gcFinalizers = this.definition.kind === 'Namespace' ? undefined : finalizersForGarbageCollection(this.definition, metaOf(existing).finalizers ?? [], options);
      let marked: KubeObject | undefined;
      if (decision.action === 'update') {
        marked = decision.obj;
        if (gcFinalizers && !decision.ownFinalizers) metaOf(marked).finalizers = gcFinalizers;
      } else if ((gcFinalizers ?? metaOf(existing).finalizers ?? []).length > 0) {
        // A deletion already pending changes only when this delete changes the finalizers.
        if (metaOf(existing).deletionTimestamp && !gcFinalizers) return { action: 'none', object: existing, deleted: false };
        marked = deepClone(existing);
        const meta = metaOf(marked);
        if (gcFinalizers) meta.finalizers = gcFinalizers;
        if (!meta.deletionTimestamp) {
          meta.deletionTimestamp = nowRFC3339();
          if ((meta.generation ?? 0) > 0) meta.generation = (meta.generation ?? 0) + 1;
        }
        meta.deletionGracePeriodSeconds = 0;
      }
      if (marked) return options.dryRun ? { action: 'none', object: marked, deleted: false } : { action: 'update', object: marked };
      return options.dryRun ? { action: 'none', object: existing, deleted: true } : { action: 'delete' };
    });
    if (outcome.updated) this.hooks.onDeletionPending?.(outcome.object);
    return { object: outcome.object, deleted: outcome.deleted };
  }

  /**
   * Validating admission of a delete, on the stored object (a missing one is the delete's own
   * 404). The delete is then pinned to that object's uid, so what was judged is what goes.
   */
  private async admitDelete(namespace: string | undefined, name: string, options: DeleteOptions): Promise<DeleteOptions> {
    const existing = await this.get(namespace, name);
    const attributes: AdmissionAttributes = {
      operation: 'DELETE',
      definition: this.definition,
      subresource: '',
      namespace: this.scopeNamespace(namespace),
      object: existing,
      oldObject: existing,
      dryRun: options.dryRun ?? false,
      user: options.user,
    };
    for (const plugin of this.deleteAdmission) if (plugin.handles(attributes)) await plugin.validateDelete!(attributes);
    const uid = metaOf(existing).uid;
    if (options.preconditions?.uid != null || !uid) return options;
    return { ...options, preconditions: { ...options.preconditions, uid } };
  }

  private checkPreconditions(existing: KubeObject, options: DeleteOptions): void {
    const meta = metaOf(existing);
    const p = options.preconditions;
    if (!p) return;
    // rest.BeforeDelete names the Kind here, not the resource.
    const gr = { group: this.definition.group, resource: this.definition.kind };
    if (p.uid != null && p.uid !== meta.uid) {
      throw conflict(gr, meta.name ?? '', `the UID in the precondition (${p.uid}) does not match the UID in record (${meta.uid}). The object might have been deleted and then recreated`);
    }
    if (p.resourceVersion != null && p.resourceVersion !== meta.resourceVersion) {
      throw conflict(gr, meta.name ?? '', `the ResourceVersion in the precondition (${p.resourceVersion}) does not match the ResourceVersion in record (${meta.resourceVersion}). The object might have been modified`);
    }
  }

  /** The Status kube-apiserver's store returns for a completed delete (no code: it is omitted upstream). */
  successStatus(obj: KubeObject): SuccessStatus {
    const meta = metaOf(obj);
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: {
        name: meta.name ?? '',
        ...(this.definition.group ? { group: this.definition.group } : {}),
        kind: this.definition.plural,
        uid: meta.uid ?? '',
      },
    };
  }
}
