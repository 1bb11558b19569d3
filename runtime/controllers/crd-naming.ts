// apiextensions-apiserver's naming controller (pkg/controller/status/naming_controller.go), in
// process: a CRD's requested names are accepted unless another CRD of its group already holds
// one of them as an accepted name (plural, singular and short names share one space, kind and
// listKind another). It writes status.acceptedNames and the NamesAccepted condition through the
// status subresource, and Established False (`Installing`) once the names are first accepted,
// for the establishing controller to finish. When a CRD's names change or it goes, the other
// CRDs of its group are looked at again, so a conflict resolves once its holder is gone.

import { isStatusError } from '../errors/status-error.js';
import { asList, asObject, asString, deepClone, deepEqual, metaOf, type KubeObject } from '../machinery/object.js';
import type { Store } from '../registry/store.js';
import { findCondition, setCondition, type CRDCondition } from '../registry/strategies/crd/conditions.js';
import { Informer } from './informer.js';
import type { KeyedQueue } from './keyed-queue.js';

type Names = Record<string, unknown>;

const NAME_FIELDS = ['plural', 'singular', 'kind', 'listKind'] as const;

/** Semantic.DeepEqual of two CustomResourceDefinitionNames (an absent list is an empty one). */
function sameNames(a: Names, b: Names): boolean {
  const list = (v: unknown): string => JSON.stringify(asList(v));
  return NAME_FIELDS.every((f) => asString(a[f]) === asString(b[f])) && list(a.shortNames) === list(b.shortNames) && list(a.categories) === list(b.categories);
}

const groupOf = (crd: KubeObject): string => asString(asObject(crd.spec).group);
const acceptedNamesOf = (crd: KubeObject): Names => asObject(asObject(crd.status).acceptedNames);

/** equalToAcceptedOrFresh: a name may stay as accepted, or be taken when nobody in the group has it. */
function conflict(requested: string, accepted: string, used: ReadonlySet<string>): string | undefined {
  if (requested === accepted || !used.has(requested)) return undefined;
  return `${JSON.stringify(requested)} is already in use`;
}

export class CRDNamingController {
  private readonly crds = new Map<string, KubeObject>();
  private readonly informer: Informer;

  constructor(
    private readonly store: Store,
    private readonly queue: KeyedQueue,
    /** Told of a CRD whose names were just accepted (the establishing controller's QueueCRD). */
    private readonly onNamesAccepted: (name: string) => void = () => {},
  ) {
    const seen = (crd: KubeObject): void => {
      this.remember(crd);
      this.enqueue(metaOf(crd).name ?? '');
    };
    this.informer = new Informer(store, {
      onList: (all) => {
        this.crds.clear();
        all.forEach((crd) => this.remember(crd));
        all.forEach((crd) => this.enqueue(metaOf(crd).name ?? ''));
      },
      onAdd: seen,
      onUpdate: seen,
      onDelete: (crd) => {
        const name = metaOf(crd).name ?? '';
        this.crds.delete(name);
        this.enqueue(name);
      },
    });
  }

  start(): Promise<void> {
    return this.informer.start();
  }

  close(): void {
    this.informer.close();
  }

  /** Keeps the newer of what is known and what arrived (our own writes land here before their watch event). */
  private remember(crd: KubeObject): void {
    const name = metaOf(crd).name ?? '';
    const known = this.crds.get(name);
    if (known && Number(metaOf(known).resourceVersion) > Number(metaOf(crd).resourceVersion)) return;
    this.crds.set(name, crd);
  }

  private enqueue(name: string): void {
    void this.queue.enqueue(`crd-naming:${name}`, () => this.sync(name));
  }

  private requeueOthersOfGroup(name: string, group: string): void {
    for (const [other, crd] of this.crds) if (other !== name && groupOf(crd) === group) this.enqueue(other);
  }

  /** The accepted names of every CRD of the group: resource names and kinds. */
  private namesInUse(group: string): { resources: Set<string>; kinds: Set<string> } {
    const resources = new Set<string>();
    const kinds = new Set<string>();
    for (const crd of this.crds.values()) {
      if (groupOf(crd) !== group) continue;
      const accepted = acceptedNamesOf(crd);
      resources.add(asString(accepted.plural));
      resources.add(asString(accepted.singular));
      for (const s of asList(accepted.shortNames)) resources.add(asString(s));
      kinds.add(asString(accepted.kind));
      kinds.add(asString(accepted.listKind));
    }
    return { resources, kinds };
  }

  /** calculateNamesAndConditions: the names to accept, NamesAccepted, and Established. */
  namesAndConditions(crd: KubeObject): { names: Names; namesAccepted: CRDCondition; established: CRDCondition } {
    const { resources, kinds } = this.namesInUse(groupOf(crd));
    const requested = asObject(asObject(crd.spec).names);
    const accepted = acceptedNamesOf(crd);
    const names: Names = deepClone(accepted);
    let failure: { reason: string; message: string } | undefined;
    const take = (field: string, used: ReadonlySet<string>, reason: string): void => {
      const why = conflict(asString(requested[field]), asString(accepted[field]), used);
      if (why) failure = { reason, message: why };
      else names[field] = requested[field];
    };
    take('plural', resources, 'PluralConflict');
    take('singular', resources, 'SingularConflict');
    if (JSON.stringify(asList(requested.shortNames)) !== JSON.stringify(asList(accepted.shortNames))) {
      const held = new Set(asList(accepted.shortNames).map(asString));
      const errors = asList(requested.shortNames)
        .map(asString)
        .filter((s) => !held.has(s))
        .map((s) => conflict(s, '', resources))
        .filter((e): e is string => e !== undefined);
      // utilerrors.NewAggregate: one error as it is, several in brackets.
      if (errors.length) failure = { reason: 'ShortNamesConflict', message: errors.length === 1 ? errors[0] : `[${errors.join(', ')}]` };
      else names.shortNames = requested.shortNames;
    }
    take('kind', kinds, 'KindConflict');
    take('listKind', kinds, 'ListKindConflict');
    names.categories = requested.categories;
    for (const key of Object.keys(names)) if (names[key] === undefined) delete names[key];
    const namesAccepted: CRDCondition = failure
      ? { type: 'NamesAccepted', status: 'False', ...failure }
      : { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' };
    const old = findCondition(crd, 'Established');
    let established: CRDCondition = old
      ? { type: 'Established', status: old.status as CRDCondition['status'], reason: asString(old.reason), message: asString(old.message) }
      : { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' };
    if (established.status !== 'True' && namesAccepted.status === 'True') {
      established = { type: 'Established', status: 'False', reason: 'Installing', message: 'the initial names have been accepted' };
    }
    return { names, namesAccepted, established };
  }

  private async sync(name: string): Promise<void> {
    const cached = this.crds.get(name);
    if (!cached) {
      // Gone: its names are free now for the others of its group.
      const group = name.slice(name.indexOf('.') + 1);
      this.requeueOthersOfGroup(name, group);
      return;
    }
    if (sameNames(asObject(asObject(cached.spec).names), acceptedNamesOf(cached))) return;
    const { names, namesAccepted, established } = this.namesAndConditions(cached);
    const current = findCondition(cached, 'NamesAccepted');
    const equivalent = current && current.status === namesAccepted.status && current.reason === namesAccepted.reason && current.message === namesAccepted.message;
    if (deepEqual(acceptedNamesOf(cached), names) && equivalent) return;
    const crd = deepClone(cached);
    crd.status = { ...asObject(crd.status), acceptedNames: names };
    setCondition(crd, namesAccepted);
    setCondition(crd, established);
    try {
      this.remember(await this.store.update(undefined, name, crd, { subresource: 'status' }));
      if (namesAccepted.status === 'True') this.onNamesAccepted(name);
    } catch (e) {
      // Gone or changed meanwhile: the informer's next event brings it back here.
      if (isStatusError(e) && (e.code === 404 || e.code === 409)) return;
      throw e;
    }
    this.requeueOthersOfGroup(name, groupOf(cached));
  }
}
