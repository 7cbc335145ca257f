// What the browser tests share with scripts that run outside Vitest (scripts/docs-pictures.mjs):
// Debian's Chromium as they start it, and the samples' files as the test server serves them.
import { chromium } from 'playwright-core';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { CHROMIUM_ARGS, sandboxed } from '../../web/cli/chromium.js';

export const SAMPLES = new URL('../../../shared/samples/', import.meta.url).pathname;

/** Debian's Chromium with the switches `rigscope poster` uses (web/cli/chromium.js): SwiftShader, no sandbox, no background traffic. */
export async function launch(extraArgs = []) {
  return chromium.launch({ executablePath: '/usr/bin/chromium', chromiumSandbox: sandboxed(), args: [...CHROMIUM_ARGS, ...extraArgs] });
}

/** Resolves after `n` of the page's animation frames: a count of frames, whatever the machine's load. */
export const animationFrames = (page, n) =>
  page.evaluate(
    (count) =>
      new Promise((resolve) => {
        let left = count;
        const next = () => (--left <= 0 ? resolve() : requestAnimationFrame(next));
        requestAnimationFrame(next);
      }),
    n,
  );

/** Every file of a samples folder (a path under samples/) as the test server serves it (/samples/…), sorted. */
export function samplesFolderPaths(folder) {
  const files = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else files.push(relative(SAMPLES, join(dir, e.name)));
    }
  };
  walk(join(SAMPLES, folder));
  return files.sort().map((f) => `/samples/${f.split('/').map(encodeURIComponent).join('/')}`);
}
