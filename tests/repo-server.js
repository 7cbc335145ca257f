// A local stand-in for GitHub's and GitLab's public APIs, answering as they do (the shapes
// core/repo.js follows, listed at its top): commits, recursive trees, GitLab's paged tree with
// x-next-page, raw files, rate-limit headers, 404/422/403/429 bodies, CORS with the headers
// exposed. Each repository is a folder on disk (the shared samples), read at one fixed commit.
// Switches: `rateLimited` (GitHub 403 + x-ratelimit-remaining 0, GitLab 429 + retry-after),
// `limitAfter` (GitHub's API calls answered before the limit is used up), `cut` (the connection is
// dropped before an answer), `maxTree` (a tree answer past it is cut and marked `truncated`),
// `cutTrees` (every recursive tree answer of more than one row is cut to its first half and marked
// `truncated`, as GitHub cuts a large one; a tree's own level is answered whole), `missingRaw` (paths
// from the root whose raw file answers 404, as a file listed but not served).
// `lfsPointerOf(bytes)` writes the Git LFS pointer a repository would hold in place of a file.
import { createServer } from 'node:http';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const GITHUB_EXPOSE =
  'ETag, Link, Location, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Used, X-RateLimit-Resource, X-RateLimit-Reset';
const GITLAB_EXPOSE = 'Link, X-Total, X-Total-Pages, X-Per-Page, X-Page, X-Next-Page, X-Prev-Page, X-Gitlab-Blob-Id, X-Gitlab-Commit-Id';

/** Every file and folder under `root`, as git tree rows (paths from the root, sorted). */
function treeOf(root) {
  const rows = [];
  const visit = (dir, prefix) => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name);
      const path = prefix ? `${prefix}/${name}` : name;
      if (statSync(full).isDirectory()) {
        rows.push({ path, type: 'tree', mode: '040000', full, sha: createHash('sha1').update(`tree ${path}`).digest('hex') });
        visit(full, path);
      } else {
        const bytes = readFileSync(full);
        const sha = createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
        rows.push({ path, type: 'blob', mode: '100644', size: bytes.length, sha, full });
      }
    }
  };
  visit(root, '');
  return rows;
}

/** The Git LFS pointer a repository holds in place of these bytes (git-lfs's spec v1). */
export function lfsPointerOf(bytes) {
  const oid = createHash('sha256').update(bytes).digest('hex');
  return `version https://git-lfs.github.com/spec/v1\noid sha256:${oid}\nsize ${bytes.length}\n`;
}

/**
 * Starts the server. `repos`: `{ 'owner/name': folder }` (GitHub and GitLab alike; a GitLab
 * project may have subgroups, `group/sub/name`). Returns `{ url, github: { api, raw }, gitlab:
 * { api }, sha, calls, close, state }`.
 */
export async function startRepoServer(repos) {
  const sha = createHash('sha1').update('rigscope-fake-commit').digest('hex');
  const trees = new Map(Object.entries(repos).map(([k, dir]) => [k, treeOf(dir)]));
  const state = {
    rateLimited: false,
    limitAfter: Infinity,
    apiCalls: 0,
    cut: false,
    remaining: 60,
    calls: [],
    maxTree: 100000,
    cutTrees: false,
    missingRaw: new Set(),
  };
  const resetAt = Math.floor(Date.now() / 1000) + 1800;

  const send = (res, status, body, headers = {}) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body));
  };
  const known = (ref) => ref === 'main' || ref === sha || ref === 'HEAD' || ref === 'feature/models';

  function github(req, res, parts, query) {
    const cors = { 'access-control-allow-origin': '*', 'access-control-expose-headers': GITHUB_EXPOSE };
    if (state.rateLimited || ++state.apiCalls > state.limitAfter) {
      return send(
        res,
        403,
        {
          message: "API rate limit exceeded for 127.0.0.1. (But here's the good news: Authenticated requests get a higher rate limit.)",
          documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api',
        },
        {
          ...cors,
          'x-ratelimit-limit': '60',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-used': '60',
          'x-ratelimit-reset': String(resetAt),
          'x-ratelimit-resource': 'core',
        },
      );
    }
    state.remaining = Math.max(0, state.remaining - 1);
    const rate = {
      'x-ratelimit-limit': '60',
      'x-ratelimit-remaining': String(state.remaining),
      'x-ratelimit-reset': String(resetAt),
      'x-ratelimit-resource': 'core',
    };
    const headers = { ...cors, ...rate };
    // /repos/{o}/{r}/commits/{ref} and /repos/{o}/{r}/git/trees/{sha}
    const [, owner, name, ...rest] = parts;
    const tree = trees.get(`${owner}/${name}`);
    const notFound = { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' };
    if (!tree) return send(res, 404, notFound, headers);
    if (rest[0] === 'commits') {
      const ref = decodeURIComponent(rest.slice(1).join('/'));
      if (!known(ref))
        return send(
          res,
          422,
          {
            message: `No commit found for SHA: ${ref}`,
            documentation_url: 'https://docs.github.com/rest/commits/commits#get-a-commit',
            status: '422',
          },
          headers,
        );
      return send(
        res,
        200,
        {
          sha,
          node_id: 'C_fake',
          commit: { message: 'samples', tree: { sha: 'f'.repeat(40) } },
          html_url: `https://github.com/${owner}/${name}/commit/${sha}`,
        },
        headers,
      );
    }
    // A tree by the commit (the root) or by a folder's tree sha; paths below that tree. Past
    // `state.maxTree` rows an answer is cut and says `truncated`, as GitHub's past 100,000.
    const at = rest[2] === sha ? '' : tree.find((t) => t.type === 'tree' && t.sha === rest[2])?.path;
    if (rest[0] === 'git' && rest[1] === 'trees' && at !== undefined) {
      const below = tree.filter((t) => !at || t.path.startsWith(`${at}/`));
      const all = below.map((t) => ({
        path: at ? t.path.slice(at.length + 1) : t.path,
        mode: t.mode,
        type: t.type,
        sha: t.sha,
        ...(t.type === 'blob' ? { size: t.size } : {}),
        url: `https://api.github.com/repos/${owner}/${name}/git/${t.type}s/${t.sha}`,
      }));
      const rows = query.get('recursive') ? all : all.filter((r) => !r.path.includes('/'));
      const keep = state.cutTrees && query.get('recursive') && rows.length > 1 ? Math.ceil(rows.length / 2) : state.maxTree;
      const body = {
        sha: rest[2],
        url: `https://api.github.com/repos/${owner}/${name}/git/trees/${rest[2]}`,
        tree: rows.slice(0, keep),
        truncated: rows.length > keep,
      };
      return send(res, 200, body, headers);
    }
    return send(res, 404, notFound, headers);
  }

  function githubRaw(req, res, parts) {
    // /{o}/{r}/{sha}/{path…}: raw.githubusercontent.com answers with CORS and text/plain.
    const [owner, name, at, ...path] = parts.map(decodeURIComponent);
    const row = trees.get(`${owner}/${name}`)?.find((t) => t.type === 'blob' && t.path === path.join('/'));
    if (!row || at !== sha || state.missingRaw.has(row.path))
      return send(res, 404, '404: Not Found', { 'access-control-allow-origin': '*', 'content-type': 'text/plain' });
    return send(res, 200, readFileSync(row.full), {
      'access-control-allow-origin': '*',
      'content-type': 'text/plain; charset=utf-8',
      'content-length': String(row.size),
    });
  }

  function gitlab(req, res, parts, query) {
    const cors = { 'access-control-allow-origin': '*', 'access-control-expose-headers': GITLAB_EXPOSE };
    if (state.rateLimited)
      return send(res, 429, 'Retry later\n', {
        ...cors,
        'content-type': 'text/plain',
        'retry-after': '60',
        'ratelimit-remaining': '0',
        'ratelimit-reset': String(resetAt),
      });
    // /projects/{url-encoded path}/repository/…
    const project = decodeURIComponent(parts[1] ?? '');
    const tree = trees.get(project);
    if (parts[0] !== 'projects' || !tree) return send(res, 404, { message: '404 Project Not Found' }, cors);
    const [, , repository, what, ...rest] = parts;
    if (repository !== 'repository') return send(res, 404, { error: '404 Not Found' }, cors);
    if (what === 'commits') {
      const ref = decodeURIComponent(rest.join('/'));
      if (!known(ref)) return send(res, 404, { message: '404 Commit Not Found' }, cors);
      return send(
        res,
        200,
        { id: sha, short_id: sha.slice(0, 8), title: 'samples', web_url: `https://gitlab.com/${project}/-/commit/${sha}` },
        cors,
      );
    }
    if (what === 'tree') {
      if (query.get('ref') !== sha && !known(query.get('ref'))) return send(res, 404, { message: '404 Tree Not Found' }, cors);
      const path = query.get('path') ?? '';
      if (path && !tree.some((t) => t.type === 'tree' && t.path === path)) return send(res, 404, { message: '404 Tree Not Found' }, cors);
      const under = tree.filter((t) => !path || t.path.startsWith(`${path}/`));
      const rows = query.get('recursive') === 'true' ? under : under.filter((t) => !t.path.slice(path ? path.length + 1 : 0).includes('/'));
      const per = Math.min(100, Number(query.get('per_page')) || 20);
      const page = Number(query.get('page')) || 1;
      const pages = Math.max(1, Math.ceil(rows.length / per));
      const body = rows
        .slice((page - 1) * per, page * per)
        .map((t) => ({ id: t.sha ?? 'e'.repeat(40), name: t.path.split('/').pop(), type: t.type, path: t.path, mode: t.mode }));
      return send(res, 200, body, {
        ...cors,
        'x-page': String(page),
        'x-per-page': String(per),
        'x-total': String(rows.length),
        'x-total-pages': String(pages),
        'x-next-page': page < pages ? String(page + 1) : '',
        'x-prev-page': page > 1 ? String(page - 1) : '',
      });
    }
    if (what === 'files' && rest[1] === 'raw') {
      const path = decodeURIComponent(rest[0]);
      const row = tree.find((t) => t.type === 'blob' && t.path === path);
      if (!row || !known(query.get('ref')) || state.missingRaw.has(row.path))
        return send(res, 404, { message: '404 File Not Found' }, cors);
      return send(res, 200, readFileSync(row.full), {
        ...cors,
        'content-type': 'text/plain; charset=utf-8',
        'content-length': String(row.size),
        'x-gitlab-commit-id': sha,
      });
    }
    return send(res, 404, { error: '404 Not Found' }, cors);
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    state.calls.push(req.url);
    if (state.cut) return req.socket.destroy();
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        'access-control-allow-origin': '*',
        'access-control-allow-headers': 'accept',
        'access-control-allow-methods': 'GET',
      });
      return res.end();
    }
    // Split the raw path, so %2F inside a GitLab project or file path stays one part.
    const parts = url.pathname.split('/').filter(Boolean);
    if (parts[0] === 'gh-api') return github(req, res, parts.slice(1), url.searchParams);
    if (parts[0] === 'gh-raw') return githubRaw(req, res, parts.slice(1));
    if (parts[0] === 'gl-api' && parts[1] === 'api' && parts[2] === 'v4') return gitlab(req, res, parts.slice(3), url.searchParams);
    send(res, 404, { message: 'Not Found' });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  return {
    url,
    sha,
    state,
    github: { api: `${url}/gh-api`, raw: `${url}/gh-raw` },
    gitlab: { api: `${url}/gl-api/api/v4` },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
