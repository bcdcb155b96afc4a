#!/usr/bin/env node
// Builds memlens's wheel into out/server/ for the .vsix: memlens is not on PyPI, so the extension carries the
// package it needs and "Copy Install Command" gives `<python> -m pip install <extension>/out/server/memlens-….whl`
// (pip fetches the dependencies from PyPI). Uses ${MEMLENS_PYTHON:-python3}; the build backend (setuptools) comes
// from pip's build isolation.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OUT = path.join(ROOT, 'out', 'server');
const python = process.env.MEMLENS_PYTHON || 'python3';
fs.rmSync(OUT, { recursive: true, force: true });
fs.mkdirSync(OUT, { recursive: true });
const run = spawnSync(python, ['-m', 'pip', 'wheel', '--no-deps', '--quiet', '--disable-pip-version-check', '-w', OUT, ROOT], {
  stdio: 'inherit',
});
const wheels = fs.existsSync(OUT) ? fs.readdirSync(OUT).filter((f) => /^memlens-.*\.whl$/.test(f)) : [];
if (run.status !== 0 || wheels.length !== 1) {
  console.error(`build-wheel: ${python} -m pip wheel failed (status ${run.status}, wheels: ${wheels.join(', ') || 'none'})`);
  process.exit(1);
}
// pip leaves build/ and *.egg-info in the source tree
fs.rmSync(path.join(ROOT, 'build'), { recursive: true, force: true });
console.log(`build-wheel: out/server/${wheels[0]} (${Math.round(fs.statSync(path.join(OUT, wheels[0])).size / 1024)} KB)`);
