// The headless Chromium that `rigscope poster` and `export --posters` draw with: Debian's
// /usr/bin/chromium, or the one RIGSCOPE_CHROMIUM (or CHROME_PATH) names, driven by playwright-core
// (no browser is ever downloaded). WebGL always goes through SwiftShader, so a GPU (or its absence)
// never changes a pixel; the browser tests launch with the same switches.
import { accessSync, constants, statSync } from 'node:fs';

/** Where Debian puts Chromium (`apt-get install chromium`). */
export const DEFAULT_CHROMIUM = '/usr/bin/chromium';

/**
 * Switches for a quiet, reproducible headless Chromium: no background traffic, and software WebGL
 * asked for explicitly (Chrome no longer falls back to SwiftShader on its own). The sandbox is
 * left to `sandboxed()`.
 */
export const CHROMIUM_ARGS = [
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
];

/**
 * The Chromium to run: RIGSCOPE_CHROMIUM, else CHROME_PATH, else /usr/bin/chromium. Throws a
 * sentence saying what to install when it is not an executable file.
 * @param {Record<string, string | undefined>} [env]
 */
export function chromiumPath(env = process.env) {
  const [path, from] = env.RIGSCOPE_CHROMIUM
    ? [env.RIGSCOPE_CHROMIUM, 'RIGSCOPE_CHROMIUM']
    : env.CHROME_PATH
      ? [env.CHROME_PATH, 'CHROME_PATH']
      : [DEFAULT_CHROMIUM, null];
  try {
    if (!statSync(path).isFile()) throw new Error('not a file');
    accessSync(path, constants.X_OK);
  } catch {
    throw new Error(
      `posters are drawn by a headless Chromium, and there is none at ${path}${from ? ` (${from})` : ''}: install it (apt-get install chromium) or set RIGSCOPE_CHROMIUM to its path`,
    );
  }
  return path;
}

/**
 * Whether Chromium runs in its own sandbox: yes, as any user but root (a wiki's www-data, say),
 * where Chromium refuses it; RIGSCOPE_CHROMIUM_SANDBOX=0 turns it off where the machine gives no
 * user namespaces (some containers), =1 insists on it.
 * @param {Record<string, string | undefined>} [env]
 */
export function sandboxed(env = process.env) {
  if (env.RIGSCOPE_CHROMIUM_SANDBOX === '0' || env.RIGSCOPE_CHROMIUM_SANDBOX === '1') return env.RIGSCOPE_CHROMIUM_SANDBOX === '1';
  return process.getuid?.() !== 0;
}

/** Starts Chromium headless with CHROMIUM_ARGS (and `extraArgs`), sandboxed unless `sandboxed()` says not. */
export async function launchChromium({ executablePath = chromiumPath(), extraArgs = [] } = {}) {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath, chromiumSandbox: sandboxed(), args: [...CHROMIUM_ARGS, ...extraArgs] });
}
