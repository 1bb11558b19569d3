// JSON Patch (RFC 6902) as kube-apiserver applies it: with gopkg.in/evanphx/json-patch.v4, whose
// behaviour clients have come to rely on and which departs from the RFC in a few places:
//   - `replace` of a missing object member adds it (only a missing array index fails);
//   - negative array indices count from the end (-1 is the last element);
//   - a path that does not start with "/" has its first segment ignored;
//   - a `null` member is indistinguishable from a missing one when read (test, copy, move);
//   - `add`/`copy` without a value store null;
//   - `test` compares scalars as raw JSON text (json-patch-equality.ts): 1.0 is not 1, and a
//     value an earlier operation wrote keeps the text the patch gave it;
//   - `test` of arrays holding null crashes the library, which kube-apiserver answers with a 500.
// Error texts are the library's (fmt.Errorf chains joined with ": "), since kube-apiserver sends
// them verbatim in a 422's cause. No library on npm mirrors these, so the engine is our own.

import { StatusError, badRequest, requestEntityTooLarge } from '../../errors/status-error.js';
import { deepClone, deepEqual, isPlainObject } from '../../machinery/object.js';
import { setMember } from '../../machinery/own-member.js';
import { carryLiteral, overflowingNumber, recordNumberLiterals } from '../../machinery/go-decode/number-literals.js';
import { JSON_PATCH_MAX_COPY_BYTES, copiedSize } from './json-patch-copy-size.js';
import { MAX_NESTING_DEPTH, jsonNestingBracket, nestsDeeperThan } from '../../machinery/nesting.js';
import { goJsonError, tooDeepJson } from '../../machinery/go-json.js';
import { NilNodePanic, RawJsonReader, RawScalar, copyWithRawText, dropRawText, rawEqual, withRawText, type RawNode } from './json-patch-equality.js';

/** kube-apiserver refuses patches with more operations than this (413). */
export const MAX_JSON_PATCH_OPERATIONS = 10000;

type Json = unknown;
type Container = Record<string, Json> | Json[];
type Operation = Record<string, Json> | null;

/** A failure of one operation; its message is the library's error text. */
class PatchError extends Error {}

/**
 * An operation nested the document past MAX_NESTING_DEPTH (an `add` of a deep value at a deep
 * path, or `copy` doubling a branch). Go's library would go on, and kube-apiserver refuse the
 * result when decoding it; stopping here keeps every later walk within its reach.
 */
export class PatchedTooDeep extends Error {
  constructor(readonly document: Json) {
    super('the patched document nests too deep');
  }
}

/** Whether `value`, placed at `path`, nests the document past the limit (measured before it is placed). */
function placesTooDeep(path: string, value: Json): boolean {
  const containersAbove = path.split('/').length - 1;
  return nestsDeeperThan(value, MAX_NESTING_DEPTH - containersAbove);
}

/** Refuses the document an operation has just nested too deep, quoting it as it now is. */
function refuseIf(tooDeep: boolean, root: Container): void {
  if (tooDeep) throw new PatchedTooDeep(dropRawText(root));
}

const MISSING = 'missing value';
const INVALID_INDEX = 'invalid index referenced';

const isNil = (v: Json): boolean => v === undefined || v === null;

/**
 * The `value` of each decoded operation as written in the patch, read only when the patch has a
 * `test` (the one operation that looks at the text).
 */
const rawValues = new WeakMap<Record<string, Json>, RawNode>();

/** The live value equals a test operation's value: as raw JSON when the patch text is known. */
function testEqual(actual: Json, op: Operation, expected: Json): boolean {
  const raw = op ? rawValues.get(op) : undefined;
  return raw ? rawEqual(actual, raw) : deepEqual(dropRawText(deepCopy(actual)), expected);
}

/** The value an add or replace puts in the document: missing is null, scalars keep their text. */
function placedValue(op: Operation): Json {
  const value = valueOf(op) ?? null;
  const raw = op ? rawValues.get(op) : undefined;
  return raw ? withRawText(value, raw) : value;
}

/** A deep copy that keeps the patch text of scalars (structuredClone would lose the RawScalars). */
const deepCopy = (v: Json): Json => copyWithRawText(v);

/** A container the path can step into; a scalar an operation wrote is not one. */
const isContainer = (v: Json): v is Container => Array.isArray(v) || (isPlainObject(v) && !(v instanceof RawScalar));

/** Go's name of a JSON value's kind in "cannot unmarshal X into ..." messages. */
export function goJsonKind(v: Json): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : typeof v;
}

const INT64_MAX = 2n ** 63n - 1n;

/**
 * strconv.Atoi: an optional sign and decimal digits, nothing else (so "01" and "+1" are indices
 * too); past Go's 64-bit int it fails with its own "value out of range" error.
 */
function atoi(key: string): number {
  if (!/^[+-]?\d+$/.test(key)) throw new PatchError(`strconv.Atoi: parsing ${JSON.stringify(key)}: invalid syntax`);
  const n = BigInt(key);
  if (n > INT64_MAX || n < -INT64_MAX - 1n) throw new PatchError(`strconv.Atoi: parsing ${JSON.stringify(key)}: value out of range`);
  return Number(key);
}

const invalidIndex = (idx: number) => new PatchError(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`);

/** Resolves a (possibly negative) index against a length, as the library's array container does. */
function resolveIndex(idx: number, length: number): number {
  if (idx < 0) {
    if (idx < -length) throw invalidIndex(idx);
    return idx + length;
  }
  return idx;
}

function get(con: Container, key: string): Json {
  if (!Array.isArray(con)) return Object.hasOwn(con, key) ? con[key] : undefined;
  const idx = atoi(key);
  const at = resolveIndex(idx, con.length);
  if (at >= con.length) throw invalidIndex(at);
  return con[at];
}

/** Where a placed value came from: its container and key, whose literal it keeps. */
type Source = [object, string | number];

/**
 * A number an operation puts into an object keeps the spelling the patch gave it (the library
 * keeps raw bytes), so the decode of the result reads it as Go does; array items are left alone,
 * their indices shift.
 */
function keepLiteral(con: Record<string, Json>, key: string, from: Source | undefined): void {
  carryLiteral(from?.[0] ?? {}, from?.[1] ?? '', con, key);
}

function set(con: Container, key: string, value: Json, from?: Source): void {
  if (!Array.isArray(con)) {
    setMember(con, key, value);
    keepLiteral(con, key, from);
    return;
  }
  con[resolveIndex(atoi(key), con.length)] = value;
}

function add(con: Container, key: string, value: Json, from?: Source): void {
  if (!Array.isArray(con)) {
    setMember(con, key, value);
    keepLiteral(con, key, from);
    return;
  }
  if (key === '-') {
    con.push(value);
    return;
  }
  let idx: number;
  try {
    idx = atoi(key);
  } catch (err) {
    throw new PatchError(`value was not a proper array index: '${key}': ${(err as Error).message}`);
  }
  const size = con.length + 1;
  if (idx >= size) throw invalidIndex(idx);
  con.splice(resolveIndex(idx, size), 0, value);
}

function remove(con: Container, key: string): void {
  if (!Array.isArray(con)) {
    if (!Object.hasOwn(con, key)) throw new PatchError(`Unable to remove nonexistent key: ${key}: ${MISSING}`);
    delete con[key];
    keepLiteral(con, key, undefined);
    return;
  }
  const idx = atoi(key);
  if (idx >= con.length) throw invalidIndex(idx);
  con.splice(resolveIndex(idx, con.length), 1);
}

const decodeKey = (k: string): string => k.replace(/~1/g, '/').replace(/~0/g, '~');

/**
 * The container holding a path's last segment, and that segment; undefined when any step on the
 * way is missing, null or not a container (the library's findObject).
 */
function findObject(root: Container, path: string): [Container, string] | undefined {
  const split = path.split('/');
  if (split.length < 2) return undefined;
  let doc: Container = root;
  for (const part of split.slice(1, -1)) {
    let next: Json;
    try {
      next = get(doc, decodeKey(part));
    } catch {
      return undefined;
    }
    if (isContainer(next)) doc = next;
    else return undefined;
  }
  return [doc, decodeKey(split[split.length - 1])];
}

/** A string member of an operation (path, from); errors as Operation.Path/From word them. */
function member(op: Operation, name: 'path' | 'from'): string {
  const raw = op?.[name];
  if (isNil(raw)) {
    throw new PatchError(name === 'path' ? `operation missing path field: ${MISSING}` : `operation, missing from field: ${MISSING}`);
  }
  if (typeof raw !== 'string') throw new PatchError(`json: cannot unmarshal ${goJsonKind(raw)} into Go value of type string`);
  return raw;
}

function wrap<T>(fn: () => T, message: (err: Error) => string): T {
  try {
    return fn();
  } catch (err) {
    if (!(err instanceof PatchError)) throw err;
    throw new PatchError(message(err));
  }
}

const valueOf = (op: Operation): Json => (op && Object.hasOwn(op, 'value') ? op.value : undefined);

/** What the patch's copies have added so far, in bytes of JSON. */
interface CopyBudget {
  accumulated: number;
}

/** Applies one operation to the document; returns the (possibly replaced) root. */
function applyOperation(root: Container, op: Operation, copies: CopyBudget): Container {
  const kind = typeof op?.op === 'string' ? op.op : 'unknown';
  switch (kind) {
    case 'add': {
      const path = wrap(() => member(op, 'path'), () => `add operation failed to decode path: ${MISSING}`);
      const found = findObject(root, path);
      if (!found) throw new PatchError(`add operation does not apply: doc is missing path: "${path}": ${MISSING}`);
      const tooDeep = placesTooDeep(path, valueOf(op));
      wrap(() => add(found[0], found[1], placedValue(op), op ? [op, 'value'] : undefined), (e) => `error in add for path: '${path}': ${e.message}`);
      refuseIf(tooDeep, root);
      return root;
    }
    case 'remove': {
      const path = wrap(() => member(op, 'path'), () => `remove operation failed to decode path: ${MISSING}`);
      const found = findObject(root, path);
      if (!found) throw new PatchError(`remove operation does not apply: doc is missing path: "${path}": ${MISSING}`);
      wrap(() => remove(found[0], found[1]), (e) => `error in remove for path: '${path}': ${e.message}`);
      return root;
    }
    case 'replace': {
      const path = wrap(() => member(op, 'path'), (e) => `replace operation failed to decode path: ${e.message}`);
      if (path === '') {
        const value = placedValue(op);
        // The library formats a nil error here with %w.
        if (!isContainer(value)) throw new PatchError('replace operation value must be object or array: %!w(<nil>)');
        return value;
      }
      const found = findObject(root, path);
      if (!found) throw new PatchError(`replace operation does not apply: doc is missing path: ${path}: ${MISSING}`);
      wrap(() => get(found[0], found[1]), () => `replace operation does not apply: doc is missing key: ${path}: ${MISSING}`);
      const tooDeep = placesTooDeep(path, valueOf(op));
      set(found[0], found[1], placedValue(op), op ? [op, 'value'] : undefined);
      refuseIf(tooDeep, root);
      return root;
    }
    case 'move': {
      const from = wrap(() => member(op, 'from'), (e) => `move operation failed to decode from: ${e.message}`);
      const source = findObject(root, from);
      if (!source) throw new PatchError(`move operation does not apply: doc is missing from path: ${from}: ${MISSING}`);
      const [con, key] = source;
      const value = wrap(() => get(con, key), (e) => `error in move for path: '${key}': ${e.message}`);
      const moved: Source = [{}, 'value'];
      if (!Array.isArray(con)) carryLiteral(con, key, moved[0], 'value');
      wrap(() => remove(con, key), (e) => `error in move for path: '${key}': ${e.message}`);
      const path = wrap(() => member(op, 'path'), (e) => `move operation failed to decode path: ${e.message}`);
      const dest = findObject(root, path);
      if (!dest) throw new PatchError(`move operation does not apply: doc is missing destination path: ${path}: ${MISSING}`);
      const tooDeep = placesTooDeep(path, value);
      wrap(() => add(dest[0], dest[1], value ?? null, moved), (e) => `error in move for path: '${path}': ${e.message}`);
      refuseIf(tooDeep, root);
      return root;
    }
    case 'copy': {
      const from = wrap(() => member(op, 'from'), (e) => `copy operation failed to decode from: ${e.message}`);
      const source = findObject(root, from);
      if (!source) throw new PatchError(`copy operation does not apply: doc is missing from path: ${from}: ${MISSING}`);
      const value = wrap(() => get(source[0], source[1]), (e) => `error in copy for from: '${from}': ${e.message}`);
      const path = wrap(() => member(op, 'path'), () => `copy operation failed to decode path: ${MISSING}`);
      const dest = findObject(root, path);
      if (!dest) throw new PatchError(`copy operation does not apply: doc is missing destination path: ${path}: ${MISSING}`);
      // Counted and refused before anything is copied: the value may be megabytes.
      copies.accumulated += copiedSize(value);
      if (copies.accumulated > JSON_PATCH_MAX_COPY_BYTES) {
        throw new PatchError(`Unable to complete the copy, the accumulated size increase of copy is ${copies.accumulated}, exceeding the limit ${JSON_PATCH_MAX_COPY_BYTES}`);
      }
      const tooDeep = placesTooDeep(path, value);
      const copied: Source | undefined = Array.isArray(source[0]) ? undefined : source;
      wrap(() => add(dest[0], dest[1], deepCopy(value ?? null), copied), (e) => `error while adding value during copy: ${e.message}`);
      refuseIf(tooDeep, root);
      return root;
    }
    case 'test': {
      const path = wrap(() => member(op, 'path'), (e) => `test operation failed to decode path: ${e.message}`);
      const failed = () => new PatchError(`testing value ${path} failed: test failed`);
      const expected = valueOf(op);
      if (path === '') {
        if (expected === undefined) throw new NilNodePanic('test of the whole document without a value');
        if (!testEqual(root, op, expected)) throw failed();
        return root;
      }
      const found = findObject(root, path);
      if (!found) throw new PatchError(`test operation does not apply: is missing path: ${path}: ${MISSING}`);
      const actual = wrap(() => get(found[0], found[1]), (e) => `error in test for path: '${path}': ${e.message}`);
      // A missing or null member passes against an absent or null value, and only then.
      if (isNil(actual)) {
        if (isNil(expected)) return root;
        throw failed();
      }
      if (expected === undefined || !testEqual(actual, op, expected)) throw failed();
      return root;
    }
    default:
      throw new PatchError(`Unexpected kind: ${kind}`);
  }
}

/**
 * Decodes a JSON Patch document as jsonpatch.DecodePatch does: 400 for anything that is not an
 * array of objects (null elements and a null document pass), 413 past the operation limit.
 */
export function decodeJsonPatch(bytes: Uint8Array): Operation[] {
  const text = Buffer.from(bytes).toString('utf8');
  let parsed: Json;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badRequest(goJsonError(bytes));
  }
  const bracket = jsonNestingBracket(bytes);
  if (bracket) throw badRequest(tooDeepJson(bracket));
  if (parsed === null) return [];
  if (!Array.isArray(parsed)) throw badRequest(`json: cannot unmarshal ${goJsonKind(parsed)} into Go value of type jsonpatch.Patch`);
  // Values keep the spelling of their numbers into the patched document.
  recordNumberLiterals(text, parsed);
  for (const op of parsed) {
    if (op !== null && !isPlainObject(op)) throw badRequest(`json: cannot unmarshal ${goJsonKind(op)} into Go value of type jsonpatch.Operation`);
  }
  if (parsed.length > MAX_JSON_PATCH_OPERATIONS) {
    throw requestEntityTooLarge(`The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${parsed.length}`);
  }
  const ops = parsed as Operation[];
  // Test values compare as the bytes the patch wrote them in, against values earlier operations
  // wrote as the bytes the patch gave them: read those once, only when a test needs them.
  if (ops.some((op) => op?.op === 'test' && Object.hasOwn(op, 'value'))) {
    const raw = new RawJsonReader(text).read();
    if (raw.kind === 'array') {
      ops.forEach((op, i) => {
        const node = raw.items[i];
        const value = node?.kind === 'object' ? node.members.get('value') : undefined;
        if (op && value) rawValues.set(op, value);
      });
    }
  }
  return ops;
}

/**
 * The strict decode into []jsonPatchOp kube-apiserver makes before applying, under fieldValidation
 * Strict and Warn: its failures come first and read "error decoding patch: ...".
 */
export function strictDecodeJsonPatch(bytes: Uint8Array): void {
  const text = Buffer.from(bytes).toString('utf8');
  const fail = (why: string) => badRequest(`error decoding patch: ${why}`);
  let parsed: Json;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw fail(goJsonError(bytes));
  }
  const bracket = jsonNestingBracket(bytes);
  if (bracket) throw fail(tooDeepJson(bracket));
  if (parsed === null) return;
  if (!Array.isArray(parsed)) throw fail(`json: cannot unmarshal ${goJsonKind(parsed)} into Go value of type []handlers.jsonPatchOp`);
  // A value is an interface{}: a number a float64 cannot hold does not decode.
  const overflow = overflowingNumber(text);
  for (const op of parsed) {
    if (op === null) continue;
    if (!isPlainObject(op)) throw fail(`json: cannot unmarshal ${goJsonKind(op)} into Go value of type handlers.jsonPatchOp`);
    for (const name of ['op', 'path', 'from']) {
      const v = op[name];
      if (v !== null && v !== undefined && typeof v !== 'string') {
        throw fail(`json: cannot unmarshal ${goJsonKind(v)} into Go struct field jsonPatchOp.${name} of type string`);
      }
    }
    if (overflow !== undefined && holdsInfinity(op.value)) {
      throw fail(`json: cannot unmarshal number ${overflow} into Go struct field jsonPatchOp.value of type float64`);
    }
  }
}

/** Whether a parsed value holds a number JSON.parse could only make infinite. */
export function holdsInfinity(value: Json): boolean {
  if (typeof value === 'number') return !Number.isFinite(value);
  if (Array.isArray(value)) return value.some(holdsInfinity);
  return isPlainObject(value) && Object.values(value).some(holdsInfinity);
}

/**
 * Applies the operations to a copy of the document. A failed operation is the 422 kube-apiserver
 * sends (NewGenericServerResponse): a fixed message with the library's error as the cause.
 */
export function applyJsonPatch(doc: Json, ops: Operation[]): Json {
  let root = deepClone(doc) as Container;
  const copies: CopyBudget = { accumulated: 0 };
  try {
    for (const op of ops) root = applyOperation(root, op, copies);
  } catch (err) {
    // kube-apiserver's panic filter answers a crash with a bare 500; we keep the Status form.
    if (err instanceof NilNodePanic) throw new StatusError(500, 'InternalError', APISERVER_PANIC);
    if (!(err instanceof PatchError)) throw err;
    throw new StatusError(422, 'Invalid', 'the server rejected our request due to an error in our request', {
      causes: [{ reason: 'UnexpectedServerResponse', message: err.message }],
    });
  }
  return dropRawText(root);
}

/** What kube-apiserver's panic filter writes when a handler crashes. */
export const APISERVER_PANIC = 'This request caused apiserver to panic. Look in the logs for details.';
