import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';

/** The installed version of a package (read from node_modules: some do not export package.json). */
function installedVersion(name: string): string {
  try {
    const manifest = JSON.parse(
      readFileSync(join(__dirname, '..', '..', 'node_modules', name, 'package.json'), 'utf8'),
    );
    return String(manifest.version);
  } catch {
    return 'not found';
  }
}

export interface Environment {
  readonly date: string;
  readonly lines: readonly string[];
}

export function describeEnvironment(): Environment {
  const versions = ['axios', 'axios-retry', 'retry-axios', '@sinonjs/fake-timers', 'tinybench'].map(
    (name) => `${name} ${installedVersion(name)}`,
  );
  return {
    date: new Date().toISOString(),
    lines: [
      `Node ${process.version} on ${process.platform}/${process.arch}, ${cpus().length} CPUs, load average ${loadavg()
        .map((load) => load.toFixed(2))
        .join(' / ')} at the start (the machine is shared; only the overhead table uses real time)`,
      versions.join(', '),
      `axios-safe-retry: this repository's src/ (${installedVersionOfThisPackage()})`,
    ],
  };
}

function installedVersionOfThisPackage(): string {
  const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8'));
  return `version ${String(manifest.version)}`;
}
