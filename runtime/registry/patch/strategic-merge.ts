// Strategic merge patch (application/strategic-merge-patch+json), as kube-apiserver applies it
// (apimachinery's strategicpatch, server side): JSON merge patch semantics, except that lists
// whose schema says `patchStrategy: merge` are merged element by element (by their merge key, or
// as a set for primitive lists), and the patch may carry directives: `$patch` (replace | delete)
// in a map or a list element, `$retainKeys`, `$deleteFromPrimitiveList/<field>` and
// `$setElementOrder/<field>`.
//
// Ordering of a merged list: the items the patch names keep the patch's order, the items only
// the server has keep theirs, and the two runs are interleaved by the server's order (so a
// server-only item between two patched ones stays between them).
//
// Errors follow kube-apiserver's patch handler: the malformed-directive errors it knows are 400
// (or 422), every other engine error reaches the client as a plain 500 without a reason.

import { StatusError, badRequest } from '../../errors/status-error.js';
import { goPrint } from '../../machinery/go-decode/index.js';
import { deepClone } from '../../machinery/object.js';
import { getMember, hasMember, setMember } from '../../machinery/own-member.js';
import type { PatchMeta, PatchSchema } from './patch-meta.js';

type JsonObject = Record<string, unknown>;

const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
const SET_ELEMENT_ORDER = '$setElementOrder';

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An engine error kube-apiserver does not interpret: 500, no reason, the message as is. */
const engineError = (message: string) => new StatusError(500, '', message);
/** The strategic patch errors kube-apiserver answers with 400 (interpretStrategicMergePatchError). */
const badPrimitiveListFormat = () => badRequest('invalid patch format of primitive list');
const badRetainKeysFormat = () => badRequest('invalid patch format of retainKeys');
const badSetElementOrderFormat = () => badRequest('invalid patch format of setElementOrder list');
/** ... and the one it answers with 422 (a generic server response, reason Invalid). */
const listOfLists = () =>
  new StatusError(422, 'Invalid', 'the server rejected our request due to an error in our request', {
    causes: [{ reason: 'UnexpectedServerResponse', message: 'lists of lists are not supported' }],
  });

/** Go's reflect type name of a decoded JSON value, as its "expected a X, but received a Y" errors print it. */
function goTypeName(v: unknown): string {
  if (v === null || v === undefined) return '%!s(<nil>)';
  if (Array.isArray(v)) return '[]interface {}';
  if (isObject(v)) return 'map[string]interface {}';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return typeof v === 'boolean' ? 'bool' : 'string';
}

const badArgType = (expected: string, actual: unknown) => engineError(`expected a ${expected}, but received a ${goTypeName(actual)}`);
const noMergeKey = (m: JsonObject, key: string) => engineError(`map: ${goPrint(m)} does not contain declared merge key: ${key}`);

/** Go's %s of a directive value: strings as they are, anything else flagged as Go flags it. */
function goString(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '%!s(<nil>)';
  return `%!s(${goTypeName(v)}=${goPrint(v)})`;
}
const badPatchType = (directive: unknown, m: JsonObject) => engineError(`unknown patch type: ${goString(directive)} in map: ${goPrint(m)}`);

/** Applies `patch` to a copy of `original`; the inputs are left untouched. A null patch changes nothing. */
export function applyStrategicMergePatch(original: JsonObject, patch: unknown, schema: PatchSchema): JsonObject {
  // deepClone: the original may nest deeper than structuredClone can copy (managedFields, 10,000 levels).
  if (patch === null) return deepClone(original);
  if (!isObject(patch)) throw badRequest(`json: cannot unmarshal ${Array.isArray(patch) ? 'array' : typeof patch === 'string' ? 'string' : typeof patch === 'boolean' ? 'bool' : 'number'} into Go value of type map[string]interface {}`);
  return mergeMap(deepClone(original), deepClone(patch), schema);
}

// Where the patch's value is taken rather than merged, strategicpatch cleans it in one of three
// ways, and only these:
//   - a field the original lacks (or holds with another type): null members are dropped at every
//     depth (discardNullValuesFromPatch; null list items stay), then every map carrying `$patch`
//     is dropped (removeDirectives); other directive keys ($retainKeys, $setElementOrder/...) stay
//     as ordinary keys, which the later decode reports as unknown fields;
//   - a list the patch adds beside its `$setElementOrder`: only the `$patch` maps are dropped;
//   - a `$patch: replace` map, a field whose strategy is replace, an element appended to a merged
//     list, the rest of a list with a `$patch: replace` element: the value as the patch wrote it,
//     nulls and directives included (the nulls then decode as Go zero values).

/** Drops null map members at every depth, in place; null list items are kept. */
function discardNullMembers(value: unknown): void {
  if (Array.isArray(value)) {
    value.forEach(discardNullMembers);
  } else if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (v === null) delete value[k];
      else discardNullMembers(v);
    }
  }
}

/** Drops every map carrying `$patch` (a member holding one is removed, a list item too); keep is false for such a map itself. */
function removeDirectives(value: unknown): { keep: boolean; value?: unknown } {
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) {
      const taken = removeDirectives(item);
      if (taken.keep) out.push(taken.value);
    }
    return { keep: true, value: out };
  }
  if (isObject(value)) {
    if (DIRECTIVE in value) return { keep: false };
    for (const [k, v] of Object.entries(value)) {
      const taken = removeDirectives(v);
      if (taken.keep) value[k] = taken.value;
      else delete value[k];
    }
    return { keep: true, value };
  }
  return { keep: true, value };
}

/** The value a field the original lacks takes: nulls discarded first, then `$patch` maps. */
function takeNewValue(value: unknown): { keep: boolean; value?: unknown } {
  discardNullMembers(value);
  return removeDirectives(value);
}

/** The kind of value for "same type?" decisions: maps and lists merge, everything else is replaced. */
const shape = (v: unknown) => (Array.isArray(v) ? 'list' : isObject(v) ? 'map' : 'scalar');

function mergeMap(original: JsonObject, patch: JsonObject, schema: PatchSchema): JsonObject {
  if (DIRECTIVE in patch) {
    const directive = patch[DIRECTIVE];
    if (directive === 'replace') {
      delete patch[DIRECTIVE];
      return patch;
    }
    // A deleted map that the original has is left empty, not removed.
    if (directive === 'delete') return {};
    throw badPatchType(directive, patch);
  }

  applyRetainKeys(original, patch);
  applyElementOrders(original, patch, schema);

  for (const [patchKey, patchValue] of Object.entries(patch)) {
    let key = patchKey;
    let isDeleteList = false;
    if (patchKey.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      key = directiveField(patchKey, DELETE_FROM_PRIMITIVE_LIST, badPrimitiveListFormat);
      isDeleteList = true;
    }
    if (patchValue === null) {
      delete original[key];
      continue;
    }
    const current = getMember(original, key);
    if (!hasMember(original, key) || shape(current) !== shape(patchValue)) {
      // Nothing to merge with: the patch value replaces (a deletion list has nothing to delete from).
      if (isDeleteList) continue;
      const taken = takeNewValue(patchValue);
      if (taken.keep) setMember(original, key, taken.value);
      else delete original[key];
      continue;
    }
    const { meta, schema: child } = schema.field(key);
    const strategy = patchStrategy(meta);
    if (isObject(current)) {
      original[key] = strategy === 'replace' ? patchValue : mergeMap(current, patchValue as JsonObject, child);
    } else if (Array.isArray(current)) {
      original[key] =
        strategy === 'merge' || isDeleteList
          ? mergeSlice(current, patchValue as unknown[], child.items(), meta.mergeKey ?? '', isDeleteList)
          : patchValue;
    } else {
      original[key] = patchValue;
    }
  }
  return original;
}

/** The field's strategy besides retainKeys (merge, replace or none). */
function patchStrategy(meta: PatchMeta): string {
  return meta.strategies.find((s) => s !== 'retainKeys') ?? '';
}

/** `$deleteFromPrimitiveList/<field>` and `$setElementOrder/<field>`: the field, or the directive's 400. */
function directiveField(key: string, prefix: string, malformed: () => StatusError): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) throw malformed();
  return key.slice(slash + 1);
}

/**
 * `$retainKeys`: keys of the original missing from the list are cleared. Every key the patch sets
 * (other than to null, and other than parallel-list directives) must be in the list.
 */
function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!(RETAIN_KEYS in patch)) return;
  const retain = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(retain)) throw badRetainKeysFormat();
  const keep = new Set(retain);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || key.startsWith(DELETE_FROM_PRIMITIVE_LIST) || key.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!keep.has(key)) throw badRetainKeysFormat();
  }
  for (const key of Object.keys(original)) if (!keep.has(key)) delete original[key];
}

/**
 * `$setElementOrder/<field>`: the field's patch list is merged here, then the whole list is put in
 * the order the directive gives, server-only items interleaved by their original positions.
 */
function applyElementOrders(original: JsonObject, patch: JsonObject, schema: PatchSchema): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw badArgType('[]interface {}', order);
    const field = directiveField(key, SET_ELEMENT_ORDER, badSetElementOrderFormat);
    const foundOriginal = hasMember(original, field);
    const foundPatch = hasMember(patch, field);
    const originalList = getMember(original, field);
    const patchList = getMember(patch, field);
    if (foundOriginal && !Array.isArray(originalList)) throw badArgType('[]interface {}', originalList);
    if (foundPatch && !Array.isArray(patchList)) throw badArgType('[]interface {}', patchList);
    const { meta, schema: child } = schema.field(field);
    const mergeKey = meta.mergeKey ?? '';
    const originalItems = (originalList as unknown[] | undefined) ?? [];
    const patchItems = (patchList as unknown[] | undefined) ?? [];
    checkPatchFollowsOrder(patchItems, order, mergeKey);

    let merged: unknown[];
    let serverOrder = originalItems;
    if (foundOriginal && foundPatch) {
      if (patchStrategy(meta) === 'merge') {
        const backing: BackingArray = { items: [...originalItems], length: originalItems.length };
        merged = mergeSlice(originalItems, patchItems, child.items(), mergeKey, false, backing);
        serverOrder = backing.items;
      } else {
        merged = patchItems;
      }
    } else if (foundPatch) {
      merged = removeDirectives(patchItems).value as unknown[];
    } else if (foundOriginal) {
      merged = originalItems;
    } else {
      continue;
    }
    const [named, serverOnly] = partitionByPresence(merged, order, mergeKey);
    const kind = elementKind(serverOrder, patchItems);
    setMember(original, field, normalizeElementOrder(named, serverOnly, order, serverOrder, mergeKey, kind));
    delete patch[field];
  }
}

/**
 * The patch list's items (less deletions and directive elements) must appear in the
 * `$setElementOrder` list, in the same relative order.
 */
function checkPatchFollowsOrder(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const kept = mergeKey ? splitDeletions(patchList)[0] : patchList;
  let p = 0;
  let o = 0;
  while (p < kept.length && o < order.length) {
    if (isObject(kept[p]) && DIRECTIVE in (kept[p] as JsonObject)) {
      p++;
      continue;
    }
    if (mergeKeyEqual(kept[p], order[o], mergeKey)) p++;
    o++;
  }
  if (p < kept.length) {
    throw engineError(`The order in patch list:\n${goPrint(patchList)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${goPrint(order)}\n`);
  }
}

function mergeKeyEqual(left: unknown, right: unknown, mergeKey: string): boolean {
  if (!mergeKey) return left === right;
  if (!isObject(left)) throw badArgType('map[string]interface {}', left);
  if (!isObject(right)) throw badArgType('map[string]interface {}', right);
  if (!(mergeKey in left)) throw noMergeKey(left, mergeKey);
  if (!(mergeKey in right)) throw noMergeKey(right, mergeKey);
  return left[mergeKey] === right[mergeKey];
}

/** Elements to keep and elements carrying `$patch: delete`; every element must be a map. */
function splitDeletions(list: unknown[]): [unknown[], unknown[]] {
  const keep: unknown[] = [];
  const drop: unknown[] = [];
  for (const item of list) {
    if (!isObject(item)) throw badArgType('map[string]interface {}', item);
    (item[DIRECTIVE] === 'delete' ? drop : keep).push(item);
  }
  return [keep, drop];
}

type ElementKind = 'map' | 'scalar';

/** The one element type of the lists: maps or scalars; lists of lists and mixed lists are refused. */
function elementKind(...lists: unknown[][]): ElementKind {
  let first: string | undefined;
  for (const list of lists) {
    for (const item of list) {
      const type = goTypeName(item);
      if (first === undefined) {
        first = type;
        if (Array.isArray(item)) throw listOfLists();
      } else if (type !== first) {
        throw engineError(`list element types are not identical: ${goPrint(lists)}`);
      }
    }
  }
  if (first === undefined) throw engineError('no elements in any of the given slices');
  return first === 'map[string]interface {}' ? 'map' : 'scalar';
}

/** The identity of a list item: its merge key's value for maps, the item itself otherwise. */
const identity = (item: unknown, mergeKey: string, kind: ElementKind) => (kind === 'map' ? (isObject(item) ? item[mergeKey] : undefined) : item);

function indexIn(list: unknown[], item: unknown, mergeKey: string, kind: ElementKind): number {
  const id = identity(item, mergeKey, kind);
  return list.findIndex((v) => identity(v, mergeKey, kind) === id);
}

/**
 * What the caller's copy of the original list reads after kube's merge: Go's in-place deletes
 * and appends write through to the original backing array (its capacity is its length), and
 * `$setElementOrder` then orders by that array. Emulated so the orders match.
 */
interface BackingArray {
  items: unknown[];
  /** Length of the merged slice while it still shares the array; -1 once an append outgrew it. */
  length: number;
}

function mergeSlice(original: unknown[], patch: unknown[], items: PatchSchema, mergeKey: string, isDeleteList: boolean, backing?: BackingArray): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = elementKind(original, patch);
  let merged: unknown[];
  let patchList = patch;
  let originalList = original;
  if (kind === 'scalar') {
    if (isDeleteList) {
      const drop = new Set(patch);
      return original.filter((v) => !drop.has(v));
    }
    merged = [...new Set([...original, ...patch])];
  } else {
    // The element type of a merge-strategy list without a merge key is a primitive's (kube names
    // the Go kind of the list's element type).
    if (!mergeKey) throw engineError('cannot merge lists without merge key for string');
    [originalList, patchList] = applyListDirectives(original, patch, mergeKey, backing);
    merged = [...originalList];
    for (const element of patchList as JsonObject[]) {
      if (!(mergeKey in element)) throw noMergeKey(element, mergeKey);
      const at = merged.findIndex((o) => isObject(o) && mergeKey in o && o[mergeKey] === element[mergeKey]);
      if (at >= 0) {
        merged[at] = mergeMap(merged[at] as JsonObject, element, items);
        continue;
      }
      const added = element;
      merged.push(added);
      if (backing && backing.length >= 0) {
        if (backing.length < backing.items.length) backing.items[backing.length++] = added;
        else backing.length = -1;
      }
    }
  }
  const [named, serverOnly] = partitionByPresence(merged, patchList, mergeKey);
  return normalizeElementOrder(named, serverOnly, patchList, originalList, mergeKey, kind);
}

/**
 * The `$patch` elements of a list of maps: `delete` removes every element with that merge key
 * value, `replace` makes the rest of the patch the whole list; `merge` is not supported yet.
 * Returns the original and the patch to merge next.
 */
function applyListDirectives(original: unknown[], patch: unknown[], mergeKey: string, backing?: BackingArray): [unknown[], unknown[]] {
  const rest: unknown[] = [];
  let replace = false;
  let out = original;
  for (const element of patch as JsonObject[]) {
    if (!(DIRECTIVE in element)) {
      rest.push(element);
      continue;
    }
    const directive = element[DIRECTIVE];
    if (directive === 'delete') {
      if (!(mergeKey in element)) throw noMergeKey(element, mergeKey);
      const matches = (o: unknown) => isObject(o) && mergeKey in o && o[mergeKey] === element[mergeKey];
      out = out.filter((o) => !matches(o));
      if (backing) {
        // Each deletion shifts the tail left in place; the last slot keeps its old value.
        for (let at = backing.items.slice(0, backing.length).findIndex(matches); at >= 0; at = backing.items.slice(0, backing.length).findIndex(matches)) {
          backing.items.copyWithin(at, at + 1, backing.length);
          backing.length--;
        }
      }
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      throw engineError('merging lists cannot yet be specified in the patch');
    } else {
      throw badPatchType(directive, element);
    }
  }
  if (replace) return [rest, []];
  return [out, rest];
}

/** Items named by `by` (by merge key for maps) and the others, each in the order of `list`. */
function partitionByPresence(list: unknown[], by: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const named: unknown[] = [];
  const others: unknown[] = [];
  if (!mergeKey) {
    const present = new Set(by);
    for (const item of list) (present.has(item) ? named : others).push(item);
    return [named, others];
  }
  const present = new Set(by.filter(isObject).filter((m) => mergeKey in m).map((m) => m[mergeKey]));
  for (const item of list) {
    if (!isObject(item)) throw badArgType('map[string]interface {}', item);
    if (!(mergeKey in item)) throw noMergeKey(item, mergeKey);
    (present.has(item[mergeKey]) ? named : others).push(item);
  }
  return [named, others];
}

/**
 * Sorts the named items by `order` and the server-only items by the original list, then
 * interleaves them: a server-only item goes before the next named item when the original list
 * had it first.
 */
function normalizeElementOrder(named: unknown[], serverOnly: unknown[], order: unknown[], serverOrder: unknown[], mergeKey: string, kind: ElementKind): unknown[] {
  const left = sortByOrder(serverOnly, serverOrder, mergeKey, kind);
  const right = sortByOrder(named, order, mergeKey, kind);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexIn(serverOrder, left[i], mergeKey, kind);
      const ri = indexIn(serverOrder, right[j], mergeKey, kind);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

/** A stable sort by position in `order`; for maps, `$patch: delete` elements go last. */
function sortByOrder(list: unknown[], order: unknown[], mergeKey: string, kind: ElementKind): unknown[] {
  let toSort = list;
  let deletions: unknown[] = [];
  if (kind === 'map') {
    for (const item of [...list, ...order]) {
      if (!isObject(item)) throw badArgType('map[string]interface {}', item);
      if (!(mergeKey in item)) throw noMergeKey(item, mergeKey);
    }
    [toSort, deletions] = splitDeletions(list);
  }
  const sorted = [...toSort].sort((a, b) => {
    const ia = indexIn(order, a, mergeKey, kind);
    const ib = indexIn(order, b, mergeKey, kind);
    return ia >= 0 && ib >= 0 ? ia - ib : 0;
  });
  return [...sorted, ...deletions];
}
