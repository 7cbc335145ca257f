// Builds the static site once, then serves it (and a second, CORS-less origin) for all browser tests.
import { execFileSync } from 'node:child_process';
import { startServer } from './server.js';

let servers = [];

export default async function setup({ provide }) {
  const root = new URL('../..', import.meta.url).pathname;
  execFileSync('npx', ['vite', 'build', '--logLevel', 'error'], { cwd: root, stdio: 'inherit' });
  const site = await startServer(0);
  const foreign = await startServer(0, { cors: false });
  servers = [site.server, foreign.server];
  provide('baseUrl', site.url);
  provide('foreignUrl', foreign.url);
  return async () => { for (const s of servers) s.close(); };
}
