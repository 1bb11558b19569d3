// Every upstream round-trip fixture (testdata/HEAD of kubernetes/api): the .pb decodes to the
// object of its .json twin, the .json encodes to the .pb byte for byte, and the .yaml parses to
// the same object. Run through descriptors converted from proto-fields.json, and through the
// generator's descriptors for the kinds it emits, once they exist.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type protobuf from 'protobufjs';
import { decodeObject, encodeObject, loadDescriptorRoot, messageNameResolver } from '../../runtime/api/protobuf/index.js';
import { UPSTREAM_DIR, loadUpstreamRoot, upstreamAvailable } from '../support/proto-fields-descriptor.js';

const available = upstreamAvailable();
const TESTDATA = join(UPSTREAM_DIR, 'testdata');
const fixtures = available
  ? readdirSync(TESTDATA)
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.slice(0, -'.json'.length))
  : [];

function read(name: string, ext: string): Buffer {
  return readFileSync(join(TESTDATA, `${name}.${ext}`));
}

function runFixtures(root: protobuf.Root, names: string[]): void {
  const messageNameFor = messageNameResolver(root);
  for (const name of names) {
    describe(name, () => {
      const json = JSON.parse(read(name, 'json').toString('utf8'));
      const messageName = () => messageNameFor(json.apiVersion, json.kind)!;

      it('decodes the .pb to the .json object', () => {
        const decoded = decodeObject(root, read(name, 'pb'), messageNameFor);
        expect(decoded.apiVersion).toBe(json.apiVersion);
        expect(decoded.kind).toBe(json.kind);
        expect(decoded.object).toEqual(json);
      });

      it('encodes the .json to the exact .pb bytes', () => {
        const encoded = encodeObject(root, messageName(), json);
        expect(Buffer.from(encoded).toString('hex')).toBe(read(name, 'pb').toString('hex'));
      });

      it('parses the .yaml to the .json object', () => {
        expect(parseYaml(read(name, 'yaml').toString('utf8'))).toEqual(json);
      });
    });
  }
}

describe.runIf(available)('upstream fixtures through proto-fields.json descriptors', () => {
  it('has all 36 fixtures', () => {
    expect(fixtures).toHaveLength(36);
  });
  if (available) runFixtures(loadUpstreamRoot(), fixtures);
});

const GENERATED = join(import.meta.dirname, '..', '..', 'generated', 'protobuf', 'descriptors.json');
const SERVED = ['core.v1.ConfigMap', 'core.v1.Secret', 'core.v1.Namespace'];
if (available && existsSync(GENERATED)) {
  describe('served kinds through generated/protobuf/descriptors.json', () => {
    runFixtures(loadDescriptorRoot(GENERATED), SERVED);
  });
} else if (available) {
  console.warn(`generated descriptors not found at ${GENERATED}: served-kind fixtures ran through proto-fields.json only`);
}
