// JSON.parse makes a member named `__proto__` an own property, and kube keeps it as any other map
// key; but `obj[key] = value` with that key sets the prototype instead, dropping the member and
// letting the value's members show through on later reads. Copies and merges of request data or
// stored objects set members through here.

/** obj[key] = value, as an own enumerable member whatever the key. */
export function setMember(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

/** obj[key] when it is an own member, else undefined: an absent `__proto__` reads as absent, not as the prototype. */
export function getMember(obj: Record<string, unknown>, key: string): unknown {
  return key === '__proto__' && !Object.hasOwn(obj, key) ? undefined : obj[key];
}

/** `key in obj` for own members only. */
export function hasMember(obj: Record<string, unknown>, key: string): boolean {
  return key === '__proto__' ? Object.hasOwn(obj, key) : key in obj;
}
