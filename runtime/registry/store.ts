// The generic REST store, after k8s.io/apiserver's registry.Store: one flow for every kind over
// the Storage contract, calling the kind's Strategy at kube-apiserver's fixed points. It owns
// ObjectMeta (uid, creationTimestamp, generateName, resourceVersion, generation, deletion and
// finalizers); the kind owns its fields. Lists, delete-collection and watch live beside it.

import { randomUUID } from 'node:crypto';
import type { UserInfo } from '../auth/user.js';
import type { Storage } from '../storage/interface.js';
import { isStorageError } from '../storage/interface.js';
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
import type { Cacher } from './cacher/cacher.js';
import type { WatchCache } from './cacher/watch-cache.js';
import { collectionPrefix, objectKey } from './keys.js';
import { MAX_NAME_GENERATION_ATTEMPTS, generateName } from './names.js';
import { admitCreate, type NamespaceLookup } from './namespace-lifecycle.js';
import { runMutatingAdmission, runValidatingAdmission, type AdmissionAttributes, type AdmissionPlugin } from './admission/admission.js';
import { deepClone, deepEqual, metaOf, nowRFC3339, type KubeObject } from './object.js';
import { interpretStorageError } from './storage-errors.js';
import { fromStoredForm, storedGroup, toStoredForm } from './stored-form.js';
import { omitEmptyCollections } from './omit-empty.js';
import { canonicalizeQuantities } from './canonical-quantities.js';
import { generatedSchemaIndex } from './openapi-schema.js';
import type { ResourceStrategies, Strategy } from './strategy.js';
import { validateDeleteOptions, type DeleteOptions, type SuccessStatus } from './delete-options.js';
import { recordUpdate } from './apply/field-managers.js';

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
  storage: Storage;
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

export class Store {
  readonly definition: ResourceDefinition;
  readonly storage: Storage;
  readonly strategies: ResourceStrategies;
  readonly groupResource: GroupResource;
  readonly apiVersion: string;
  private readonly namespaces?: NamespaceLookup;
  private readonly admission: readonly AdmissionPlugin[];
  hooks: StoreHooks;
  /** The registry's watch caches, when it runs them; reads and watches then go through them. */
  cacher?: Cacher;

  constructor(options: StoreOptions) {
    this.definition = options.definition;
    this.storage = options.storage;
    this.strategies = options.strategies;
    this.namespaces = options.namespaces;
    this.admission = options.admission ?? [];
    this.hooks = options.hooks ?? {};
    const def = this.definition;
    this.groupResource = { group: def.group, resource: def.plural };
    this.apiVersion = def.group ? `${def.group}/${def.version}` : def.version;
  }

  /** This resource's watch cache (shared by every version of the kind), when there is one. */
  get watchCache(): WatchCache | undefined {
    return this.cacher?.cacheFor(collectionPrefix(this.definition));
  }

  key(namespace: string | undefined, name: string): string {
    return objectKey(this.definition, namespace, name);
  }

  /** The stored JSON back as an API object, with the write's revision as resourceVersion. */
  decode(value: string, modRevision: number): KubeObject {
    // kind and apiVersion lead, as kube-apiserver's encoder writes them.
    const obj = { kind: this.definition.kind, apiVersion: this.apiVersion, ...fromStoredForm(this.definition, JSON.parse(value) as KubeObject) };
    obj.kind = this.definition.kind;
    obj.apiVersion = this.apiVersion;
    metaOf(obj).resourceVersion = String(modRevision);
    this.strategies.defaultOnRead?.(obj);
    return obj;
  }

  /** resourceVersion and selfLink are never stored: the revision is the version. */
  encode(obj: KubeObject): string {
    // Only the top level and metadata change, so shallow copies of those two are enough.
    const copy = toStoredForm(this.definition, obj, this.apiVersion);
    const meta = { ...metaOf(obj) };
    delete meta.resourceVersion;
    delete meta.selfLink;
    copy.metadata = meta;
    return JSON.stringify(copy);
  }

  /** What decode(encode(obj)) gives at `modRevision`, without the parse: for an object the store owns. */
  private stored(obj: KubeObject, modRevision: number): KubeObject {
    const out: KubeObject = { kind: this.definition.kind, apiVersion: this.apiVersion, ...obj };
    out.kind = this.definition.kind;
    out.apiVersion = this.apiVersion;
    const meta = { ...metaOf(obj) };
    delete meta.selfLink;
    meta.resourceVersion = String(modRevision);
    out.metadata = meta;
    return out;
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

  async get(namespace: string | undefined, name: string): Promise<KubeObject> {
    const key = this.key(namespace, name);
    try {
      const kv = await this.storage.get(key);
      if (!kv) throw notFound(this.groupResource, name);
      return this.decode(kv.value, kv.modRevision);
    } catch (e) {
      throw interpretStorageError(e, 'get', this.groupResource, name);
    }
  }

  async create(namespace: string | undefined, input: KubeObject, options: WriteOptions = {}): Promise<KubeObject> {
    const meta = metaOf(input);
    // kube-apiserver refuses a create that carries a version (it was probably copied from a read).
    if (meta.resourceVersion && /^\d+$/.test(meta.resourceVersion) && meta.resourceVersion !== '0') {
      throw new StatusError(500, '', 'resourceVersion should not be set on objects to be created');
    }
    await admitCreate(this.namespaces, this.definition, this.scopeNamespace(namespace), meta.name ?? '');
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
    const admitting = await this.mutatingAdmission(strategy, { operation: 'CREATE', subresource: '', namespace, object: obj, dryRun: options.dryRun, user: options.user });
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
    await runValidatingAdmission(admitting.plugins, admitting.attributes);
    const key = this.key(namespace, name);
    if (options.dryRun) {
      const existing = await this.storage.get(key).catch((e) => Promise.reject(interpretStorageError(e, 'get', this.groupResource, name)));
      if (existing) throw this.alreadyExists(existing.value, name);
      const out = deepClone(obj);
      out.apiVersion = this.apiVersion;
      out.kind = this.definition.kind;
      return out;
    }
    try {
      const kv = await this.storage.create(key, this.encode(obj));
      return this.stored(obj, kv.modRevision);
    } catch (e) {
      if (!isStorageError(e, 'KeyExists')) throw interpretStorageError(e, 'create', this.groupResource, name);
      const existing = await this.storage.get(key).catch(() => undefined);
      throw this.alreadyExists(existing?.value, name);
    }
  }

  /** AlreadyExists, prefixed as kube-apiserver does when the holder of the name is being deleted. */
  private alreadyExists(existingValue: string | undefined, name: string): StatusError {
    const err = alreadyExists(this.groupResource, name);
    const terminating = existingValue !== undefined && Boolean(metaOf(JSON.parse(existingValue) as KubeObject).deletionTimestamp);
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
    for (;;) {
      const kv = await this.storage.get(key).catch((e) => Promise.reject(interpretStorageError(e, 'get', this.groupResource, name)));
      if (!kv) throw notFound(this.groupResource, name);
      const existing = this.decode(kv.value, kv.modRevision);
      const obj = tryUpdate(deepClone(existing));
      this.checkName(obj, name, namespace);
      const requested = metaOf(obj).resourceVersion;
      if (!requested && !strategy.allowUnconditionalUpdate()) {
        // kube-apiserver names the resource, not the kind, in this one Invalid error (and shows the version as the integer 0).
        const cause = { reason: 'FieldValueInvalid', message: 'Invalid value: 0: must be specified for an update', field: 'metadata.resourceVersion' };
        throw invalid(this.definition.group, this.definition.plural, name, [cause]);
      }
      if (requested && requested !== metaOf(existing).resourceVersion) {
        throw conflict(this.groupResource, name, OBJECT_MODIFIED);
      }
      // An unconditional write (no resourceVersion) applies to the version just read, as
      // kube-apiserver's store fills it in before validation.
      if (!requested && strategy.allowUnconditionalUpdate()) metaOf(obj).resourceVersion = metaOf(existing).resourceVersion;
      await this.beforeUpdate(strategy, obj, existing, namespace, options);
      const { resourceVersion: _ignored, ...objMeta } = metaOf(obj);
      const { resourceVersion: _current, ...oldMeta } = metaOf(existing);
      // kube-apiserver skips writes that change nothing: the version stays, no watch event fires.
      if (deepEqual({ ...obj, metadata: objMeta, apiVersion: undefined, kind: undefined }, { ...existing, metadata: oldMeta, apiVersion: undefined, kind: undefined })) {
        return existing;
      }
      if (options.dryRun) {
        metaOf(obj).resourceVersion = metaOf(existing).resourceVersion;
        obj.apiVersion = this.apiVersion;
        obj.kind = this.definition.kind;
        return obj;
      }
      try {
        const written = await this.storage.update(key, this.encode(obj), kv.modRevision);
        const out = this.decode(written.value, written.modRevision);
        const meta = metaOf(out);
        // As upstream's shouldDeleteDuringUpdate: only objects whose deletion was waiting on
        // finalizers alone (grace period 0) go once the last finalizer is removed.
        if (meta.deletionTimestamp && !meta.finalizers?.length && metaOf(existing).deletionGracePeriodSeconds === 0) {
          await this.removeFinalized(key, written.modRevision);
        } else if (meta.deletionTimestamp) {
          this.hooks.onDeletionPending?.(out);
        }
        return out;
      } catch (e) {
        if (isStorageError(e, 'Conflict')) continue;
        throw interpretStorageError(e, 'update', this.groupResource, name);
      }
    }
  }

  /**
   * metadata.managedFields gains (or updates) an Update entry for the writer, as kube-apiserver's
   * field manager records it; the writer owns the fields of `written` (obj before admission).
   */
  private recordManagedFields(live: KubeObject | undefined, obj: KubeObject, options: WriteOptions & { subresource?: string }, written = obj): void {
    if (options.managedFieldsRecorded) return;
    const recorded = recordUpdate(this.definition, live, written, { fieldManager: options.fieldManager, userAgent: options.userAgent, subresource: options.subresource });
    const entries = recorded.metadata?.managedFields;
    if (entries) metaOf(obj).managedFields = entries;
    else delete metaOf(obj).managedFields;
  }

  /** The last finalizer of an object being deleted is gone: the object goes too. */
  private async removeFinalized(key: string, revision: number): Promise<void> {
    try {
      await this.storage.delete(key, revision);
    } catch (e) {
      // Someone else changed or removed it first; their write decides what happens next.
      if (!isStorageError(e, 'Conflict') && !isStorageError(e, 'KeyNotFound')) throw e;
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
    const admitting = await this.mutatingAdmission(strategy, {
      operation: 'UPDATE',
      subresource: options.subresource ?? '',
      namespace,
      object: obj,
      oldObject: old,
      dryRun: options.dryRun,
      user: options.user,
    });
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
    await runValidatingAdmission(admitting.plugins, admitting.attributes);
  }

  /**
   * Mutating admission, where kube-apiserver's handlers run it: on the decoded and defaulted
   * object, before the strategy prepares it (so a pod's QoS class sees the limits a plugin set).
   * Returns the plugins that handle the write, for validating admission after the strategy's
   * own validation, and the object as it was before a plugin changed it.
   */
  private async mutatingAdmission(
    strategy: Strategy,
    write: Omit<AdmissionAttributes, 'definition' | 'namespace' | 'dryRun'> & { namespace: string | undefined; dryRun?: boolean },
  ): Promise<{ plugins: AdmissionPlugin[]; attributes: AdmissionAttributes; unadmitted?: KubeObject }> {
    const attributes: AdmissionAttributes = { ...write, definition: this.definition, namespace: this.scopeNamespace(write.namespace), dryRun: write.dryRun ?? false };
    const plugins = this.admission.filter((p) => p.handles(attributes));
    if (!plugins.length) return { plugins, attributes };
    strategy.applyDefaults?.(attributes.object);
    const before = deepClone(attributes.object);
    await runMutatingAdmission(plugins, attributes);
    // The object as the writer sent it, when a plugin changed it: managedFields describe that one.
    return { plugins, attributes, ...(deepEqual(before, attributes.object) ? {} : { unadmitted: before }) };
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
    const key = this.key(namespace, name);
    for (;;) {
      const kv = await this.storage.get(key).catch((e) => Promise.reject(interpretStorageError(e, 'delete', this.groupResource, name)));
      if (!kv) throw notFound(this.groupResource, name);
      const existing = this.decode(kv.value, kv.modRevision);
      this.checkPreconditions(existing, options);
      const decision = this.strategies.beforeDelete?.(existing, options) ?? { action: 'delete' as const };
      let marked: KubeObject | undefined;
      if (decision.action === 'keep') return { object: existing, deleted: false };
      if (decision.action === 'update') marked = decision.obj;
      else if (metaOf(existing).finalizers?.length) {
        if (metaOf(existing).deletionTimestamp) return { object: existing, deleted: false };
        marked = deepClone(existing);
        const meta = metaOf(marked);
        meta.deletionTimestamp = nowRFC3339();
        meta.deletionGracePeriodSeconds = 0;
        if ((meta.generation ?? 0) > 0) meta.generation = (meta.generation ?? 0) + 1;
      }
      try {
        if (marked) {
          if (options.dryRun) return { object: marked, deleted: false };
          const written = await this.storage.update(key, this.encode(marked), kv.modRevision);
          const out = this.decode(written.value, written.modRevision);
          this.hooks.onDeletionPending?.(out);
          return { object: out, deleted: false };
        }
        if (options.dryRun) return { object: existing, deleted: true };
        const gone = await this.storage.delete(key, kv.modRevision);
        return { object: this.decode(gone.value, gone.modRevision), deleted: true };
      } catch (e) {
        if (isStorageError(e, 'Conflict')) continue;
        throw interpretStorageError(e, 'delete', this.groupResource, name);
      }
    }
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
