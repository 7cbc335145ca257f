// Builds the static site once, then serves it (and a second, CORS-less origin) for all browser tests.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { startServer } from './server.js';

let servers = [];

export default async function setup({ provide }) {
  const root = new URL('../..', import.meta.url).pathname;
  // Each run builds its own copy of the site, so parallel runs never read a half-written one.
  const siteDir = `build/e2e-site-${process.pid}/`;
  execFileSync('npx', ['vite', 'build', '--logLevel', 'error', '--outDir', `${root}${siteDir}`], { cwd: root, stdio: 'inherit' });
  const site = await startServer(0, { site: siteDir });
  const foreign = await startServer(0, { cors: false, site: siteDir });
  servers = [site.server, foreign.server];
  provide('baseUrl', site.url);
  provide('foreignUrl', foreign.url);
  // The built site itself, for tests that install the player elsewhere (the MediaWiki extension).
  provide('siteDir', siteDir);
  return async () => {
    for (const s of servers) s.close();
    rmSync(`${root}${siteDir}`, { recursive: true, force: true });
  };
}
