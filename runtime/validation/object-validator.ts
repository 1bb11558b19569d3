// Assembles one ObjectValidator from what the generator emits for a kind: its ajv standalone
// function, its type table and its metadata rules. The order of causes follows kube-apiserver's
// ValidateX / ValidateXUpdate functions: ObjectMeta first, then the kind's fields in declaration
// order; on update either the update-only checks come first (ConfigMap, Secret) or last (Namespace).

import type { StatusCause } from '../errors/status-error.js';
import { setMember } from '../machinery/own-member.js';
import { translateAjvErrors, type AjvError } from './ajv-errors.js';
import { validateObjectMeta, validateObjectMetaUpdate, type MetadataRules } from './object-meta.js';
import { fieldAt, isObj, reachesField, type FieldTest, type Obj, type TypeTable } from './type-table.js';
import { applyDefaults, emptyAlwaysEmitted, walkObject } from './walk.js';
import { dropDisabledFields, hasGatedFields } from './drop-disabled.js';
import { arrangeElementCauses } from './element-order.js';
import { checkRuleCauses } from './cel.js';

/** Generated per kind: defaulting and validation, with kube-apiserver's field paths and messages. */
export interface ObjectValidator {
  /** Fills declared defaults in place (kube-apiserver's defaulting on decode). */
  applyDefaults(obj: Record<string, unknown>): void;
  /** Every declarative rule of a new object, including metadata; [] when valid. */
  validate(obj: Record<string, unknown>): StatusCause[];
  /**
   * Only the types and rules of the kind's own fields, no ObjectMeta rules: what a virtual kind
   * (nothing stored, metadata never kept) checks of a posted object.
   */
  validateFields(obj: Record<string, unknown>): StatusCause[];
  /**
   * The causes with those of list elements in kube-apiserver's per-element order, where the spec
   * asks for it (elementOrder, uniqueAmongValid); for strategies that add causes of their own.
   */
  arrangeElementCauses(obj: Record<string, unknown>, causes: StatusCause[]): StatusCause[];
  /** The spec's elementOrder of the list at this JSON pointer from the kind's root (`/spec/volumes`). */
  elementOrder(pointer: string): readonly string[] | undefined;
  /**
   * The empty lists and maps Go writes as [] or {} (alwaysEmitted members), by holder: the
   * omitempty pass leaves them. Absent: the kind has none.
   */
  emptyAlwaysEmitted?(obj: Record<string, unknown>): WeakMap<object, Set<string>>;
  /**
   * Present when the kind marks rules `declarative`: those rules alone, which validate and
   * validateUpdate leave out, over `obj` (and `old` on update, for transition rules), to be
   * compared with the strategy's hand-written twins (runtime/registry/declarative.ts).
   */
  validateDeclaratively?(obj: Record<string, unknown>, old?: Record<string, unknown>): StatusCause[];
  /**
   * Kinds without a generated schema (custom resources): drops, in place, the fields their own
   * schema does not know and returns their paths (`spec.foo`), for fieldValidation.
   */
  prune?(obj: Record<string, unknown>): string[];
  /** Everything validate checks, plus immutable fields and `oldSelf` rules against `old`. */
  validateUpdate(obj: Record<string, unknown>, old: Record<string, unknown>): StatusCause[];
  /**
   * Present when the kind has feature-gated fields: drops, in place, those whose gate is off,
   * unless `old` (on update) already uses them (kube-apiserver's dropDisabledFields).
   */
  dropDisabledFields?(obj: Record<string, unknown>, old: Record<string, unknown> | undefined, enabled: (gate: string) => boolean): void;
}

/** What ajv standalone code exports per schema. */
export interface SchemaFunction {
  (data: unknown): boolean;
  errors?: AjvError[] | null;
}

export interface KindValidation extends MetadataRules {
  /** Root type name in `types`, e.g. `io.k8s.api.core.v1.ConfigMap`. */
  type: string;
  types: TypeTable;
  schema: SchemaFunction;
  /** 'updateFirst' (default): meta-update and immutability before the full check of the new object. */
  updateOrder?: 'updateFirst' | 'validateFirst';
  /** Field paths in the order kube-apiserver reports them, where it is not declaration order. */
  validationOrder?: string[];
}

/**
 * Sort keys of a cause: its field in kube-apiserver's order, then the index of the list element
 * below it (kube-apiserver validates a list element by element, all checks of one element
 * before the next). The order is the kind's validationOrder (paths such as `roleRef.kind`, for
 * the rare ValidateX that visits fields out of declaration order), then the top-level fields in
 * declaration order.
 */
function fieldOrder(table: TypeTable, type: string, first: readonly string[] = []): (c: StatusCause) => [number, number] {
  const declared = Object.keys(table[type]?.fields ?? {}).filter((n) => !first.includes(n));
  const within = (path: string, at: string): boolean => path === at || path.startsWith(`${at}.`) || path.startsWith(`${at}[`);
  return (c) => {
    const path = c.field ?? '';
    const listed = first.findIndex((at) => within(path, at));
    const head = path.split(/[.[]/)[0] ?? '';
    const i = listed >= 0 ? listed : first.length + (declared.includes(head) ? declared.indexOf(head) : declared.length);
    const element = /^[^.[]*\[(\d+)\]/.exec(path);
    return [i, element ? Number(element[1]) : -1];
  };
}

/**
 * A copy without null-valued properties: kube-apiserver decodes `null` as the zero value, so a
 * null field is an absent one for every rule (kubectl sends `creationTimestamp: null`).
 */
export function withoutNulls(value: unknown): unknown {
  // Nearly every object has no null member: it is then read as it is (validation only reads), and
  // a copy is made only of one that has.
  return holdsNullMember(value) ? copyWithoutNulls(value) : value;
}

/** Walked with an explicit stack, as JSON may nest 10,000 levels: each copy is filled after its parent holds it. */
function copyWithoutNulls(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const emptyCopy = (v: object): object => (Array.isArray(v) ? [] : {});
  const root = emptyCopy(value);
  const sources: object[] = [value];
  const copies: object[] = [root];
  while (sources.length > 0) {
    const source = sources.pop()!;
    const copy = copies.pop()!;
    if (Array.isArray(source)) {
      const out = copy as unknown[];
      for (const item of source) {
        if (typeof item !== 'object' || item === null) {
          out.push(item);
          continue;
        }
        const child = emptyCopy(item);
        out.push(child);
        sources.push(item);
        copies.push(child);
      }
      continue;
    }
    const out = copy as Obj;
    for (const [k, v] of Object.entries(source)) {
      if (v === null) continue;
      if (typeof v !== 'object') {
        setMember(out, k, v);
        continue;
      }
      const child = emptyCopy(v);
      setMember(out, k, child);
      sources.push(v);
      copies.push(child);
    }
  }
  return root;
}

/**
 * Whether an object member anywhere below is null (null list items are kept, as the copy keeps
 * them), walked with an explicit stack.
 */
function holdsNullMember(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v)) {
      for (const item of v) pending.push(item);
      continue;
    }
    for (const key in v) {
      const member = (v as Obj)[key];
      if (member === null) return true;
      pending.push(member);
    }
  }
  return false;
}

/** The kind's own fields whose absent string validation reads as "" (zeroWhenAbsent). */
function zeroWhenAbsentFields(table: TypeTable, type: string): string[] {
  return Object.entries(table[type]?.fields ?? {})
    .filter(([, f]) => f.zeroWhenAbsent)
    .map(([name]) => name);
}

/** A copy whose absent zeroWhenAbsent strings are "", for validation only. */
function withZeroValues(zeroWhenAbsent: string[], obj: Obj): Obj {
  const absent = zeroWhenAbsent.filter((name) => obj[name] === undefined);
  if (absent.length === 0) return obj;
  return { ...obj, ...Object.fromEntries(absent.map((name) => [name, ''])) };
}

/** Only kinds with a list or map Go writes even when empty need the omitempty pass told about them. */
const isAlwaysEmittedCollection: FieldTest = (f) => !!f.alwaysEmitted && (f.shape.t === 'list' || f.shape.t === 'map');

export function objectValidator(k: KindValidation): ObjectValidator {
  const order = fieldOrder(k.types, k.type, k.validationOrder);
  const zeroWhenAbsent = zeroWhenAbsentFields(k.types, k.type);

  const fieldCauses = (given: Obj): StatusCause[] => {
    const obj = zeroWhenAbsent.length ? withZeroValues(zeroWhenAbsent, given) : given;
    const causes: StatusCause[] = [];
    if (!k.schema(obj)) causes.push(...translateAjvErrors(k.schema.errors ?? [], obj, k.types, k.type));
    walkObject(k.types, k.type, obj, undefined, '', { mode: 'create', root: obj }, causes);
    // A valid object, the common write, has nothing to arrange.
    if (causes.length === 0) return causes;
    const arranged = arrangeElementCauses(k.types, k.type, obj, causes);
    // Stable sort: errors of one field stay together, in the order kube-apiserver visits fields.
    return arranged
      .map((c, i) => ({ c, i, o: order(c) }))
      .sort((a, b) => a.o[0] - b.o[0] || a.o[1] - b.o[1] || a.i - b.i)
      .map((x) => x.c);
  };

  // apiextensions-apiserver's kinds use apimachinery's generic ObjectMeta rules, without core's finalizer-name rule.
  const kubeFinalizerNames = !k.type.startsWith('io.k8s.apiextensions-apiserver.');
  const metaRules = { ...k, kubeFinalizerNames };
  const check = (obj: Obj): StatusCause[] => [...validateObjectMeta(obj, metaRules), ...fieldCauses(obj)];
  const validate = (obj: Obj): StatusCause[] => check(withoutNulls(obj) as Obj);

  const declarativeRules = (k.types[k.type]?.rules ?? []).filter((r) => r.declarative);
  const gated = hasGatedFields(k.types, k.type);
  const emitsEmpty = reachesField(k.types, k.type, isAlwaysEmittedCollection);
  return {
    applyDefaults(obj) {
      if (isObj(obj)) applyDefaults(k.types, k.type, obj);
    },
    ...(gated
      ? {
          dropDisabledFields(obj: Obj, old: Obj | undefined, enabled: (gate: string) => boolean) {
            dropDisabledFields(k.types, k.type, obj, old, enabled);
          },
        }
      : {}),
    validate,
    ...(declarativeRules.length > 0
      ? {
          validateDeclaratively(rawObj: Obj, rawOld?: Obj) {
            const obj = withoutNulls(rawObj) as Obj;
            const old = rawOld === undefined ? undefined : (withoutNulls(rawOld) as Obj);
            return declarativeRules.flatMap((rule) => (rule.transition && !old ? [] : checkRuleCauses(rule, '', obj, old, obj)));
          },
        }
      : {}),
    ...(emitsEmpty ? { emptyAlwaysEmitted: (obj: Obj) => emptyAlwaysEmitted(k.types, k.type, obj) } : {}),
    elementOrder: (pointer) => fieldAt(k.types, k.type, pointer)?.elementOrder,
    arrangeElementCauses: (obj, causes) => (isObj(obj) ? arrangeElementCauses(k.types, k.type, withoutNulls(obj) as Obj, causes) : causes),
    validateFields: (obj) => fieldCauses(withoutNulls(obj) as Obj),
    validateUpdate(rawObj, rawOld) {
      const obj = withoutNulls(rawObj) as Obj;
      const old = withoutNulls(rawOld) as Obj;
      const updateOnly = [...validateObjectMetaUpdate(obj, old, 'metadata', kubeFinalizerNames)];
      walkObject(k.types, k.type, obj, old, '', { mode: 'update', root: obj }, updateOnly);
      return k.updateOrder === 'validateFirst' ? [...check(obj), ...updateOnly] : [...updateOnly, ...check(obj)];
    },
  };
}
