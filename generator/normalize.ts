// Builds the normalized model from loaded specs and runs the checks a JSON Schema cannot:
// unknown type references, unknown scalars, duplicate protobuf tags, CEL syntax, and fields
// that other fields name (disjointKeys, listMapKeys, patchMergeKey).

import { createHash } from 'node:crypto';
import { parse as parseCel } from '@marcbachmann/cel-js';
import type { LoadedSpec } from './load.js';
import type { FieldModel, GroupVersionLifecycleModel, GroupVersionModel, KindLifecycleModel, KindModel, Model, TypeModel, TypeRef } from './model.js';
import type { RawField, RawKind, RawType } from './raw-spec.js';
import { GO_ZERO, isScalar, SCALARS } from './scalars.js';
import { SpecError, SpecErrors } from './spec-error.js';
import { specLifecycles } from './lifecycle.js';

/** kube-apiserver's storageVersionHash: the first 8 bytes of sha256("<group>/<version>/<kind>"), base64. */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

const DESCRIPTIONS = {
  apiVersion: 'The versioned schema of this object (group/version, or just the version for the core group). Servers convert known versions and may reject unknown ones.',
  kind: 'The kind of this object, in CamelCase, matching the REST resource it is served from. Servers may infer it from the request path; it cannot be updated.',
  listMeta: 'List metadata: resourceVersion of the list and the continue token for paging.',
};

function implicitField(name: 'apiVersion' | 'kind'): FieldModel {
  return {
    name,
    type: { kind: 'scalar', name: 'string' },
    description: DESCRIPTIONS[name],
    required: false,
    openAPIRequired: false,
    protoName: name,
    reportAtField: false,
    immutable: false,
    writeOnly: false,
    goPointer: false,
    jsonInline: false,
    implicit: true,
  };
}

class Normalizer {
  readonly errors: SpecError[] = [];
  readonly types = new Map<string, TypeModel>();
  private readonly byId = new Map<string, LoadedSpec>();

  constructor(private readonly specs: LoadedSpec[]) {
    for (const s of specs) this.byId.set(s.id, s);
  }

  fail(spec: LoadedSpec, path: (string | number)[], problem: string): void {
    this.errors.push(new SpecError(spec.file, spec.lineOf(path), path.join('.'), problem));
  }

  typeId(spec: LoadedSpec, name: string): string {
    return `${spec.raw.openAPIPrefix}.${name}`;
  }

  /** Parses `[]map[string]meta/v1.ObjectMeta`-style expressions; undefined (with an error) when unresolvable. */
  resolveType(spec: LoadedSpec, expr: string, at: (string | number)[]): TypeRef | undefined {
    if (expr.startsWith('[]')) {
      const of = this.resolveType(spec, expr.slice(2), at);
      return of && { kind: 'list', of };
    }
    if (expr.startsWith('map[string]')) {
      const of = this.resolveType(spec, expr.slice('map[string]'.length), at);
      return of && { kind: 'map', of };
    }
    if (/^[a-z]/.test(expr) && !expr.includes('/')) {
      if (isScalar(expr)) return { kind: 'scalar', name: expr };
      this.fail(spec, at, `must be one of ${SCALARS.join(', ')}, a type name, []T or map[string]T (got ${JSON.stringify(expr)})`);
      return undefined;
    }
    const dot = expr.lastIndexOf('.');
    const target = dot < 0 ? spec : this.byId.get(expr.slice(0, dot));
    const name = dot < 0 ? expr : expr.slice(dot + 1);
    const raw = target?.raw;
    if (!target || !raw || !(raw.types?.[name] || raw.kinds?.[name] || (name.endsWith('List') && raw.kinds?.[name.slice(0, -4)]))) {
      this.fail(spec, at, `unknown type ${JSON.stringify(expr)}`);
      return undefined;
    }
    return { kind: 'ref', id: this.typeId(target, name) };
  }

  buildType(spec: LoadedSpec, name: string, raw: RawType, at: string[], withTypeMeta: boolean): TypeModel {
    const fields: FieldModel[] = [];
    if (withTypeMeta) fields.push(implicitField('apiVersion'), implicitField('kind'));
    const tags = new Map<number, string>();
    for (const [fname, f] of Object.entries(raw.fields ?? {})) {
      const fat = [...at, 'fields', fname];
      const type = this.resolveType(spec, f.type, [...fat, 'type']) ?? { kind: 'scalar', name: 'string' };
      if (f.tag !== undefined) {
        const prior = tags.get(f.tag);
        if (prior) this.fail(spec, [...fat, 'tag'], `duplicate protobuf tag ${f.tag} (also used by field ${prior})`);
        tags.set(f.tag, fname);
      }
      let protoMessage: string | undefined;
      if (f.protoMessage) {
        const ref = this.resolveType(spec, f.protoMessage, [...fat, 'protoMessage']);
        if (ref?.kind === 'ref') protoMessage = ref.id;
      }
      fields.push(this.field(fname, f, type, protoMessage));
      for (const [i, rule] of (f.itemRules ?? []).entries()) {
        this.checkCel(spec, [...fat, 'itemRules', i, 'rule'], rule.rule);
        if (rule.declarative) this.fail(spec, [...fat, 'itemRules', i, 'declarative'], 'only rules of a kind can be declarative');
      }
      for (const [i, d] of (f.defaultWhen ?? []).entries()) this.checkCel(spec, [...fat, 'defaultWhen', i, 'when'], d.when);
      if (f.itemRules && type.kind !== 'list' && type.kind !== 'map') this.fail(spec, [...fat, 'itemRules'], 'itemRules need a list or map field');
    }
    for (const [i, rule] of (raw.rules ?? []).entries()) {
      this.checkCel(spec, [...at, 'rules', i, 'rule'], rule.rule);
      if (rule.valueExpr) this.checkCel(spec, [...at, 'rules', i, 'valueExpr'], rule.valueExpr);
      // Only a kind's own rules have a hand-written twin in its strategy to be compared with.
      if (rule.declarative && at[0] !== 'kinds') this.fail(spec, [...at, 'rules', i, 'declarative'], 'only rules of a kind can be declarative');
    }
    return {
      id: this.typeId(spec, name),
      name,
      specFile: spec.file,
      protoName: `${spec.raw.protoPackage}.${name}`,
      protoPackage: spec.raw.protoPackage,
      description: raw.description ?? '',
      fields,
      rules: raw.rules ?? [],
      typeMeta: withTypeMeta,
      protoOnly: raw.protoOnly ?? false,
    };
  }

  field(name: string, f: RawField, type: TypeRef, protoMessage: string | undefined): FieldModel {
    const { type: _type, tag, protoName, protoMessage: _pm, description, required, openAPIRequired, reportAtField, immutable, writeOnly, goPointer, jsonInline, ...rest } = f;
    return {
      ...rest,
      name,
      type,
      ...(tag !== undefined ? { tag } : {}),
      protoName: protoName ?? name,
      ...(protoMessage ? { protoMessage } : {}),
      description: description ?? '',
      required: required ?? false,
      openAPIRequired: openAPIRequired ?? false,
      reportAtField: reportAtField ?? false,
      immutable: immutable ?? false,
      writeOnly: writeOnly ?? false,
      goPointer: goPointer ?? false,
      jsonInline: jsonInline ?? false,
      implicit: false,
    };
  }

  checkCel(spec: LoadedSpec, at: (string | number)[], expr: string): void {
    try {
      parseCel(expr);
    } catch (e) {
      this.fail(spec, at, `CEL syntax error: ${e instanceof Error ? (e.message.split('\n')[0] ?? e.message) : String(e)}`);
    }
  }

  listType(spec: LoadedSpec, kind: string, listKind: string, item: TypeModel, gvk: TypeModel['gvk']): TypeModel {
    const base = (name: string, tag: number, type: TypeRef, description: string, required: boolean): FieldModel => ({
      ...this.field(name, { type: '', tag, description, required }, type, undefined),
    });
    const listMeta = this.resolveType(spec, 'meta/v1.ListMeta', ['kinds', kind]) ?? { kind: 'scalar', name: 'string' };
    return {
      id: this.typeId(spec, listKind),
      name: listKind,
      specFile: spec.file,
      protoName: `${spec.raw.protoPackage}.${listKind}`,
      protoPackage: spec.raw.protoPackage,
      description: `${listKind} is a list of ${kind} objects.`,
      fields: [
        implicitField('apiVersion'),
        implicitField('kind'),
        base('metadata', 1, listMeta, DESCRIPTIONS.listMeta, false),
        base('items', 2, { kind: 'ref', id: item.id } as TypeRef, `The ${kind} objects of the list.`, true),
      ].map((f) => (f.name === 'items' ? { ...f, type: { kind: 'list', of: f.type } as TypeRef } : f)),
      rules: [],
      typeMeta: true,
      protoOnly: false,
      ...(gvk ? { gvk: { ...gvk, kind: listKind } } : {}),
    };
  }

  kind(spec: LoadedSpec, name: string, raw: RawKind): KindModel {
    const group = spec.raw.group ?? '';
    const version = spec.raw.version ?? '';
    if (spec.raw.version === undefined) this.fail(spec, ['version'], 'required when the file declares kinds');
    const gvk = { group, version, kind: name };
    const type = { ...this.buildType(spec, name, raw, ['kinds', name], true), gvk };
    if (raw.protobufMessage) type.protoName = `${spec.raw.protoPackage}.${raw.protobufMessage}`;
    const listKind = raw.listKind ?? `${name}List`;
    const listType = this.listType(spec, name, listKind, type, gvk);
    for (const [i, sub] of (raw.subresources ?? []).entries()) {
      if ((sub.group === undefined) !== (sub.version === undefined)) {
        this.fail(spec, ['kinds', name, 'subresources', i], 'group and version go together');
      }
      // A kind of another group version is checked by the runtime's codecs, not against this file.
      if (sub.group === undefined && sub.kind && sub.kind !== name && !spec.raw.kinds?.[sub.kind] && !spec.raw.types?.[sub.kind]) {
        this.fail(spec, ['kinds', name, 'subresources', i, 'kind'], `unknown kind ${JSON.stringify(sub.kind)}`);
      }
    }
    if (raw.virtual) {
      // Either an operation (create only: the reviews) or a view computed on each read (get and
      // list: ComponentStatus); nothing else can be served without storage.
      const operation = raw.verbs.length > 0 && raw.verbs.every((v) => v === 'create');
      const view = raw.verbs.length > 0 && raw.verbs.every((v) => v === 'get' || v === 'list');
      if (!operation && !view) this.fail(spec, ['kinds', name, 'verbs'], `a virtual kind serves create alone, or get and list (got ${raw.verbs.join(', ')})`);
      if (!raw.strategy) this.fail(spec, ['kinds', name, 'virtual'], 'a virtual kind needs a strategy naming its handler');
      if (raw.subresources?.length) this.fail(spec, ['kinds', name, 'subresources'], 'a virtual kind has no subresources');
    }
    for (const [i, col] of (raw.printerColumns ?? []).entries()) if (col.cel) this.checkCel(spec, ['kinds', name, 'printerColumns', i, 'cel'], col.cel);
    const storedAs = raw.storedAs ? this.storedAs(spec, name, raw, type) : undefined;
    for (const [i, path] of (raw.validationOrder ?? []).entries()) {
      const head = path.split('.')[0];
      if (!type.fields.some((f) => f.name === head)) this.fail(spec, ['kinds', name, 'validationOrder', i], `unknown field ${JSON.stringify(head)} of ${name}`);
    }
    return {
      group,
      version,
      kind: name,
      listKind,
      plural: raw.plural,
      singular: raw.singular ?? name.toLowerCase(),
      namespaced: raw.scope === 'Namespaced',
      verbs: [...raw.verbs].sort(),
      shortNames: raw.shortNames ?? [],
      categories: raw.categories ?? [],
      stability: raw.stability ?? (/alpha/.test(version) ? 'alpha' : /beta/.test(version) ? 'beta' : 'stable'),
      ...(raw.featureGate ? { featureGate: raw.featureGate } : {}),
      printerColumns: (raw.printerColumns ?? []).map((c) => ({ ...c, priority: c.priority ?? 0 })),
      subresources: (raw.subresources ?? []).map((s) => ({
        name: s.name,
        kind: s.kind ?? name,
        ...(s.group !== undefined ? { group: s.group, version: s.version } : {}),
        ...(s.handler ? { handler: s.handler } : {}),
        verbs: [...s.verbs].sort(),
      })),
      nameFormat: raw.nameFormat ?? 'dns1123Subdomain',
      returnDeletedObject: raw.returnDeletedObject ?? false,
      tracksGeneration: raw.tracksGeneration ?? false,
      statusResetsMetadata: raw.statusResetsMetadata ?? false,
      allowUnconditionalUpdate: raw.allowUnconditionalUpdate ?? true,
      garbageCollectionPolicy: raw.garbageCollectionPolicy ?? 'DeleteDependents',
      ...(raw.validationOrder ? { validationOrder: raw.validationOrder } : {}),
      ...(raw.statusField ? { statusField: raw.statusField } : {}),
      ...(raw.strategy ? { strategy: raw.strategy } : {}),
      virtual: raw.virtual ?? false,
      storagePrefix: raw.storagePrefix ?? raw.plural,
      ...(storedAs ? { storedAs } : {}),
      updateOrder: raw.updateOrder ?? 'updateFirst',
      type,
      listType,
      // Nothing is stored for a virtual kind, so discovery shows no storage version (as kube-apiserver's non-store REST).
      storageVersionHash: raw.virtual
        ? ''
        : raw.storedAs
          ? storageVersionHash(raw.storedAs.group ?? group, raw.storedAs.version, name)
          : storageVersionHash(group, raw.storageVersion ?? version, name),
    };
  }

  /** The stored form of a kind kept as another group version's: renames must name fields on both sides once. */
  storedAs(spec: LoadedSpec, name: string, raw: RawKind, type: TypeModel): { apiVersion: string; fieldRenames: Record<string, string> } {
    const stored = raw.storedAs!;
    const at = ['kinds', name, 'storedAs'];
    if (raw.storageVersion) this.fail(spec, [...at], 'storedAs and storageVersion exclude each other');
    const fields = new Set(type.fields.map((f) => f.name));
    const renames = stored.fieldRenames ?? {};
    const targets = new Set<string>();
    for (const [from, to] of Object.entries(renames)) {
      if (!fields.has(from)) this.fail(spec, [...at, 'fieldRenames', from], `unknown field ${JSON.stringify(from)} of ${name}`);
      // A stored name may not be taken by a field that keeps its name, nor by two renames.
      if ((fields.has(to) && !(to in renames)) || targets.has(to)) this.fail(spec, [...at, 'fieldRenames', from], `stored name ${JSON.stringify(to)} is already used`);
      targets.add(to);
    }
    const group = stored.group ?? spec.raw.group ?? '';
    return { apiVersion: group ? `${group}/${stored.version}` : stored.version, fieldRenames: { ...renames } };
  }

  /** Checks that need every type resolved: names other fields give. */
  crossCheck(spec: LoadedSpec, type: TypeModel, at: string[]): void {
    const byName = new Map(type.fields.map((f) => [f.name, f]));
    for (const f of type.fields) {
      const fat = [...at, 'fields', f.name];
      if (f.disjointKeys) {
        const other = byName.get(f.disjointKeys.with);
        if (!other || other.type.kind !== 'map') this.fail(spec, [...fat, 'disjointKeys', 'with'], `must name a map field of the same type (got ${JSON.stringify(f.disjointKeys.with)})`);
      }
      const itemType = f.type.kind === 'list' && f.type.of.kind === 'ref' ? this.types.get(f.type.of.id) : undefined;
      // Keys may live in an embedded struct (EphemeralContainer's common fields), as JSON sees them.
      const itemFields = new Set(itemType ? jsonFields(this, itemType).map((x) => x.name) : []);
      for (const key of f.listMapKeys ?? []) if (!itemFields.has(key)) this.fail(spec, [...fat, 'listMapKeys'], `unknown field ${JSON.stringify(key)} of the list's items`);
      for (const key of f.uniqueKeys ?? []) if (!itemFields.has(key)) this.fail(spec, [...fat, 'uniqueKeys'], `unknown field ${JSON.stringify(key)} of the list's items`);
      for (const key of f.elementOrder ?? []) if (!itemFields.has(key)) this.fail(spec, [...fat, 'elementOrder'], `unknown field ${JSON.stringify(key)} of the list's items`);
      if (f.uniqueAmongValid && f.uniqueKeys?.length !== 1) this.fail(spec, [...fat, 'uniqueAmongValid'], 'needs uniqueKeys with exactly one key');
      if (f.patchMergeKey && itemType && !itemFields.has(f.patchMergeKey)) this.fail(spec, [...fat, 'patchMergeKey'], `unknown field ${JSON.stringify(f.patchMergeKey)} of the list's items`);
      if (f.listType === 'map' && !f.listMapKeys) this.fail(spec, [...fat, 'listType'], 'listType map needs listMapKeys');
      const collection = f.type.kind === 'list' || f.type.kind === 'map';
      if (f.alwaysEmitted && (f.default !== undefined || f.goPointer || !(collection || f.type.kind === 'ref' || (f.type.kind === 'scalar' && f.type.name in GO_ZERO)))) {
        this.fail(spec, [...fat, 'alwaysEmitted'], 'only a list, map, non-pointer struct, boolean, string or integer without a default is always emitted');
      }
      if (f.zeroWhenAbsent && !(f.type.kind === 'scalar' && f.type.name === 'string')) this.fail(spec, [...fat, 'zeroWhenAbsent'], 'only a string field can be validated as its zero value');
    }
  }
}

export function buildModel(specs: LoadedSpec[]): Model {
  const n = new Normalizer(specs);
  const gvs: GroupVersionModel[] = [];
  const located: [LoadedSpec, TypeModel, string[]][] = [];
  const gvLifecycles: GroupVersionLifecycleModel[] = [];
  const kindLifecycles: KindLifecycleModel[] = [];
  for (const spec of specs) {
    const lifecycles = specLifecycles(spec, (s, path, problem) => n.fail(s, path, problem));
    if (lifecycles.groupVersion) gvLifecycles.push(lifecycles.groupVersion);
    kindLifecycles.push(...lifecycles.kinds);
    const kinds: KindModel[] = [];
    for (const [name, raw] of Object.entries(spec.raw.kinds ?? {})) {
      const k = n.kind(spec, name, raw);
      kinds.push(k);
      n.types.set(k.type.id, k.type);
      // A virtual operation is never listed: no list message or schema exists upstream.
      if (listed(k)) n.types.set(k.listType.id, k.listType);
      located.push([spec, k.type, ['kinds', name]]);
    }
    for (const [name, raw] of Object.entries(spec.raw.types ?? {})) {
      const t = n.buildType(spec, name, raw, ['types', name], raw.typeMeta ?? false);
      if (n.types.has(t.id)) n.fail(spec, ['types', name], `type ${t.id} is already defined`);
      n.types.set(t.id, t);
      located.push([spec, t, ['types', name]]);
    }
    if (kinds.length) gvs.push({ group: spec.raw.group ?? '', version: spec.raw.version ?? '', specFile: spec.file, kinds });
  }
  for (const [spec, t, at] of located) n.crossCheck(spec, t, at);
  if (n.errors.length) throw new SpecErrors(n.errors);
  const byGroupVersion = (a: { group: string; version: string }, b: { group: string; version: string }): number =>
    a.group === b.group ? a.version.localeCompare(b.version) : a.group === '' ? -1 : b.group === '' ? 1 : a.group.localeCompare(b.group);
  gvs.sort(byGroupVersion);
  gvLifecycles.sort(byGroupVersion);
  kindLifecycles.sort((a, b) => byGroupVersion(a, b) || a.kind.localeCompare(b.kind));
  return { files: specs.map((s) => s.file).sort(), types: n.types, groupVersions: gvs, groupVersionLifecycles: gvLifecycles, kindLifecycles };
}

/** Every type id reachable from `roots` through fields (and wire wrappers), in first-seen order. */
/** Whether a kind has a list type: every stored kind, and the virtual kinds served by list. */
export function listed(k: KindModel): boolean {
  return !k.virtual || k.verbs.includes('list');
}

export function reachable(model: Model, roots: string[]): string[] {
  const seen = new Set<string>();
  const visit = (id: string): void => {
    if (seen.has(id)) return;
    const t = model.types.get(id);
    if (!t) return;
    seen.add(id);
    for (const f of t.fields) {
      let ref: TypeRef = f.type;
      while (ref.kind === 'list' || ref.kind === 'map') ref = ref.of;
      if (ref.kind === 'ref') visit(ref.id);
      if (f.protoMessage) visit(f.protoMessage);
    }
  };
  roots.forEach(visit);
  return [...seen];
}

/** The innermost type of a list/map chain. */
export function elementType(ref: TypeRef): TypeRef {
  return ref.kind === 'list' || ref.kind === 'map' ? elementType(ref.of) : ref;
}

/**
 * The fields a type has in JSON: an embedded Go struct (jsonInline) contributes its own fields
 * in its place (PersistentVolumeSpec's volume sources), while protobuf keeps it a message.
 */
export function jsonFields(model: Pick<Model, 'types'>, t: TypeModel): FieldModel[] {
  return t.fields.flatMap((f) => {
    if (!f.jsonInline || f.type.kind !== 'ref') return [f];
    const inner = model.types.get(f.type.id);
    return inner ? jsonFields(model, inner) : [f];
  });
}
