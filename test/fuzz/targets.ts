// What the fuzz aims at: one stored object of every served kind, made from the catalog of valid
// samples (test/e2e/catalog), moved into a namespace of its own so that an accepted Namespace
// deletion cannot take the other targets with it.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { resources } from '../../generated/registry.js';
import type { ResourceDefinition } from '../../runtime/registry/definition.js';
import { schemaSites, type Site } from './schema-sites.js';

export const FUZZ_NAMESPACE = 'fuzz';
const TARGET_NAMESPACE_NAME = 'fuzz-target';
const CATALOG_DIR = join(import.meta.dirname, '../e2e/catalog');

export interface Target {
  def: ResourceDefinition;
  apiVersion: string;
  /** A valid object of the kind, as the catalog has it (in the fuzz namespace). */
  sample: Record<string, unknown>;
  name: string;
  collectionPath: string;
  objectPath: string;
  sites: Site[];
  /** Subresources written with a body of the kind itself (status, finalize, ephemeralcontainers). */
  objectSubresources: string[];
  /** Virtual kinds are created only; nothing is stored. */
  virtual: boolean;
}

export function loadTargets(): Target[] {
  return readdirSync(CATALOG_DIR)
    .filter((f) => f.endsWith('.yaml') && !f.startsWith('secret.bootstrap-token'))
    .sort()
    .map((file) => {
      const sample = parse(readFileSync(join(CATALOG_DIR, file), 'utf8')) as Record<string, unknown>;
      const apiVersion = sample.apiVersion as string;
      const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
      const def = resources.find((r) => r.group === group && r.version === version && r.kind === sample.kind);
      if (!def) throw new Error(`${file}: ${apiVersion} ${String(sample.kind)} is not served`);
      const meta = (sample.metadata ??= {}) as Record<string, unknown>;
      if (def.kind === 'Namespace') meta.name = TARGET_NAMESPACE_NAME;
      if (def.namespaced) meta.namespace = FUZZ_NAMESPACE;
      retarget(sample, def.kind);
      const prefix = group ? `/apis/${group}/${version}` : `/api/${version}`;
      const collectionPath = `${prefix}${def.namespaced ? `/namespaces/${FUZZ_NAMESPACE}` : ''}/${def.plural}`;
      const name = String(meta.name ?? '');
      return {
        def,
        apiVersion,
        sample,
        name,
        collectionPath,
        objectPath: `${collectionPath}/${name}`,
        sites: schemaSites(def.openAPIName),
        objectSubresources: def.subresources.filter((s) => s.kind === def.kind).map((s) => s.name),
        virtual: def.virtual === true,
      };
    });
}

/** References inside samples to the `default` namespace move with their objects. */
function retarget(sample: Record<string, unknown>, kind: string): void {
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (o.namespace === 'default') o.namespace = FUZZ_NAMESPACE;
      Object.values(o).forEach(walk);
    }
  };
  if (kind !== 'Namespace') walk(sample);
}

/** A valid object's shape for a new name (POST bodies). */
export function withName(sample: Record<string, unknown>, name: string): Record<string, unknown> {
  const copy = structuredClone(sample);
  (copy.metadata as Record<string, unknown>).name = name;
  return copy;
}
