// Events with real kubectl (oldest and newest supported minors): `kubectl get events` reads
// core/v1 Tables with the Event printer's columns and field selectors, `kubectl events` lists and
// filters them, and objects applied through events.k8s.io/v1 show up beside core/v1 ones.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlVersions, startKubectlServer, type KubectlServer } from '../support/kubectl.js';

let cluster: KubectlServer;

beforeAll(async () => {
  cluster = await startKubectlServer('e2e-events-');
});

afterAll(async () => {
  await cluster?.close();
});

const catalog = (file: string) => readFileSync(join(import.meta.dirname, 'catalog', file), 'utf8');

/** The catalog samples moved to a namespace of the test's own, about a ConfigMap kubectl can resolve. */
const inNamespace = (yaml: string, ns: string) =>
  yaml.replaceAll('namespace: default', `namespace: ${ns}`).replaceAll('kind: Pod', 'kind: ConfigMap').replaceAll('name: web-0\n', 'name: settings\n');

for (const { version, path } of kubectlVersions()) {
  describe.skipIf(!path)(`kubectl ${version} and events`, () => {
    const bin = path!;
    const ns = `ev-${version.replace('.', '-')}`;
    const k = (args: string[], input?: string) => cluster.kubectl(bin, args, input);

    it('applies a core/v1 and an events.k8s.io/v1 event', async () => {
      expect((await k(['create', 'namespace', ns])).code).toBe(0);
      const r = await k(['apply', '-f', '-'], `${inNamespace(catalog('event.yaml'), ns)}\n---\n${inNamespace(catalog('event.events.k8s.io.yaml'), ns)}`);
      expect(r.stderr).toBe('');
      expect(r.stdout.trim().split('\n')).toEqual(['event/web-0.17a1b2c3d4e5f607 created', 'event.events.k8s.io/web-0.17a1b2c3d4e5f608 created']);
    });

    it('gets both through core/v1 as a table, wide and by field selector', async () => {
      const table = await k(['get', 'events', '-n', ns]);
      expect(table.code).toBe(0);
      const lines = table.stdout.trim().split('\n');
      expect(lines[0]).toMatch(/^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$/);
      expect(lines.slice(1).map((l) => l.split(/\s{2,}/).slice(1))).toEqual(
        expect.arrayContaining([
          ['Normal', 'Pulled', 'configmap/settings', 'Successfully pulled image "nginx:1.27"'],
          ['Warning', 'BackOff', 'configmap/settings', 'Back-off pulling image "nginx:bad"'],
        ]),
      );
      const wide = await k(['get', 'ev', '-o', 'wide', '-n', ns, '--field-selector', 'type=Warning']);
      expect(wide.stdout).toMatch(/^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+SUBOBJECT\s+SOURCE\s+MESSAGE\s+FIRST SEEN\s+COUNT\s+NAME$/m);
      expect(wide.stdout).toMatch(/Warning\s+BackOff\s+configmap\/settings\s+kubernetes.io\/kubelet, kubelet-node-1\s+Back-off pulling image "nginx:bad"\s+\S+\s+3\s+web-0.17a1b2c3d4e5f608/);
      const selected = await k(['get', 'events', '-n', ns, '--field-selector', 'involvedObject.name=settings,reason=Pulled', '-o', 'name']);
      expect(selected.stdout.trim()).toBe('event/web-0.17a1b2c3d4e5f607');
      const none = await k(['get', 'events', '-n', ns, '--field-selector', 'involvedObject.name=other']);
      expect(none.stderr.trim()).toBe(`No resources found in ${ns} namespace.`);
    });

    it('gets the core/v1 event through events.k8s.io/v1 with the new field names', async () => {
      const r = await k(['get', 'events.v1.events.k8s.io', 'web-0.17a1b2c3d4e5f607', '-n', ns, '-o', 'json']);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({
        apiVersion: 'events.k8s.io/v1',
        regarding: { kind: 'ConfigMap', name: 'settings' },
        note: 'Successfully pulled image "nginx:1.27"',
        deprecatedSource: { component: 'kubelet', host: 'node-1' },
        deprecatedCount: 1,
      });
    });

    it('lists and filters with kubectl events', async () => {
      const all = await k(['events', '-n', ns]);
      expect(all.code).toBe(0);
      expect(all.stdout).toMatch(/^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$/m);
      expect(all.stdout).toMatch(/Normal\s+Pulled\s+ConfigMap\/settings\s+Successfully pulled image "nginx:1.27"/);
      // A series reads "(x<count> over <age>)".
      expect(all.stdout).toMatch(/\(x3 over \S+\)\s+Warning\s+BackOff\s+ConfigMap\/settings/);
      const warnings = await k(['events', '-n', ns, '--types=Warning']);
      expect(warnings.stdout).not.toContain('Pulled');
      expect(warnings.stdout).toContain('BackOff');
      const forObject = await k(['events', '-n', ns, '--for', 'configmap/settings', '-o', 'json']);
      expect(forObject.code).toBe(0);
      expect((JSON.parse(forObject.stdout) as { items: unknown[] }).items).toHaveLength(2);
    });

    it('refuses an invalid events.k8s.io/v1 event with kube-apiserver’s causes', async () => {
      const r = await k(['create', '-f', '-'], `apiVersion: events.k8s.io/v1\nkind: Event\nmetadata:\n  name: bad\n  namespace: ${ns}\neventTime: "2024-05-01T10:00:00.000000Z"\ntype: Info\naction: A\nreason: R\nreportingController: c\nreportingInstance: i\nregarding:\n  kind: ConfigMap\n  name: settings\n  namespace: ${ns}\n`);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('The Event "bad" is invalid: type: Invalid value: "": has invalid value: Info');
    });

    it('deletes through either view', async () => {
      expect((await k(['delete', 'events.v1.events.k8s.io', 'web-0.17a1b2c3d4e5f607', '-n', ns])).stdout.trim()).toBe('event.events.k8s.io "web-0.17a1b2c3d4e5f607" deleted');
      expect((await k(['delete', 'event', 'web-0.17a1b2c3d4e5f608', '-n', ns])).stdout.trim()).toBe('event "web-0.17a1b2c3d4e5f608" deleted');
      expect((await k(['get', 'events', '-n', ns])).stderr.trim()).toBe(`No resources found in ${ns} namespace.`);
    });
  });
}
