// Repository folders by link: a folder URL as the browser shows it on GitHub
// (`https://github.com/OWNER/REPO/tree/REF/PATH`) or GitLab
// (`https://gitlab.com/GROUP[/SUB…]/PROJECT/-/tree/REF/PATH`) becomes the list of its files, read
// at one commit, through the host's public API (CORS, no key). No DOM: the page, the element and
// the CLI (Node's fetch) share it. It is host knowledge, not a format family: which files are worth
// fetching is asked of the caller (`wanted`, the family registry's `readsName`).
//
// The response shapes followed (GitHub REST v3 and GitLab API v4, as documented):
// - GitHub `GET {api}/repos/{owner}/{repo}/commits/{ref}` → `{ sha, commit: { tree: { sha } }, … }`;
//   422 `{ message: "No commit found for SHA: …" }` for an unknown ref, 404 `{ message: "Not Found" }`
//   for a missing or private repository.
// - GitHub `GET {api}/repos/{o}/{r}/git/trees/{sha}?recursive=1` → `{ sha, url, truncated,
//   tree: [{ path, mode, type: 'blob'|'tree'|'commit', sha, size?, url }] }` (paths from the root;
//   `truncated` past 100,000 entries or 7 MB).
// - GitHub's rate limit on every answer: `x-ratelimit-limit`, `x-ratelimit-remaining`,
//   `x-ratelimit-reset` (epoch seconds); used up, 403 or 429 with `x-ratelimit-remaining: 0` and
//   `{ message: "API rate limit exceeded for …" }` (60 calls an hour without a key, per address).
// - GitHub raw files: `{raw}/{owner}/{repo}/{sha}/{path}`.
// - GitLab `GET {api}/projects/{url-encoded path}/repository/commits/{ref}` → `{ id, short_id, … }`;
//   404 `{ message: "404 Project Not Found" }` or `"404 Commit Not Found"`.
// - GitLab `GET {api}/projects/{id}/repository/tree?path=&ref=&recursive=true&per_page=100&page=N`
//   → `[{ id, name, type: 'blob'|'tree', path, mode }]` (no sizes), pages by `x-next-page` (empty on
//   the last; also `x-page`, `x-total-pages`); 404 `{ message: "404 Tree Not Found" }`.
// - GitLab's rate limit: 429 with `ratelimit-reset` (epoch seconds) or `retry-after` (seconds).
// - GitLab raw files: `{api}/projects/{id}/repository/files/{url-encoded path}/raw?ref={sha}`.
import { entriesFromUrls } from './input.js';
import { MAX_FILES_PER_DROP } from './fileset.js';

/** The public hosts. A GitHub Enterprise or self-hosted GitLab is one more entry (repoHosts). */
export const DEFAULT_REPO_HOSTS = Object.freeze([
  { kind: 'github', name: 'GitHub', web: 'https://github.com', api: 'https://api.github.com', raw: 'https://raw.githubusercontent.com' },
  { kind: 'gitlab', name: 'GitLab', web: 'https://gitlab.com', api: 'https://gitlab.com/api/v4' },
]);

/** Most refs tried when a ref may hold slashes (`tree/feature/x/Models`): each try is an API call. */
const MAX_REF_TRIES = 4;

/**
 * The hosts with settings laid over: `{ github: { api, raw, web }, gitlab: { api, web }, extra: [] }`
 * (tests point the public hosts' API at a local server; `extra` adds GitHub Enterprise
 * `{ kind: 'github', web: 'https://git.corp', api: 'https://git.corp/api/v3', raw: … }` or a GitLab).
 */
export function repoHosts(settings = globalThis.rigscopeRepoHosts ?? {}) {
  const out = DEFAULT_REPO_HOSTS.map((h) => ({ ...h, ...(settings[h.kind] ?? {}) }));
  for (const h of settings.extra ?? []) out.unshift({ name: h.kind === 'gitlab' ? 'GitLab' : 'GitHub', ...h });
  return out.map((h) => ({ ...h, web: trim(h.web), api: trim(h.api), raw: h.raw && trim(h.raw) }));
}

const trim = (u) => String(u).replace(/\/+$/, '');

/**
 * A folder URL read: `{ host, project, segments, folder }` where `segments` are the ref and path
 * as written after `tree/` (split later, a ref may hold slashes), or null when the URL is not a
 * folder of a known host.
 */
export function parseRepoUrl(text, hosts = repoHosts()) {
  let url;
  try {
    url = new URL(String(text).trim());
  } catch {
    return null;
  }
  const href = `${url.origin}${url.pathname}`.replace(/\/+$/, '');
  for (const host of hosts) {
    if (!href.toLowerCase().startsWith(`${host.web.toLowerCase()}/`)) continue;
    const parts = href
      .slice(host.web.length + 1)
      .split('/')
      .map((p) => safeDecode(p));
    const spec = host.kind === 'gitlab' ? gitlabParts(parts) : githubParts(parts);
    if (spec) return { host, ...spec };
  }
  return null;
}

function safeDecode(p) {
  try {
    return decodeURIComponent(p);
  } catch {
    return p;
  }
}

// OWNER/REPO, or OWNER/REPO/tree/REF/PATH…
function githubParts(parts) {
  if (parts.length < 2 || !parts[0] || !parts[1]) return null;
  const project = `${parts[0]}/${parts[1].replace(/\.git$/, '')}`;
  if (parts.length === 2) return { project, segments: [] };
  if (parts[2] !== 'tree' || parts.length < 4) return null;
  return { project, segments: parts.slice(3) };
}

// GROUP/…/PROJECT, or GROUP/…/PROJECT/-/tree/REF/PATH…
function gitlabParts(parts) {
  const dash = parts.indexOf('-');
  const projectParts = dash < 0 ? parts : parts.slice(0, dash);
  if (projectParts.length < 2 || projectParts.some((p) => !p)) return null;
  const project = projectParts.join('/').replace(/\.git$/, '');
  if (dash < 0) return { project, segments: [] };
  if (parts[dash + 1] !== 'tree' || parts.length < dash + 3) return null;
  return { project, segments: parts.slice(dash + 2) };
}

/** True when the text is a folder URL of a known host. */
export const isRepoUrl = (text, hosts) => parseRepoUrl(text, hosts) !== null;

/** The folder's link pinned at a commit: what a share link writes (`repo=`). */
export function pinnedUrl(host, project, sha, folder) {
  const tail = folder ? `/${folder.split('/').map(encodeURIComponent).join('/')}` : '';
  const tree = host.kind === 'gitlab' ? '-/tree' : 'tree';
  return `${host.web}/${project}/${tree}/${sha}${tail}`;
}

// ---- answers ------------------------------------------------------------------------------------

/** A failure with the sentence to show; `kind` says which (missing, limit, network, empty, http). */
export class RepoError extends Error {
  constructor(message, kind) {
    super(message);
    this.kind = kind;
  }
}

/** The rate limit an answer states (GitHub's `x-ratelimit-*`, GitLab's `ratelimit-*`), or null. */
export function rateLimitOf(headers) {
  const get = (k) => headers.get(`x-${k}`) ?? headers.get(k);
  const remaining = get('ratelimit-remaining');
  if (remaining === null) return null;
  const reset = Number(get('ratelimit-reset'));
  return {
    limit: Number(get('ratelimit-limit')) || undefined,
    remaining: Number(remaining),
    reset: Number.isFinite(reset) && reset > 0 ? new Date(reset * 1000) : undefined,
  };
}

const clock = (date) => `${date.toISOString().slice(11, 16)} UTC`;

/** "57 of 60 GitHub API calls left this hour": said after each listing. */
export function describeRateLimit(host, rate) {
  if (!rate) return '';
  const of = rate.limit ? ` of ${rate.limit}` : '';
  return `${rate.remaining}${of} ${host.name} API calls left${rate.reset ? ` until ${clock(rate.reset)}` : ''}`;
}

// A failed answer as one sentence. The body is the host's text: only its status and rate headers
// decide; its words are never shown as markup (the page sets messages as text).
async function failure(response, host, what) {
  const rate = rateLimitOf(response.headers);
  const retry = Number(response.headers.get('retry-after'));
  if (response.status === 429 || (response.status === 403 && rate?.remaining === 0)) {
    const reset = rate?.reset ?? (retry > 0 ? new Date(Date.now() + retry * 1000) : undefined);
    const per = host.kind === 'github' && rate?.limit ? ` (${rate.limit} calls an hour without signing in, per address)` : '';
    return new RepoError(
      `${host.name}'s API limit is used up${per}${reset ? `; it resets at ${clock(reset)}` : ''}. ${what} could not be listed; try again then.`,
      'limit',
    );
  }
  if (response.status === 404 || response.status === 401 || response.status === 403)
    return new RepoError(
      `${what} is not a public repository or does not exist (${host.name} answers ${response.status} for private ones).`,
      'missing',
    );
  if (response.status === 422) return new RepoError(`${what}: ${host.name} knows no such branch, tag or commit.`, 'missing');
  return new RepoError(`${what}: ${host.name} answered HTTP ${response.status}.`, 'http');
}

// ---- the session cache ----------------------------------------------------------------------
// Listings are asked once per session: anonymous GitHub calls are 60 an hour. A listing at a
// commit never changes; a branch's commit is kept for the session too (reload the tab for news).

const memory = new Map();
const store = () => {
  try {
    return globalThis.sessionStorage ?? null;
  } catch {
    return null; // a sandboxed frame may refuse storage
  }
};

function cached(key) {
  if (memory.has(key)) return memory.get(key);
  try {
    const text = store()?.getItem(`rigscope-repo:${key}`);
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

function keep(key, value) {
  memory.set(key, value);
  try {
    store()?.setItem(`rigscope-repo:${key}`, JSON.stringify(value));
  } catch {
    // full or refused: the memory copy serves this page
  }
}

/** Forgets every listing (tests). */
export function clearRepoCache() {
  memory.clear();
}

/**
 * One API call's JSON and headers, or a RepoError. `state.rate` keeps the last rate limit seen.
 * A 404 or 422 answer is returned as `{ status }` when `soft` (a ref guess that missed).
 */
async function getJson(url, { host, what, fetch, state, soft = false, pick = (body) => body }) {
  const hit = cached(url);
  if (hit) return hit;
  let response;
  try {
    response = await fetch(url, { headers: { accept: 'application/json' } });
  } catch (err) {
    throw new RepoError(
      `${what} could not be listed: ${host.name} (${host.api}) could not be reached, or the connection was cut (${err.message}).`,
      'network',
    );
  }
  state.rate = rateLimitOf(response.headers) ?? state.rate;
  if (!response.ok) {
    if (soft && (response.status === 404 || response.status === 422)) {
      // Read only to tell GitLab's "404 Project Not Found" from "404 Commit Not Found"; never shown.
      const message = await response.json().then(
        (b) => String(b?.message ?? ''),
        () => '',
      );
      return { status: response.status, message };
    }
    throw await failure(response, host, what);
  }
  let body;
  try {
    body = await response.json();
  } catch (err) {
    throw new RepoError(`${what}: ${host.name}'s answer was cut off or is not JSON (${err.message}).`, 'network');
  }
  // Only what is used is kept: a GitHub commit's answer carries its whole diff.
  const out = { body: pick(body), next: response.headers.get('x-next-page') ?? '' };
  keep(url, out);
  return out;
}

// ---- listing ------------------------------------------------------------------------------------

const apiProject = (host, project) =>
  host.kind === 'gitlab' ? `${host.api}/projects/${encodeURIComponent(project)}` : `${host.api}/repos/${project}`;

// GitHub answers 404 for a missing or private repository (422 for an unknown ref); GitLab 404 for
// both, its message saying which.
const repositoryMissing = (host, got) => got?.status === 404 && (host.kind !== 'gitlab' || /project/i.test(got.message));

// The commit a ref names, trying a longer ref while a shorter one is unknown (refs may hold
// slashes). Returns { sha, ref, folder }.
async function resolveCommit(spec, options) {
  const { host, project, segments } = spec;
  let missed = null;
  const tries = segments.length ? Math.min(MAX_REF_TRIES, segments.length) : 1;
  for (let n = 1; n <= tries; n++) {
    const ref = segments.length ? segments.slice(0, n).join('/') : 'HEAD';
    const got = await getJson(
      `${apiProject(host, project)}/${host.kind === 'gitlab' ? 'repository/' : ''}commits/${encodeURIComponent(ref)}`,
      {
        ...options,
        soft: true, // an unknown ref: try a longer one, or say which is missing below
        pick: (b) => ({ sha: b?.sha, id: b?.id }),
      },
    );
    if (got.status) {
      missed = got;
      if (repositoryMissing(host, got)) break; // no longer ref can help
      continue;
    }
    const sha = host.kind === 'gitlab' ? got.body?.id : got.body?.sha;
    if (typeof sha !== 'string' || !/^[0-9a-f]{7,64}$/i.test(sha))
      throw new RepoError(`${options.what}: ${host.name}'s answer names no commit.`, 'http');
    return { sha, ref, folder: segments.slice(n).join('/') };
  }
  if (repositoryMissing(host, missed))
    throw new RepoError(
      `${options.what} is not a public repository or does not exist (${host.name} answers 404 for private ones).`,
      'missing',
    );
  // The refs tried, as written in the address (quoted text: the page sets messages as text).
  const tried = segments.length ? Array.from({ length: tries }, (_, i) => `"${segments.slice(0, i + 1).join('/')}"`) : ['"HEAD"'];
  const also = tried.length > 1 ? ` (nor ${tried.slice(1).join(', ')}: a branch name may hold slashes)` : '';
  throw new RepoError(`${options.what}: ${host.name} knows no such branch, tag or commit as ${tried[0]}${also}.`, 'missing');
}

// A GitHub tree kept to what the listing reads.
const treeRows = (b) => ({
  truncated: b?.truncated === true,
  tree: Array.isArray(b?.tree) ? b.tree.map((t) => ({ path: t?.path, type: t?.type, size: t?.size, sha: t?.sha })) : [],
});

/** Most API calls spent completing a cut listing folder by folder (GitHub allows 60 an hour without a key). */
export const MAX_COMPLETION_CALLS = 40;

const joinPath = (a, b) => (a ? `${a}/${b}` : b);

// Rows of the first list, then those of the second whose paths the first lacks.
function mergeRows(first, second) {
  const seen = new Set(first.map((r) => r.path));
  return [...first, ...second.filter((r) => !seen.has(r.path))];
}

/**
 * Every row below a GitHub tree (paths from the root, `prefix` being the tree's). A recursive
 * answer that GitHub cut (`truncated`: past 100,000 entries or 7 MB, a whole game's repository) is
 * completed folder by folder: the tree's own level, then each folder below it asked on its own,
 * within `budget.calls`; past it, or once the API limit is used up, what is known is kept and the
 * listing stays cut.
 */
async function wholeTree(tree, id, prefix, budget) {
  const got = await tree(id, true);
  const rows = got.body.tree.map((t) => ({ ...t, path: joinPath(prefix, t.path) }));
  if (!got.body.truncated) return { rows, truncated: false };
  if (budget.calls-- <= 0) return { rows, truncated: true };
  try {
    const level = await tree(id, false);
    let out = level.body.tree.map((t) => ({ ...t, path: joinPath(prefix, t.path) }));
    let truncated = level.body.truncated;
    for (const sub of out.filter((t) => t.type === 'tree')) {
      if (budget.calls-- <= 0) return { rows: mergeRows(out, rows), truncated: true };
      const below = await wholeTree(tree, sub.sha, sub.path, budget);
      out = out.concat(below.rows);
      truncated ||= below.truncated;
    }
    return { rows: out, truncated };
  } catch (err) {
    if (err instanceof RepoError && err.kind === 'limit') return { rows, truncated: true };
    throw err;
  }
}

const blobsUnder = (rows, dir) =>
  rows
    .filter((t) => t.type === 'blob' && typeof t.path === 'string' && (!dir || t.path.startsWith(`${dir}/`)))
    .map((t) => ({ path: t.path, size: Number(t.size) || 0 }));

// GitHub: one recursive tree of the commit, kept to the folder (paths from the root); cut, asked
// again from the folder down (its tree found a level at a time) and completed folder by folder.
// `under(dir)` lists any folder of the repository the same way (a family's companions elsewhere).
async function githubFiles(spec, sha, folder, options) {
  const tree = (id, recursive) =>
    getJson(`${apiProject(spec.host, spec.project)}/git/trees/${id}${recursive ? '?recursive=1' : ''}`, { ...options, pick: treeRows });
  const budget = { calls: MAX_COMPLETION_CALLS };
  const whole = await tree(sha, true);
  // The tree of a folder, a level at a time (undefined when there is none).
  const treeOf = async (dir) => {
    let id = sha;
    for (const name of dir ? dir.split('/') : []) {
      const level = await tree(id, false);
      id = level.body.tree.find((t) => t.type === 'tree' && t.path === name)?.sha;
      if (!id) return undefined;
    }
    return id;
  };
  const under = async (dir) => {
    if (!whole.body.truncated) return { files: blobsUnder(whole.body.tree, dir), truncated: false };
    const id = await treeOf(dir);
    if (!id) return { files: [], truncated: false, missing: true };
    const listed = await wholeTree(tree, id, dir, budget);
    return { files: blobsUnder(listed.rows, dir), truncated: listed.truncated };
  };
  if (!whole.body.truncated) {
    const folderExists = !folder || whole.body.tree.some((t) => t.type === 'tree' && t.path === folder);
    return { files: blobsUnder(whole.body.tree, folder), folderExists, truncated: false, under };
  }
  const listed = await under(folder);
  return { files: listed.files, folderExists: !listed.missing, truncated: listed.truncated, under };
}

// GitLab: the folder's tree, recursive, 100 a page, following x-next-page; `under(dir)` another
// folder's the same way.
async function gitlabFiles(spec, sha, folder, options) {
  const under = async (dir) => {
    const listed = await gitlabTree(spec, sha, dir, options);
    return { ...listed, missing: !listed.folderExists };
  };
  return { ...(await gitlabTree(spec, sha, folder, options)), under };
}

async function gitlabTree(spec, sha, folder, options) {
  const files = [];
  const maxPages = Math.ceil(MAX_FILES_PER_DROP / 100) + 50; // folders count as rows too
  let page = '1';
  for (let n = 0; page && n < maxPages; n++) {
    const q = new URLSearchParams({ path: folder, ref: sha, recursive: 'true', per_page: '100', page });
    const got = await getJson(`${apiProject(spec.host, spec.project)}/repository/tree?${q}`, {
      ...options,
      soft: true, // 404 Tree Not Found: no such folder
      pick: (b) => (Array.isArray(b) ? b.map((t) => ({ path: t?.path, type: t?.type })) : []),
    });
    if (got.status) return { files, folderExists: false };
    for (const t of Array.isArray(got.body) ? got.body : [])
      if (t && t.type === 'blob' && typeof t.path === 'string') files.push({ path: t.path, size: 0 });
    page = /^\d+$/.test(got.next) ? got.next : '';
  }
  return { files, folderExists: true, truncated: !!page };
}

// A listed path is the host's text: one that climbs out (`..`), is absolute, or holds a backslash,
// a drive letter or a control character is not fetched (the CLI writes these paths to disk).
const safePath = (path) => !/(^|\/)\.\.?(\/|$)|^\/|\\|^[a-z]:|[\u0000-\u001f\u007f]/i.test(path);

function rawUrl(host, project, sha, path) {
  if (host.kind === 'gitlab') return `${apiProject(host, project)}/repository/files/${encodeURIComponent(path)}/raw?ref=${sha}`;
  return `${host.raw}/${project}/${sha}/${path.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * The folder's files at one commit: `{ host, project, sha, ref, folder, link, files: [{ path, url,
 * size }], skipped, total, truncated, rate, note }`. `wanted(path)` keeps the files worth fetching
 * (what some family reads); paths of the result are the folder's name and the path below it, as a
 * folder drop names them. Throws a RepoError with its sentence.
 * @param {string} text the folder URL
 * @param {{ hosts?: object[], fetch?: typeof fetch, wanted?: (path: string) => boolean, maxFiles?: number }} options
 */
export async function listRepoFolder(
  text,
  { hosts = repoHosts(), fetch = globalThis.fetch, wanted = () => true, maxFiles = MAX_FILES_PER_DROP } = {},
) {
  const spec = parseRepoUrl(text, hosts);
  if (!spec) throw new RepoError(`${text} is not a GitHub or GitLab folder address (…/tree/BRANCH/FOLDER).`, 'http');
  const { host, project } = spec;
  const state = { rate: null };
  const what = `${host.web.replace(/^https?:\/\//, '')}/${project}`;
  const options = { host, what, fetch, state };
  const { sha, ref, folder } = await resolveCommit(spec, options);
  const listed = host.kind === 'gitlab' ? await gitlabFiles(spec, sha, folder, options) : await githubFiles(spec, sha, folder, options);
  if (!listed.folderExists) throw new RepoError(`${what} has no folder "${folder}" at ${ref}.`, 'missing');
  const base = folder ? folder.split('/').pop() : project.split('/').pop();
  const cut = folder ? folder.length + 1 : 0;
  const readable = listed.files.filter((f) => safePath(f.path) && wanted(f.path));
  const files = readable
    .slice(0, maxFiles)
    .map((f) => ({ path: `${base}/${f.path.slice(cut)}`, source: f.path, size: f.size, url: rawUrl(host, project, sha, f.path) }));
  const where = folder ? `${what}/${folder}` : what;
  if (!files.length)
    throw new RepoError(
      listed.files.length
        ? `${where} at ${ref} holds ${listed.files.length} file${listed.files.length === 1 ? '' : 's'}, none of which Rigscope reads (meshes, animations, scripts, textures, zips).`
        : `${where} at ${ref} holds no files.`,
      'empty',
    );
  const notes = [];
  if (listed.truncated) notes.push(`${host.name} cut the listing short; some files of ${where} may be missing`);
  if (readable.length > maxFiles) notes.push(`${readable.length - maxFiles} files past the limit of ${maxFiles} in one drop were left out`);
  return {
    host,
    project,
    sha,
    ref,
    folder,
    link: pinnedUrl(host, project, sha, folder),
    files,
    total: listed.files.length,
    skipped: listed.files.length - readable.length,
    truncated: listed.truncated,
    rate: state.rate,
    notes,
    // Elsewhere in the repository, for a family's companions: a folder's files some family reads
    // (paths from the root) and a file's address.
    under: async (dir) => (await listed.under(dir)).files.filter((f) => safePath(f.path) && wanted(f.path)).map((f) => f.path),
    urlOf: (path) => rawUrl(host, project, sha, path),
  };
}

/**
 * Files a family needs from elsewhere in the repository (`companions`, the registry's
 * repoCompanions: a UE1 mesh's script in a sibling Classes/ folder), with a note for each. The
 * family reads files through `read(paths)` (fetched once: their bytes are kept in `got` and not
 * fetched again) and folders through `under(dir)`.
 */
async function companionsOf(listing, companions, got, limits) {
  const read = async (paths) => {
    const missing = paths.filter((p) => !got.has(p));
    let fetched = [];
    if (missing.length) {
      const items = missing.map((p) => ({ url: listing.urlOf(p), path: p }));
      fetched = await entriesFromUrls(items, undefined, { ...limits, eachOnItsOwn: true }).catch(() => []);
    }
    for (const e of fetched) if (!e.refusal && !got.has(e.path)) got.set(e.path, new Uint8Array(await e.read()));
    const text = new TextDecoder('utf-8');
    return new Map(paths.filter((p) => got.has(p)).map((p) => [p, text.decode(got.get(p))]));
  };
  const chosen = new Set(listing.files.map((f) => f.source));
  const found = await companions({ files: [...chosen], folder: listing.folder, read, under: listing.under });
  return { paths: [...new Set(found.paths)].filter((p) => !chosen.has(p) && safePath(p)), notes: found.notes };
}

/**
 * Where a drop of the folder and its companions is named from: the folder, or the closest folder
 * holding them all (a UE1 package's folder when its script came from Classes/ beside Models/), so
 * the names read as the package's folder dropped would.
 */
function namingRoot(folder, paths) {
  let root = folder ? folder.split('/') : [];
  for (const p of paths) {
    const dirs = p.split('/').slice(0, -1);
    let n = 0;
    while (n < root.length && n < dirs.length && root[n] === dirs[n]) n++;
    root = root.slice(0, n);
  }
  return root.join('/');
}

/**
 * The folder's files as FileEntries, fetched with the link fetcher (six at a time, its limits,
 * progress and cancel); each entry remembers `repo` (the folder's link pinned at the commit), so a
 * share link can name the folder instead of every file. A file that cannot be fetched is an entry
 * that says why (refused with the report), and the others open. `onListed(listing)` hears the
 * listing before the downloads start (the rate limit left); `onNote(text, { incomplete })` each
 * note (a cut listing and files past the cap are `incomplete`; companions fetched from elsewhere
 * are not). `companions` (the registry's
 * repoCompanions) names files the folder's files need from elsewhere in the repository.
 */
export async function entriesFromRepo(text, { onProgress, onListed, onNote, limits, companions, ...options } = {}) {
  const listing = await listRepoFolder(text, options);
  onListed?.(listing);
  const got = new Map(); // path from the root -> bytes read while companions were looked for
  const extra = companions ? await companionsOf(listing, companions, got, limits) : { paths: [], notes: [] };
  // A cut listing or files past the cap: some of the folder is missing. Companions: all is there.
  for (const note of listing.notes) onNote?.(note, { incomplete: true });
  for (const note of extra.notes) onNote?.(note, { incomplete: false });
  const root = namingRoot(listing.folder, extra.paths);
  const base = root ? root.split('/').pop() : listing.project.split('/').pop();
  const sources = [...listing.files.map((f) => f.source), ...extra.paths];
  const items = sources.map((source) => ({
    url: listing.urlOf(source),
    path: `${base}/${source.slice(root ? root.length + 1 : 0)}`,
    bytes: got.get(source),
  }));
  const entries = await entriesFromUrls(items, onProgress, { ...limits, eachOnItsOwn: true });
  for (const e of entries) e.repo = listing.link;
  return entries;
}
