// A static server for the built site, on loopback only. It serves dist/ at "/" and again under a
// deep sub-path (the site must work from any sub-path of any static host), the shared samples and
// the generated fixtures.
import { createServer } from 'node:http';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;
const TYPES = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.wasm': 'application/wasm',
  '.css': 'text/css',
  '.json': 'application/json',
  '.png': 'image/png',
};
export const SUB_PATH = '/wiki/files/rigscope/';

function resolve(url, site) {
  const path = decodeURIComponent(new URL(url, 'http://x').pathname);
  const mounts = [
    [SUB_PATH, site],
    ['/samples/', '../shared/samples/'],
    ['/fixtures/', 'build/fixtures/'],
    ['/', site],
  ];
  for (const [prefix, dir] of mounts) {
    if (!path.startsWith(prefix)) continue;
    const rel = normalize(path.slice(prefix.length)).replace(/^(\.\.[/\\])+/, '');
    let file = join(root, dir, rel);
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    return file;
  }
  return null;
}

export function startServer(port = 0, { cors = true, site = 'dist/' } = {}) {
  const server = createServer((req, res) => {
    const file = resolve(req.url, site);
    if (!file || !existsSync(file)) {
      res.writeHead(404);
      res.end('not found');
      return;
    }
    const headers = { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Content-Length': statSync(file).size };
    if (cors) headers['Access-Control-Allow-Origin'] = '*';
    res.writeHead(200, headers);
    createReadStream(file).pipe(res);
  });
  return new Promise((ok) => server.listen(port, '127.0.0.1', () => ok({ server, url: `http://127.0.0.1:${server.address().port}` })));
}
