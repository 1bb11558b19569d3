// The audit log's operation: rotation as lumberjack does it, a disk that refuses writes (the
// server keeps serving; blocking-strict refuses, as kube), the legacy format, standard output in
// a real child process, and the start-up checks of the flags and the policy file.
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../../runtime/index.js';
import { logBackend } from '../../../runtime/server/audit/log-backend.js';
import { ensureLogFile } from '../../../runtime/server/audit/log-file.js';
import type { AuditEvent } from '../../../runtime/server/audit/event.js';
import { quietLogger } from '../../../runtime/server/context.js';
import type { StartServerOptions } from '../../../runtime/server/options.js';
import { call, kubeconfigCredentials } from '../../support/https-client.js';
import { startServerProcess, stopServerProcess, type ServerProcess } from '../../support/server-process.js';

const dir = mkdtempSync(join(tmpdir(), 'audit-backend-'));
const policy = (body: string) => {
  const file = join(dir, `policy-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, `apiVersion: audit.k8s.io/v1\nkind: Policy\n${body}`);
  return file;
};
const everything = policy('rules:\n- level: Metadata\n');

const running: RunningServer[] = [];
afterAll(async () => {
  await Promise.all(running.map((s) => s.close()));
});

async function serve(options: Partial<StartServerOptions>) {
  const server = await startServer({ storage: 'memory', ...options });
  running.push(server);
  const creds = kubeconfigCredentials(server.kubeconfig);
  const send = (method: string, path: string, body?: unknown) =>
    call(server.url, path, creds, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  return { server, send };
}

describe('audit log rotation', () => {
  it('rotates past --audit-log-maxsize into <name>-<timestamp>.<ext> and keeps --audit-log-maxbackup backups', async () => {
    const logDir = join(dir, 'rotate');
    const path = join(logDir, 'audit.log');
    const { send } = await serve({
      auditPolicyFile: policy('omitStages: [RequestReceived]\nrules:\n- level: Request\n  resources: [{ resources: ["configmaps"] }]\n'),
      auditLogPath: path,
      auditLogMaxSize: 1,
      auditLogMaxBackup: 2,
    });
    const big = 'x'.repeat(400 * 1024);
    for (let i = 0; i < 8; i++) {
      const res = await send('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: `big-${i}` }, data: { big } });
      expect(res.status).toBe(201);
    }
    const files = readdirSync(logDir).sort();
    const backups = files.filter((f) => f !== 'audit.log');
    expect(files).toContain('audit.log');
    expect(backups).toHaveLength(2);
    for (const b of backups) expect(b).toMatch(/^audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log$/);
    for (const f of files) expect(statSync(join(logDir, f)).size).toBeLessThanOrEqual(1024 * 1024);
    // The newest event is in the current file, whole.
    const current = readFileSync(path, 'utf8').trim().split('\n');
    expect((JSON.parse(current.at(-1)!) as AuditEvent).objectRef?.name).toBe('big-7');
  });
});

describe('a disk that refuses writes', () => {
  it('keeps serving, logs and counts the lost events, in the default blocking mode', async () => {
    let failed = 0;
    let handed = 0;
    const lines: string[] = [];
    const { send } = await serve({
      auditPolicyFile: everything,
      auditLogPath: '/dev/full',
      onAuditError: () => failed++,
      onAuditEvent: () => handed++,
      logger: { ...quietLogger, error: (m: string) => lines.push(m) },
    });
    for (let i = 0; i < 5; i++) {
      const res = await send('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: `full-${i}` }, data: { secretish: 'do-not-log-me' } });
      expect(res.status).toBe(201);
    }
    expect((await send('GET', '/api/v1/namespaces/default/configmaps/full-4')).status).toBe(200);
    expect(handed).toBe(12);
    expect(failed).toBe(12);
    expect(lines.some((l) => /audit log: \d+ event\(s\) not written .*ENOSPC/.test(l))).toBe(true);
    expect(lines.join('\n')).not.toContain('do-not-log-me');
  });

  it('refuses the request in blocking-strict mode, as kube does when RequestReceived cannot be stored', async () => {
    const { send } = await serve({ auditPolicyFile: everything, auditLogPath: '/dev/full', auditLogMode: 'blocking-strict' });
    const res = await send('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'strict' } });
    expect(res.status).toBe(500);
    expect(res.json()).toMatchObject({ reason: 'InternalError', message: 'Internal error occurred: failed to store audit event' });
    // Every request is refused while events cannot be stored, reads included.
    expect((await send('GET', '/api/v1/namespaces/default/configmaps/strict')).status).toBe(500);
  });

  it('drops what does not fit the queue instead of waiting', async () => {
    const path = join(dir, 'queue', 'audit.log');
    ensureLogFile(path);
    let failed = 0;
    const sink = logBackend({
      path,
      format: 'json',
      mode: 'batch',
      rotation: { maxSizeMB: 0, maxBackups: 0, maxAgeDays: 0 },
      bufferSize: 2,
      logger: quietLogger,
      onError: () => failed++,
    });
    const event = (i: number) => ({ auditID: `id-${i}`, stage: 'ResponseComplete' }) as AuditEvent;
    // The first is taken by the writer at once; two wait in the queue; the rest do not fit.
    const results = await Promise.all([0, 1, 2, 3, 4].map((i) => sink.process(event(i))));
    await sink.close();
    expect(results).toEqual([true, true, true, false, false]);
    expect(failed).toBe(2);
    expect(readFileSync(path, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as AuditEvent).auditID)).toEqual(['id-0', 'id-1', 'id-2']);
  });
});

describe('the legacy format', () => {
  it("writes kube's one-line text", async () => {
    const path = join(dir, 'legacy', 'audit.log');
    const { send } = await serve({ auditPolicyFile: everything, auditLogPath: path, auditLogFormat: 'legacy' });
    const res = await send('GET', '/api/v1/namespaces/default');
    const id = res.headers['audit-id'] as string;
    const lines = readFileSync(path, 'utf8').trim().split('\n').filter((l) => l.includes(id));
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(
      new RegExp(
        `^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z AUDIT: id="${id}" stage="ResponseComplete" ip="127.0.0.1" method="get" user="admin" groups="\\\\"system:masters\\\\",\\\\"system:authenticated\\\\"" as="<self>" asgroups="<lookup>" user-agent="" namespace="default" uri="/api/v1/namespaces/default" response="200"$`,
      ),
    );
    expect(lines[0]).toContain('response="<deferred>"');
  });
});

describe('start-up checks', () => {
  const cases: [string, Partial<StartServerOptions>, string][] = [
    ['an unknown format', { auditLogFormat: 'xml' }, 'invalid audit log format xml, allowed formats are "legacy,json"'],
    ['an unknown mode', { auditLogMode: 'eager' }, 'invalid audit log mode eager, allowed modes are "batch,blocking,blocking-strict"'],
    ['a negative maxage', { auditLogMaxAge: -1 }, "--audit-log-maxage -1 can't be a negative number"],
    ['a negative maxsize', { auditLogMaxSize: -2 }, "--audit-log-maxsize -2 can't be a negative number"],
  ];
  it.each(cases)('refuses %s', async (_name, options, message) => {
    await expect(startServer({ storage: 'memory', auditPolicyFile: everything, auditLogPath: join(dir, 'x.log'), ...options })).rejects.toThrow(message);
  });

  it('refuses a policy that does not validate, naming the file', async () => {
    const bad = policy('rules:\n- level: Verbose\n');
    await expect(startServer({ storage: 'memory', auditPolicyFile: bad, auditLogPath: join(dir, 'x.log') })).rejects.toThrow(
      `loading audit policy file: rules[0].level: Unsupported value: "Verbose": supported values: "None", "Metadata", "Request", "RequestResponse": from file ${bad}`,
    );
  });

  it('refuses a policy file that is not there', async () => {
    await expect(startServer({ storage: 'memory', auditPolicyFile: join(dir, 'none.yaml'), auditLogPath: join(dir, 'x.log') })).rejects.toThrow(
      /^loading audit policy file: failed to read file path ".*none\.yaml": /,
    );
  });

  it('refuses a log path it cannot create', async () => {
    await expect(startServer({ storage: 'memory', auditPolicyFile: everything, auditLogPath: join(everything, 'audit.log') })).rejects.toThrow(/^ensureLogFile: E[A-Z]+: /);
  });
});

describe('the command line', () => {
  let child: ServerProcess | undefined;
  afterAll(() => stopServerProcess(child));

  it("writes events to standard output with --audit-log-path - and exits non-zero on a bad policy", async () => {
    child = await startServerProcess(join(dir, 'data-stdout'), ['--storage', 'memory', '--audit-policy-file', everything, '--audit-log-path', '-']);
    let out = '';
    child.child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const res = await call(child.url, '/api/v1/namespaces/default', child.creds);
    expect(res.status).toBe(200);
    const id = res.headers['audit-id'] as string;
    for (let i = 0; i < 100 && !out.includes(`"ResponseComplete"`); i++) await new Promise((r) => setTimeout(r, 50));
    const stages = out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as AuditEvent)
      .filter((e) => e.auditID === id)
      .map((e) => e.stage);
    expect(stages).toEqual(['RequestReceived', 'ResponseComplete']);

    const bad = policy('rules: []\n');
    await expect(startServerProcess(join(dir, 'data-bad'), ['--storage', 'memory', '--audit-policy-file', bad, '--audit-log-path', '-'])).rejects.toThrow(
      /server exited with [1-9]\d*: .*loading audit policy file: loaded illegal policy with 0 rules/s,
    );
  });
});
