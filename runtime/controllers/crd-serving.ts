// Serves the custom resources of every CustomResourceDefinition, as kube's crdHandler does:
// follows the CRDs through the registry's list and watch (as a client would), and once a CRD is
// Established has the registry serve its served versions; a change of the CRD (schema, names,
// versions, deprecation, Terminating) replaces them, compiled again once; a CRD that is deleted or
// no longer Established is unserved (its paths are 404 and the watches on them end). As kube's
// crdHandler.updateCustomResourceDefinition, only a change of the spec or the accepted names
// rebuilds the serving info and so ends the watches opened on the old one (clients relist and
// see the objects under the new rules); Terminating alone keeps them.

import type { KubeObject } from '../machinery/object.js';
import { metaOf } from '../machinery/object.js';
import { CRD_GROUP, CRD_PLURAL, isConditionTrue, specOf, statusOf } from '../registry/custom-resources/crd.js';
import { customResourceDefinitions, type SchemaCompiler } from '../registry/custom-resources/definition.js';
import type { ResourceRegistry } from '../registry/registry.js';
import { Informer } from './informer.js';

export class CustomResourceServing {
  private informer?: Informer;
  /** What each served CRD was last served from, so status-only changes compile nothing. */
  private readonly servedFrom = new Map<string, { servingInfo: string; terminating: boolean }>();
  private pending: Promise<unknown> = Promise.resolve();
  /** True once the CRDs of the first list are served (kube's crd-informer-synced post-start hook). */
  synced = false;

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly compile?: SchemaCompiler,
  ) {}

  start(): void {
    const crds = this.registry.storeFor(CRD_GROUP, 'v1', CRD_PLURAL);
    if (!crds) {
      this.synced = true;
      return;
    }
    this.informer = new Informer(crds, {
      onList: (all) => {
        const present = new Set(all.map((crd) => metaOf(crd).name ?? ''));
        for (const name of [...this.servedFrom.keys()]) if (!present.has(name)) this.unserve(name);
        for (const crd of all) this.sync(crd);
        void this.idle().then(() => (this.synced = true));
      },
      onAdd: (crd) => this.sync(crd),
      onUpdate: (crd) => this.sync(crd),
      onDelete: (crd) => this.unserve(metaOf(crd).name ?? ''),
    });
    void this.informer.start();
  }

  /** Resolves once every change seen so far is served. */
  idle(): Promise<void> {
    return this.pending.then(() => undefined);
  }

  close(): void {
    this.informer?.close();
  }

  private sync(crd: KubeObject): void {
    const name = metaOf(crd).name ?? '';
    if (!isConditionTrue(crd, 'Established')) {
      this.unserve(name);
      return;
    }
    const servingInfo = JSON.stringify([specOf(crd), statusOf(crd).acceptedNames ?? null]);
    const terminating = isConditionTrue(crd, 'Terminating');
    const before = this.servedFrom.get(name);
    if (before?.servingInfo === servingInfo && before.terminating === terminating) return;
    this.servedFrom.set(name, { servingInfo, terminating });
    const endWatches = before !== undefined && before.servingInfo !== servingInfo;
    let definitions;
    try {
      definitions = customResourceDefinitions(crd, this.compile);
    } catch {
      // A schema that cannot be compiled was refused when the CRD was written; one stored
      // before that check is not served rather than served unchecked.
      this.unserve(name);
      return;
    }
    this.track(this.registry.serve(name, definitions, { endWatches }), name);
  }

  private unserve(name: string): void {
    if (!this.servedFrom.delete(name)) return;
    this.track(this.registry.unserve(name));
  }

  private track(change: Promise<void>, name?: string): void {
    // A failed change leaves the previous serving in place; the next event of the CRD (or relist) retries.
    const settled = change.catch(() => {
      if (name !== undefined) this.servedFrom.delete(name);
    });
    this.pending = Promise.all([this.pending, settled]);
  }
}
