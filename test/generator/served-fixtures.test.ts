// The upstream round-trip fixtures of every served kind through the generator's own protobuf
// descriptors (generated/protobuf/descriptors.json): the .pb decodes to its .json twin and the
// .json encodes back to the same bytes. Which kinds: every kind in generated/registry.ts that
// has a fixture, so a new spec file is covered as soon as it is generated.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { resources } from '../../generated/registry.js';
import { decodeObject, encodeObject, loadDescriptorRoot, messageNameResolver } from '../../runtime/api/protobuf/index.js';
import { UPSTREAM_DIR, upstreamAvailable } from '../support/upstream.js';

const TESTDATA = join(UPSTREAM_DIR, 'testdata');
const GENERATED = join(import.meta.dirname, '..', '..', 'generated', 'protobuf', 'descriptors.json');
const present = upstreamAvailable();

const fixtureName = (r: { group: string; version: string; kind: string }): string => `${r.group || 'core'}.${r.version}.${r.kind}`;
const served = present ? resources.map(fixtureName).filter((n) => existsSync(join(TESTDATA, `${n}.json`))) : [];

describe.runIf(present)('served kinds round-trip the upstream fixtures through the generated descriptors', () => {
  const root = loadDescriptorRoot(GENERATED);
  const messageNameFor = messageNameResolver(root);

  it('covers the RBAC kinds', () => {
    expect(served).toEqual(expect.arrayContaining(['rbac.authorization.k8s.io.v1.ClusterRoleBinding', 'rbac.authorization.k8s.io.v1.ClusterRole', 'rbac.authorization.k8s.io.v1.Role', 'rbac.authorization.k8s.io.v1.RoleBinding']));
  });

  it.each(served)('%s: .pb decodes to .json, .json encodes to .pb, .yaml parses to .json', (name) => {
    const json = JSON.parse(readFileSync(join(TESTDATA, `${name}.json`), 'utf8'));
    const pb = readFileSync(join(TESTDATA, `${name}.pb`));
    const decoded = decodeObject(root, pb, messageNameFor);
    expect(decoded.object).toEqual(json);
    const message = messageNameFor(json.apiVersion, json.kind);
    expect(message).toBeDefined();
    expect(Buffer.from(encodeObject(root, message as string, json)).toString('hex')).toBe(pb.toString('hex'));
    expect(parseYaml(readFileSync(join(TESTDATA, `${name}.yaml`), 'utf8'))).toEqual(json);
  });
});
