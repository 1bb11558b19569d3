// interactiveMode with and without a terminal. The client runs in a child process (the client
// configuration bundled by esbuild, as it ships) whose standard input is a real pseudo-terminal
// made by util-linux `script`, or a plain pipe; the plugin it runs reports what it was given and,
// on a terminal, reads a one-time code typed into it.

import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { pluginCalls, simpleConfig, useTempDir, writeFile, writeKubeconfig, writePlugin } from './fixtures.js';

const tempDir = useTempDir();
let driver: string;
let bundledInputs: string[];

beforeAll(async () => {
  const dir = tempDir();
  const { metafile } = await build({
    entryPoints: [resolve('client/config/index.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile: join(dir, 'config.cjs'),
    logLevel: 'silent',
    metafile: true,
  });
  bundledInputs = Object.keys(metafile.inputs);
  driver = writeFile(
    join(dir, 'driver.mjs'),
    `import { loadKubeConfig } from './config.cjs';
const config = await loadKubeConfig({ path: process.argv[2] });
const result = await config.credentials.get().then((credentials) => ({ credentials }), (err) => ({ error: err.message }));
process.stdout.write('RESULT ' + JSON.stringify(result) + '\\n');
process.exit(0);
`,
  );
}, 60_000);

const PLUGIN = `
if (require('tty').isatty(0)) {
  process.stderr.write('one-time code: ');
  require('readline').createInterface({ input: process.stdin }).once('line', (line) => {
    reply({ token: 'typed-' + line.trim() });
    process.exit(0);
  });
} else {
  reply({ token: 'no-terminal' });
}`;

interface Outcome {
  credentials?: { token?: string };
  error?: string;
}

/** Runs the driver on a pseudo-terminal (typing `typed` into it) or on a pipe. */
function runClient(kubeconfig: string, terminal: boolean, typed = ''): Promise<Outcome> {
  const child = terminal
    ? spawn('script', ['-qec', `'${process.execPath}' '${driver}' '${kubeconfig}'`, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] })
    : spawn(process.execPath, [driver, kubeconfig], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  if (typed) child.stdin.write(`${typed}\n`);
  return new Promise((done, fail) => {
    child.on('error', fail);
    child.on('close', () => {
      // On a terminal the plugin's prompt shares the line with the result.
      const result = /RESULT (\{.*\})/.exec(out)?.[1];
      if (!result) fail(new Error(`no result from the client; it printed: ${out}`));
      else done(JSON.parse(result) as Outcome);
    });
    // script ends with its input: keep it open until the client has answered.
    child.stdout.on('data', () => {
      if (out.includes('RESULT ')) child.stdin.end();
    });
  });
}

function setup(interactiveMode: string): { bin: string; kubeconfig: string } {
  const dir = tempDir();
  writePlugin(join(dir, 'bin', 'plugin'), PLUGIN);
  const kubeconfig = writeKubeconfig(
    join(dir, 'config'),
    simpleConfig({ exec: { apiVersion: 'client.authentication.k8s.io/v1', command: './bin/plugin', interactiveMode } }),
  );
  return { bin: join(dir, 'bin'), kubeconfig };
}

it('the client configuration bundles on its own: nothing from the server runtime', () => {
  expect(bundledInputs.some((input) => input.startsWith('client/config/'))).toBe(true);
  expect(bundledInputs.filter((input) => input.startsWith('runtime/'))).toEqual([]);
});

describe('on a terminal', () => {
  for (const mode of ['IfAvailable', 'Always']) {
    it(`${mode}: the plugin gets the terminal as standard input and spec.interactive is true`, async () => {
      const s = setup(mode);
      const outcome = await runClient(s.kubeconfig, true, '424242');
      expect(outcome).toEqual({ credentials: { token: 'typed-424242' } });
      const [call] = pluginCalls(s.bin);
      expect(call.stdinIsTerminal).toBe(true);
      expect(call.info.spec.interactive).toBe(true);
    });
  }

  it('Never: the plugin gets no standard input and spec.interactive is false', async () => {
    const s = setup('Never');
    expect(await runClient(s.kubeconfig, true)).toEqual({ credentials: { token: 'no-terminal' } });
    const [call] = pluginCalls(s.bin);
    expect(call.stdinIsTerminal).toBe(false);
    expect(call.info.spec.interactive).toBe(false);
  });
});

describe('without a terminal', () => {
  for (const mode of ['IfAvailable', 'Never']) {
    it(`${mode}: the plugin runs, without standard input, spec.interactive false`, async () => {
      const s = setup(mode);
      expect(await runClient(s.kubeconfig, false)).toEqual({ credentials: { token: 'no-terminal' } });
      const [call] = pluginCalls(s.bin);
      expect(call.stdinIsTerminal).toBe(false);
      expect(call.info.spec.interactive).toBe(false);
    });
  }

  it('Always: an error, and the plugin is not run', async () => {
    const s = setup('Always');
    const outcome = await runClient(s.kubeconfig, false);
    expect(outcome.error).toBe(
      `getting credentials for user "u" in ${s.kubeconfig}: exec plugin cannot support interactive mode: standard input is not a terminal`,
    );
    expect(pluginCalls(s.bin)).toEqual([]);
  });
});
