// JSON.parse makes a member named `__proto__` an own property, and kube keeps it as any other map
// key; but `obj[key] = value` with that key sets the prototype instead, dropping the member and
// letting the value's members show through on later reads. Copies and merges of request data or
// stored objects set members through here.

/** obj[key] = value, as an own enumerable member whatever the key. */
export function setMember(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

/**
 * obj[key] when it is an own member, else undefined. Reads of a key taken from elsewhere (a patch,
 * a request, a table of names) go through here: a plain read of `__proto__`, `constructor` or
 * `toString` that the object lacks finds Object.prototype's member instead.
 */
export function getMember(obj: object, key: string): unknown {
  return Object.hasOwn(obj, key) ? (obj as Record<string, unknown>)[key] : undefined;
}

/** `key in obj`, for own members only. */
export function hasMember(obj: object, key: string): boolean {
  return Object.hasOwn(obj, key);
}
