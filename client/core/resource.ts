// The verbs of one resource at one path (namespaced or not), shaped like client-go's typed
// clients. The generated modules construct these and narrow them to the verbs a kind serves.

import type { Status } from './status-error.js';
import type { Query, RequestSpec, Transport } from './transport.js';
import type {
  ApplyOptions,
  CallOptions,
  CreateOptions,
  DeleteCollectionOptions,
  DeleteOptions,
  GetOptions,
  ListOptions,
  PatchOptions,
  UpdateOptions,
  WatchEvent,
  WatchOptions,
  WriteOptions,
} from './options.js';
import { watchEvents } from './watch.js';

export interface ObjectMetaLike {
  name?: string;
  namespace?: string;
  resourceVersion?: string;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMetaLike;
}

export interface KubeList<T> {
  metadata?: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items: T[];
}

/** Where a resource lives and what its objects are. */
export interface ResourcePath {
  /** `/api/v1` or `/apis/<group>/<version>` */
  prefix: string;
  plural: string;
  /** Namespace for a namespaced resource; '' (all namespaces) for list and watch across them. */
  namespace?: string;
  apiVersion: string;
  kind: string;
}

const PATCH_TYPES = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
} as const;

const APPLY_TYPE = 'application/apply-patch+yaml';

function writeQuery(o: WriteOptions | ApplyOptions = {}): Query {
  return { dryRun: o.dryRun ? 'All' : undefined, fieldManager: o.fieldManager, fieldValidation: o.fieldValidation };
}

function listQuery(o: Omit<ListOptions, 'signal'> | WatchOptions = {}): Query {
  const { signal: _signal, ...rest } = o as ListOptions;
  return { ...rest } as Query;
}

function deleteBody(o: DeleteOptions): string {
  const body: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'v1' };
  if (o.dryRun) body.dryRun = ['All'];
  for (const key of ['gracePeriodSeconds', 'propagationPolicy', 'preconditions', 'ignoreStoreReadErrorWithClusterBreakingPotential'] as const) {
    if (o[key] !== undefined) body[key] = o[key];
  }
  return JSON.stringify(body);
}

function nameOf(obj: KubeObject): string {
  const name = obj.metadata?.name;
  if (!name) throw new TypeError('the object has no metadata.name');
  return name;
}

export class ResourceClient<T extends KubeObject, L extends KubeList<T> = KubeList<T>> {
  constructor(
    readonly transport: Transport,
    readonly path: ResourcePath,
  ) {}

  /** The collection's path; with a name, the object's; with a subresource, the subresource's. */
  url(name?: string, subresource?: string): string {
    const { prefix, plural, namespace } = this.path;
    let url = namespace ? `${prefix}/namespaces/${encodeURIComponent(namespace)}/${plural}` : `${prefix}/${plural}`;
    if (name !== undefined) {
      if (!name) throw new TypeError('a resource name may not be empty');
      url += `/${encodeURIComponent(name)}`;
    }
    return subresource ? `${url}/${subresource}` : url;
  }

  /** apiVersion and kind filled in when the caller left them out (apply requires them). */
  protected typed(obj: T): T {
    return { apiVersion: this.path.apiVersion, kind: this.path.kind, ...obj };
  }

  create(obj: T, options: CreateOptions = {}): Promise<T> {
    return this.transport.json<T>({ method: 'POST', path: this.url(), query: writeQuery(options), body: JSON.stringify(this.typed(obj)), signal: options.signal });
  }

  get(name: string, options: GetOptions = {}): Promise<T> {
    return this.transport.json<T>({ method: 'GET', path: this.url(name), query: { resourceVersion: options.resourceVersion }, signal: options.signal });
  }

  list(options: ListOptions = {}): Promise<L> {
    return this.transport.json<L>({ method: 'GET', path: this.url(), query: listQuery(options), signal: options.signal });
  }

  update(obj: T, options: UpdateOptions = {}): Promise<T> {
    return this.transport.json<T>({ method: 'PUT', path: this.url(nameOf(obj)), query: writeQuery(options), body: JSON.stringify(this.typed(obj)), signal: options.signal });
  }

  patch(name: string, patch: unknown, options: PatchOptions): Promise<T> {
    return this.transport.json<T>({
      method: 'PATCH',
      path: this.url(name),
      query: { ...writeQuery(options), force: options.force },
      body: typeof patch === 'string' ? patch : JSON.stringify(patch),
      contentType: PATCH_TYPES[options.type],
      signal: options.signal,
    });
  }

  /** Server-side apply: the object is the caller's whole intent for the fields it names. */
  apply(obj: T, options: ApplyOptions): Promise<T> {
    return this.transport.json<T>({
      method: 'PATCH',
      path: this.url(nameOf(obj)),
      query: { ...writeQuery(options), force: options.force },
      body: JSON.stringify(this.typed(obj)),
      contentType: APPLY_TYPE,
      signal: options.signal,
    });
  }

  /** The deleted object when the kind returns it (or deletion is pending on finalizers), else a Status. */
  delete(name: string, options: DeleteOptions = {}): Promise<T | Status> {
    return this.transport.json<T | Status>({ method: 'DELETE', path: this.url(name), body: deleteBody(options), signal: options.signal });
  }

  deleteCollection(options: DeleteCollectionOptions = {}): Promise<L | Status> {
    const { dryRun, gracePeriodSeconds, propagationPolicy, preconditions, ignoreStoreReadErrorWithClusterBreakingPotential, signal, ...list } = options;
    const body = deleteBody({ dryRun, gracePeriodSeconds, propagationPolicy, preconditions, ignoreStoreReadErrorWithClusterBreakingPotential });
    return this.transport.json<L | Status>({ method: 'DELETE', path: this.url(), query: listQuery(list), body, signal });
  }

  /**
   * Events as they happen, resumed from the last resourceVersion seen when the connection drops
   * or the server ends the watch. A 410 (the version is too old) throws ExpiredError: list again.
   */
  watch(options: WatchOptions = {}): AsyncGenerator<WatchEvent<T>, void, undefined> {
    return watchEvents<T>(this.transport, this.url(), options);
  }

  /** Every object, one page (`limit`) at a time, following the continue token. */
  async *listAll(options: Omit<ListOptions, 'continue'> = {}): AsyncGenerator<T, void, undefined> {
    let token: string | undefined;
    do {
      const page = await this.list({ ...options, ...(token ? { continue: token } : {}) });
      yield* page.items;
      token = page.metadata?.continue;
    } while (token);
  }
}

/** A subresource that reads and writes the parent's kind: status, ephemeralcontainers, ... */
export class SubresourceClient<T extends KubeObject> {
  constructor(
    private readonly parent: ResourceClient<T, KubeList<T>>,
    private readonly subresource: string,
  ) {}

  private send<R>(method: 'GET' | 'PUT' | 'PATCH', name: string, options: CallOptions, rest: Omit<RequestSpec, 'method' | 'path' | 'signal'>): Promise<R> {
    return this.parent.transport.json<R>({ method, path: this.parent.url(name, this.subresource), signal: options.signal, ...rest });
  }

  private typed(obj: T): T {
    return { apiVersion: this.parent.path.apiVersion, kind: this.parent.path.kind, ...obj };
  }

  get(name: string, options: GetOptions = {}): Promise<T> {
    return this.send('GET', name, options, { query: { resourceVersion: options.resourceVersion } });
  }

  update(obj: T, options: UpdateOptions = {}): Promise<T> {
    return this.send('PUT', nameOf(obj), options, { query: writeQuery(options), body: JSON.stringify(this.typed(obj)) });
  }

  patch(name: string, patch: unknown, options: PatchOptions): Promise<T> {
    return this.send('PATCH', name, options, {
      query: { ...writeQuery(options), force: options.force },
      body: typeof patch === 'string' ? patch : JSON.stringify(patch),
      contentType: PATCH_TYPES[options.type],
    });
  }

  apply(obj: T, options: ApplyOptions): Promise<T> {
    return this.send('PATCH', nameOf(obj), options, { query: { ...writeQuery(options), force: options.force }, body: JSON.stringify(this.typed(obj)), contentType: APPLY_TYPE });
  }
}

/** A subresource that takes another kind and answers with it: pods/eviction, serviceaccounts/token. */
export class CreateSubresourceClient<B extends KubeObject> {
  constructor(
    private readonly parent: ResourceClient<KubeObject, KubeList<KubeObject>>,
    private readonly subresource: string,
    private readonly meta: { apiVersion: string; kind: string },
  ) {}

  /** POSTs `body` to the named object's subresource. */
  create(name: string, body: B, options: CreateOptions = {}): Promise<B> {
    return this.parent.transport.json<B>({
      method: 'POST',
      path: this.parent.url(name, this.subresource),
      query: writeQuery(options),
      body: JSON.stringify({ ...this.meta, ...body }),
      signal: options.signal,
    });
  }
}
