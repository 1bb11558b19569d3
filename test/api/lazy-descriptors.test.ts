// The server takes its protobuf descriptors as a LazyRoot: negotiation must know which kinds
// speak protobuf before any Root is built, and must know exactly what the built Root would say.

import { describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { generatedPath } from '../../runtime/generated-files.js';
import { LazyRoot, loadDescriptorRoot, messageNameResolver, rootOf } from '../../runtime/api/protobuf/index.js';

const DESCRIPTORS = generatedPath('protobuf/descriptors.json');

describe('LazyRoot', () => {
  const lazy = new LazyRoot(DESCRIPTORS);
  const fromNames = messageNameResolver(lazy);
  const fromRoot = messageNameResolver(loadDescriptorRoot(DESCRIPTORS));

  it('names the same message as the built Root for every served kind, meta kinds and unknown ones', () => {
    const asked: [string, string][] = [];
    for (const d of resources) {
      const apiVersion = d.group ? `${d.group}/${d.version}` : d.version;
      asked.push([apiVersion, d.kind], [apiVersion, `${d.kind}List`]);
    }
    for (const kind of ['Status', 'WatchEvent', 'Table', 'PartialObjectMetadata', 'APIGroupList', 'NoSuchKind', '']) {
      asked.push(['v1', kind], ['meta.k8s.io/v1', kind], ['apps/v1', kind], ['no.such.group/v9', kind]);
    }
    expect(asked.length).toBeGreaterThan(2 * resources.length);
    for (const [apiVersion, kind] of asked) expect([apiVersion, kind, fromNames(apiVersion, kind)]).toEqual([apiVersion, kind, fromRoot(apiVersion, kind)]);
    expect(fromNames('v1', 'ConfigMap')).toBe('k8s.io.api.core.v1.ConfigMap');
    expect(fromNames('v1', 'NoSuchKind')).toBeUndefined();
  });

  it('builds the same Root the eager load does, once', () => {
    expect(rootOf(lazy)).toBe(loadDescriptorRoot(DESCRIPTORS));
    expect(lazy.root).toBe(lazy.root);
  });
});
