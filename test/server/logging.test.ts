// The process's log as kube-apiserver writes it: klog's text header or JSON with kube's keys,
// start-up facts at low verbosity, one "HTTP" line per request at -v=3 (kube's httplog), and at
// no verbosity a bearer token, an Authorization header or a Secret's data.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseFlags } from '../../runtime/server/flags.js';
import { call } from '../support/https-client.js';
import { startServerProcess, stopServerProcess, type ServerProcess } from '../support/server-process.js';

/** I1126 03:04:05.123456   12345 file.ts:42] ... */
const KLOG_HEADER = /^([IEW])(\d{4}) (\d{2}):(\d{2}):(\d{2})\.(\d{6}) +(\d+) ([\w.-]+):(\d+)\] (.*)$/;

const TOKEN = 'kube-lite-test-token-8f3a9c2e71b4';
const SECRET_VALUE = 'hunter2-do-not-log-me';

const dirs: string[] = [];
const processes: ServerProcess[] = [];
afterAll(async () => {
  for (const p of processes) await stopServerProcess(p);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kube-lite-logs-'));
  dirs.push(dir);
  return dir;
}

async function start(flags: string[]): Promise<ServerProcess & { dir: string }> {
  const dir = tempDir();
  writeFileSync(join(dir, 'tokens.csv'), `${TOKEN},alice,uid-alice,"system:masters"\n`);
  const server = await startServerProcess(join(dir, 'data'), ['--token-auth-file', join(dir, 'tokens.csv'), ...flags]);
  processes.push(server);
  return { ...server, dir };
}

const stderrLines = (server: ServerProcess) =>
  server
    .output()
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('Serving on'));

/** Output arrives through a pipe: wait for a line rather than assume it is there. */
async function waitForLine(server: ServerProcess, match: (line: string) => boolean): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const found = stderrLines(server).find(match);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no such log line in:\n${server.output()}`);
}

describe('text format (klog)', () => {
  it('writes klog headers, the httplog line at -v=3 and never a token or Secret data at -v=10', async () => {
    const server = await start(['-v=10']);
    const bearer = { ca: server.creds.ca, token: TOKEN };
    const created = await call(server.url, '/api/v1/namespaces/default/secrets', bearer, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'logging-test/1.0' },
      body: JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' }, stringData: { password: SECRET_VALUE } }),
    });
    expect(created.status).toBe(201);
    const read = await call(server.url, '/api/v1/namespaces/default/secrets/s1', bearer);
    expect(read.status).toBe(200);
    // A wrong token: the authentication failure is logged at debug level, the token is not.
    const refused = await call(server.url, '/api/v1/namespaces', { ca: server.creds.ca, token: `${TOKEN}-wrong` });
    expect(refused.status).toBe(401);

    const line = await waitForLine(server, (l) => l.includes('"HTTP"') && l.includes('verb="POST"'));
    const m = KLOG_HEADER.exec(line);
    expect(m, line).not.toBeNull();
    expect(m![1]).toBe('I');
    expect(Number(m![7])).toBe(server.child.pid);
    expect(m![8]).toBe('httplog.ts');
    const payload = m![10];
    expect(payload).toMatch(/^"HTTP" verb="POST" URI="\/api\/v1\/namespaces\/default\/secrets" latency="[\d.]+(ns|µs|ms|s)" userAgent="logging-test\/1.0" audit-ID="[\w-]+" srcIP="127\.0\.0\.1:\d+" resp=201$/);
    const auditId = /audit-ID="([\w-]+)"/.exec(payload)![1];
    expect(created.headers['audit-id']).toBe(auditId);
    await waitForLine(server, (l) => l.includes('"HTTP"') && l.includes('resp=401'));
    // The verb as kube's httplog reports it (its metrics' form): a named read is GET.
    await waitForLine(server, (l) => l.includes('"HTTP" verb="GET" URI="/api/v1/namespaces/default/secrets/s1"'));

    // Every line has the header; start-up facts are there.
    for (const l of stderrLines(server)) expect(l, l).toMatch(KLOG_HEADER);
    expect(stderrLines(server).some((l) => l.includes('"Serving securely"') && l.includes(`address="${server.url}"`))).toBe(true);

    const log = server.output();
    expect(log).not.toContain(TOKEN);
    expect(log).not.toContain(SECRET_VALUE);
    expect(log).not.toContain(Buffer.from(SECRET_VALUE).toString('base64'));
    expect(log).not.toMatch(/Bearer \S/);
    expect(log.toLowerCase()).not.toContain('authorization:');
  });

  it('writes no request line below -v=3', async () => {
    const server = await start(['--v=2']);
    expect((await call(server.url, '/api/v1/namespaces', server.creds)).status).toBe(200);
    await waitForLine(server, (l) => l.includes('"Serving securely"'));
    // The request's answer came back, so a line for it would already have been written.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(server.output()).not.toContain('"HTTP"');
  });
});

describe('json format', () => {
  it('writes one JSON object per line with kube keys ts, caller, msg, v', async () => {
    const server = await start(['--logging-format=json', '-v', '3']);
    const res = await call(server.url, '/api/v1/namespaces?limit=1', server.creds, { headers: { 'user-agent': 'json-test' } });
    expect(res.status).toBe(200);
    const line = await waitForLine(server, (l) => l.includes('"msg":"HTTP"'));
    const lines = stderrLines(server).map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const entry of lines) {
      expect(typeof entry.ts).toBe('number');
      expect(entry.caller).toMatch(/^[\w.-]+:\d+$/);
      expect(typeof entry.msg).toBe('string');
    }
    const entry = JSON.parse(line) as Record<string, unknown>;
    expect(Object.keys(entry).slice(0, 4)).toEqual(['ts', 'caller', 'msg', 'v']);
    expect(entry).toMatchObject({ msg: 'HTTP', v: 3, verb: 'LIST', URI: '/api/v1/namespaces?limit=1', userAgent: 'json-test', resp: 200, 'audit-ID': res.headers['audit-id'] });
    expect(Math.abs((entry.ts as number) - Date.now())).toBeLessThan(60_000);
    expect(entry.latency).toMatch(/^[\d.]+(ns|µs|ms|s)$/);
  });
});

describe('httplog of a request whose client hung up', () => {
  it('names the client address the request came from (the line is written after the socket is gone)', async () => {
    const server = await start(['-v=3']);
    const url = new URL('/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=60', server.url);
    // A watch's line is written when its stream ends; here that is the client closing the connection.
    await new Promise<void>((resolve, reject) => {
      const req = request(url, { ca: server.creds.ca, headers: { authorization: `Bearer ${TOKEN}`, 'user-agent': 'hangup-test' } }, (res) => {
        expect(res.statusCode).toBe(200);
        req.destroy();
        resolve();
      });
      req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
      req.end();
    });
    const line = await waitForLine(server, (l) => l.includes('"HTTP"') && l.includes('userAgent="hangup-test"'));
    expect(line).toMatch(/verb="WATCH" .* srcIP="127\.0\.0\.1:\d+" resp=200$/);
  });
});

describe('logging flags', () => {
  it('takes -v in pflag forms and refuses an unknown format or a bad level', () => {
    for (const argv of [['-v=4'], ['-v', '4'], ['-v4'], ['--v=4'], ['--v', '4']]) {
      const parsed = parseFlags(argv);
      expect(parsed.help === false && parsed.logging).toEqual({ format: 'text', verbosity: 4 });
    }
    const json = parseFlags(['--logging-format=json']);
    expect(json.help === false && json.logging.format).toBe('json');
    expect(() => parseFlags(['--logging-format=xml'])).toThrow('logging.format: Unsupported value: "xml": supported values: "json", "text"');
    expect(() => parseFlags(['-v=high'])).toThrow('invalid argument "high" for "-v, --v" flag: strconv.ParseInt: parsing "high": invalid syntax');
  });
});
