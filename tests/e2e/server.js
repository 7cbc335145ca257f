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

/** The one byte range `bytes=a-b`, `a-` or `-n` (the last n) of a Range header within `size` bytes, as static hosts answer it; else null. */
function byteRange(header, size) {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header ?? '');
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') return size > 0 ? { start: Math.max(0, size - Number(m[2])), end: size - 1 } : null;
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  return start <= end ? { start, end } : null;
}

/**
 * `ranges`: answer a single Range with 206 and that part, as static hosts do (false: the whole
 * file, as a host that ignores Range); `served`, when given, collects `{ path, range, bytes, sent }`
 * of every file answer (tests count what a page read).
 */
export function startServer(port = 0, { cors = true, site = 'dist/', ranges = true, served = null } = {}) {
  const server = createServer((req, res) => {
    const file = resolve(req.url, site);
    if (!file || !existsSync(file)) {
      res.writeHead(404);
      res.end('not found');
      return;
    }
    const size = statSync(file).size;
    const headers = { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Content-Length': size };
    if (cors) {
      headers['Access-Control-Allow-Origin'] = '*';
      headers['Access-Control-Expose-Headers'] = 'Content-Range, Content-Length';
    }
    // `?whole` in a file's address: this answer ignores Range, as some hosts do.
    const answersRanges = ranges && !new URL(req.url, 'http://x').searchParams.has('whole');
    const range = answersRanges && req.headers.range ? byteRange(req.headers.range, size) : null;
    const record = {
      path: new URL(req.url, 'http://x').pathname,
      range: req.headers.range ?? null,
      bytes: range ? range.end - range.start + 1 : size,
    };
    // `sent`: whether the answer went out whole (false: the page ended the request first).
    res.on('close', () => (record.sent = res.writableFinished));
    served?.push(record);
    if (range) {
      headers['Content-Length'] = range.end - range.start + 1;
      headers['Content-Range'] = `bytes ${range.start}-${range.end}/${size}`;
      res.writeHead(206, headers);
      createReadStream(file, range).pipe(res);
      return;
    }
    if (answersRanges) headers['Accept-Ranges'] = 'bytes';
    res.writeHead(200, headers);
    createReadStream(file).pipe(res);
  });
  return new Promise((ok) => server.listen(port, '127.0.0.1', () => ok({ server, url: `http://127.0.0.1:${server.address().port}` })));
}
