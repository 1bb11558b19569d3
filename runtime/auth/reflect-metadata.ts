// @peculiar/x509 wires its algorithm providers with tsyringe, which refuses to load unless the
// Reflect metadata API exists. The few calls tsyringe makes (define, get, getOwn) need no more
// than this map per target; importing this module before @peculiar/x509 satisfies it without
// another dependency. Nothing here replaces an existing implementation.

type MetadataTarget = object;
type Store = Map<string | symbol | undefined, Map<unknown, unknown>>;

const stores = new WeakMap<MetadataTarget, Store>();

function ownMap(target: MetadataTarget, propertyKey: string | symbol | undefined, create: boolean): Map<unknown, unknown> | undefined {
  let store = stores.get(target);
  if (!store) {
    if (!create) return undefined;
    store = new Map();
    stores.set(target, store);
  }
  let map = store.get(propertyKey);
  if (!map && create) {
    map = new Map();
    store.set(propertyKey, map);
  }
  return map;
}

interface ReflectMetadataApi {
  defineMetadata(key: unknown, value: unknown, target: MetadataTarget, propertyKey?: string | symbol): void;
  getOwnMetadata(key: unknown, target: MetadataTarget, propertyKey?: string | symbol): unknown;
  getMetadata(key: unknown, target: MetadataTarget, propertyKey?: string | symbol): unknown;
}

const reflect = Reflect as typeof Reflect & Partial<ReflectMetadataApi>;

if (typeof reflect.getMetadata !== 'function') {
  const api: ReflectMetadataApi = {
    defineMetadata(key, value, target, propertyKey) {
      ownMap(target, propertyKey, true)?.set(key, value);
    },
    getOwnMetadata(key, target, propertyKey) {
      return ownMap(target, propertyKey, false)?.get(key);
    },
    getMetadata(key, target, propertyKey) {
      // Metadata is inherited along the prototype chain, as in the reflect-metadata proposal.
      for (let t: object | null = target; t; t = Object.getPrototypeOf(t)) {
        const map = ownMap(t, propertyKey, false);
        if (map?.has(key)) return map.get(key);
      }
      return undefined;
    },
  };
  Object.assign(Reflect, api);
}

export {};
