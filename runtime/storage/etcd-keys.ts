// Where the storage keys live inside etcd.
//
// The registry builds keys under one logical root (`/registry/configmaps/ns/name`, see
// registry/keys.ts). kube-apiserver puts the same object at `<--etcd-prefix>/configmaps/ns/name`,
// so the etcd backend swaps that root for the configured prefix: with the default prefix
// `/registry` the keys are stored exactly as the registry spells them, and with
// `--etcd-prefix=/tenant-a` they become `/tenant-a/configmaps/ns/name`, as in kube-apiserver
// (which joins the prefix and the rest like Go's path.Join, hence the trailing-slash trim).
//
// The swap keeps key order and prefix relations intact, so ranges and watches on a mapped
// prefix see exactly the keys the logical prefix covers.

import type { KeyValue } from './interface.js';
import type { EtcdKeyValue } from './etcd-client/client.js';

/** The root every registry key starts with (registry/keys.ts REGISTRY_ROOT). */
export const REGISTRY_KEY_ROOT = '/registry';

export class EtcdKeySpace {
  private readonly prefix: string;

  constructor(
    prefix: string,
    /** The logical root that maps onto `prefix`; keys outside it are a programming error. */
    private readonly root: string = REGISTRY_KEY_ROOT,
  ) {
    this.prefix = prefix.replace(/\/+$/, '');
  }

  /** The etcd key of a storage key. */
  key(key: string): Buffer {
    if (key.startsWith(this.root)) return Buffer.from(this.prefix + key.slice(this.root.length), 'utf8');
    // A range over a prefix of the root (say `/`) covers every key this store can hold.
    if (this.root.startsWith(key)) return Buffer.from(this.prefix, 'utf8');
    throw new Error(`etcd storage: key ${JSON.stringify(key)} lies outside the storage root ${JSON.stringify(this.root)}`);
  }

  /** The storage key of an etcd key read back from a range or a watch. */
  storageKey(etcdKey: Buffer): string {
    // With the default prefix the etcd key is the storage key: decoded as it is, the string is
    // flat, not a concatenation every later comparison and hash of it would first have to join.
    if (this.prefix === this.root) return etcdKey.toString('utf8');
    return this.root + etcdKey.toString('utf8').slice(this.prefix.length);
  }

  /** The etcd range [start, end) holding every key under the storage prefix `prefix`. */
  range(prefix: string): { start: Buffer; end: Buffer } {
    const start = this.key(prefix);
    return { start, end: rangeEnd(start) };
  }

  keyValue(kv: Omit<EtcdKeyValue, 'version'>): KeyValue {
    return { key: this.storageKey(kv.key), value: kv.value.toString('utf8'), createRevision: kv.createRevision, modRevision: kv.modRevision };
  }
}

/**
 * The smallest key above every key starting with `start` (etcd's prefix range end): the last
 * byte that can grow is incremented and the rest dropped. A prefix of only 0xff bytes (or the
 * empty prefix) has no such key; etcd reads the single byte 0 as "to the end of the keyspace".
 */
export const rangeEnd = (start: Buffer): Buffer => {
  for (let i = start.length - 1; i >= 0; i--) {
    if (start[i]! < 0xff) {
      const end = Buffer.from(start.subarray(0, i + 1));
      end[i] = start[i]! + 1;
      return end;
    }
  }
  return Buffer.from([0]);
};
