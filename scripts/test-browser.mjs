// Runs browser/cases.mjs in a real Chromium: the page (browser/page.ts, bundled with axios and
// ../src) is served from one loopback origin and talks to an API on another.
import { existsSync } from 'node:fs';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { cases } from '../browser/cases.mjs';
import { startApiServer, startPageServer } from '../browser/servers.mjs';
import { createReport } from './lib/report.mjs';
import { run, tail } from './lib/run.mjs';

const chromiumPath = '/usr/bin/chromium';
const started = performance.now();

// CI starts from a fresh machine: install Chromium from the distribution when we may.
function ensureChromium() {
  if (existsSync(chromiumPath)) return;
  if (process.getuid?.() !== 0) {
    throw new Error(`${chromiumPath} is missing; install it with: apt-get install -y chromium`);
  }
  console.log(`${chromiumPath} is missing: installing chromium with apt-get`);
  for (const args of [['update'], ['install', '-y', '--no-install-recommends', 'chromium']]) {
    const result = run('apt-get', args, { env: { DEBIAN_FRONTEND: 'noninteractive' } });
    if (!result.ok) throw new Error(`apt-get ${args.join(' ')} failed:\n${tail(result.output)}`);
  }
}

async function bundlePage() {
  const result = await build({
    entryPoints: ['browser/page.ts'],
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'es2020',
    write: false,
    logLevel: 'error',
  });
  return result.outputFiles[0].text;
}

// A call that never settles must fail its case, not hang the run.
const caseTimeoutMs = 15_000;
function withTimeout(promise, ms) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no outcome within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const html =
  '<!doctype html><meta charset="utf-8"><title>axios-safe-retry</title><script src="/page.js"></script>';

ensureChromium();
const site = await startPageServer({
  '/': { type: 'text/html', body: html },
  '/page.js': { type: 'text/javascript', body: await bundlePage() },
});
const api = await startApiServer(site.origin);
// Playwright makes (and removes) a fresh temporary profile for every launch.
const browser = await chromium.launch({
  executablePath: chromiumPath,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-quic',
  ],
});

const report = createReport();
try {
  const page = await browser.newPage();
  let consoleLines = [];
  page.on('console', (message) => consoleLines.push(message.text()));
  page.on('pageerror', (error) => consoleLines.push(`page error: ${error.message}`));
  const takeConsole = () => {
    const taken = consoleLines;
    consoleLines = [];
    return taken;
  };
  await page.goto(`${site.origin}/`);
  await page.waitForFunction(() => typeof window.send === 'function', undefined, {
    timeout: 10_000,
  });
  const send = (spec) => page.evaluate((s) => window.send(s), spec);

  console.log(`Chromium ${browser.version()}; page ${site.origin}, API ${api.origin}`);
  for (const testCase of cases) {
    try {
      const { checks, record } = await withTimeout(
        testCase.run({ send, api, takeConsole }),
        caseTimeoutMs,
      );
      const failed = checks.filter(([, ok]) => !ok).map(([label]) => `not true: ${label}`);
      report.check(testCase.name, failed.length === 0 && checks.length > 0, [
        ...failed,
        ...record.split('\n'),
      ]);
    } catch (error) {
      report.check(testCase.name, false, [`threw: ${error?.message ?? error}`]);
    }
  }
} finally {
  await browser.close();
  await Promise.all([site.close(), api.close()]);
}
console.log(`took ${((performance.now() - started) / 1000).toFixed(1)} s`);
process.exitCode = report.finish() ? 0 : 1;
