// One parameter scheme for the viewer and the embed page:
//   file=URL (repeatable)  repo=FOLDER-URL  clip=NAME  frame=N  speed=X  autoplay=0|1  skeleton=0|1
//   camera=px,py,pz,tx,ty,tz  bg=RRGGBB  up=X,Y,Z  lod=N|all  mesh=NAME  demo=0
// (mesh=: of a UE1 package, only that mesh, by its name or Package.Group.Name)
// "Copy link" writes the current state in these words; both pages read them.
import { lodFromText } from '../core/lod.js';
import { isRepoUrl } from '../core/repo.js';

/** Camera coordinates beyond this are not a view of any model (1e308 made a blank view). */
export const MAX_CAMERA_COORDINATE = 1e6;

// file= values as absolute http(s) or data URLs; anything else becomes a problem naming it.
function readFiles(values, base, problems) {
  const files = [];
  for (const value of values) {
    let url;
    try {
      url = new URL(value, base);
    } catch {
      problems.push(`file=${value} is not a valid URL; it was not opened`);
      continue;
    }
    if (!['http:', 'https:', 'data:'].includes(url.protocol)) {
      problems.push(`file=${value} is a ${url.protocol} URL; only http, https and data URLs can be opened`);
      continue;
    }
    files.push(url.href);
  }
  return files;
}

// repo=: a GitHub or GitLab folder as the browser shows it (core/repo.js), else a problem naming it.
function readRepo(value, problems) {
  if (value === null) return undefined;
  if (isRepoUrl(value)) return value.trim();
  problems.push(`repo=${value} is not a GitHub or GitLab folder address (…/tree/BRANCH/FOLDER); it was not opened`);
  return undefined;
}

// camera=px,py,pz,tx,ty,tz: six finite numbers within MAX_CAMERA_COORDINATE, the position apart
// from the target; else the default framing is kept and the problem said.
function readCamera(value, problems) {
  if (value === null) return undefined;
  const v = value.split(',').map((x) => (x.trim() === '' ? NaN : Number(x)));
  const why =
    v.length !== 6
      ? `has ${v.length} values, not 6 (px,py,pz,tx,ty,tz)`
      : !v.every(Number.isFinite)
        ? 'has a value that is not a finite number'
        : v.some((x) => Math.abs(x) > MAX_CAMERA_COORDINATE)
          ? `has a coordinate beyond ±${MAX_CAMERA_COORDINATE.toLocaleString('en')}`
          : v[0] === v[3] && v[1] === v[4] && v[2] === v[5]
            ? 'puts the camera on its target'
            : null;
  if (!why) return v;
  problems.push(`camera=${value} ${why}; the default view is used`);
  return undefined;
}

/**
 * The page's parameters. Values that cannot be used are dropped, each with a sentence in
 * `problems` for the page to show; `files` are absolute URLs.
 */
export function readParams(search = location.search, base = location.href, hash = globalThis.location?.hash ?? '') {
  const q = new URLSearchParams(search);
  const problems = [];
  const num = (k) => {
    if (!q.has(k)) return undefined;
    const v = q.get(k).trim() === '' ? NaN : Number(q.get(k));
    if (Number.isFinite(v)) return v;
    problems.push(`${k}=${q.get(k)} is not a number; ignored`);
    return undefined;
  };
  const colour = (k) => {
    const v = q.get(k);
    if (v === null || /^[0-9a-f]{6}$/i.test(v)) return v ?? undefined;
    problems.push(`${k}=${v} is not a colour as RRGGBB; ignored`);
    return undefined;
  };
  return {
    files: readFiles(q.getAll('file'), base, problems),
    repo: readRepo(q.get('repo'), problems),
    clip: q.get('clip') ?? undefined,
    frame: num('frame'),
    speed: num('speed'),
    autoplay: q.get('autoplay') !== '0',
    skeleton: q.get('skeleton') === '1',
    camera: readCamera(q.get('camera'), problems),
    bg: colour('bg'),
    up: readUp(q.get('up'), problems),
    lod: readLod(q.get('lod'), problems),
    mesh: q.get('mesh')?.trim() || undefined,
    // A link that names files shows those or says why not, never the demo in their place.
    demo: q.get('demo') !== '0' && !q.has('file') && !q.has('repo') && readPackedHash(hash) === undefined,
    packed: readPackedHash(hash),
    problems,
  };
}

// up=X,Y,Z: the scene turned by quarter turns about X, Y and Z, in degrees (e.g. up=-90,0,0).
function readUp(value, problems) {
  if (value === null) return undefined;
  const v = value.split(',').map(Number);
  if (v.length === 3 && v.every((d) => Number.isFinite(d) && d % 90 === 0 && Math.abs(d) <= 180)) return v;
  problems.push(`up=${value} is not three quarter turns (multiples of 90 between -180 and 180); ignored`);
  return undefined;
}

// lod=N|all: the level of detail shown of parts that have levels (0, the finest, unless given).
function readLod(value, problems) {
  if (value === null) return undefined;
  const lod = lodFromText(value);
  if (lod === null) problems.push(`lod=${value} is not a level of detail (0 the finest, 1, 2… or all); ignored`);
  return lod ?? undefined;
}

export function buildQuery(state) {
  const q = new URLSearchParams();
  for (const f of state.files ?? []) q.append('file', f);
  if (state.clip) q.set('clip', state.clip);
  if (state.frame !== undefined) q.set('frame', String(state.frame));
  if (state.speed !== undefined && state.speed !== 1) q.set('speed', String(state.speed));
  if (state.autoplay === false) q.set('autoplay', '0');
  if (state.skeleton) q.set('skeleton', '1');
  if (state.camera) q.set('camera', state.camera.map((x) => +x.toFixed(4)).join(','));
  if (state.bg) q.set('bg', state.bg);
  if (state.up?.some((d) => d !== 0)) q.set('up', state.up.join(','));
  if (state.lod !== undefined && state.lod !== 0) q.set('lod', String(state.lod));
  if (state.mesh) q.set('mesh', state.mesh);
  const rest = q.toString();
  if (!state.repo) return rest;
  // A folder's address keeps its / and : (allowed in a query): a share link stays short.
  const repo = `repo=${encodeURIComponent(state.repo).replace(/%2F/g, '/').replace(/%3A/g, ':')}`;
  return rest ? `${repo}&${rest}` : repo;
}

/** The current view as parameters. `urls` are the http(s) URLs the loaded files came from. */
export function currentState(app, viewer, urls) {
  const c = viewer.camera.position;
  const t = viewer.controls.target;
  return {
    files: urls,
    clip: app.current?.clip.name,
    frame: app.current ? app.fileFrame : undefined,
    speed: app.speed,
    autoplay: app.playing,
    skeleton: viewer.showSkeleton,
    camera: [c.x, c.y, c.z, t.x, t.y, t.z],
    bg: viewer.background.getHexString(),
    up: viewer.up,
    lod: app.lod,
    mesh: app.objects?.[0],
  };
}

/**
 * Applies the level of detail, clip, frame, speed, autoplay, skeleton, camera and background after
 * files loaded. The level is set before a load where it can be (its first drawing shows it); a
 * drop that cleared the scene reset it, and it is shown again here.
 */
export async function applyState(app, viewer, p) {
  if (p.lod !== undefined && p.lod !== app.lod) await app.setLod(p.lod);
  if (p.bg) viewer.setBackground(`#${p.bg}`);
  if (p.up) {
    viewer.setUp(p.up);
    if (!p.camera) app.frameView?.();
  }
  if (p.skeleton) viewer.setSkeletonVisible(true);
  if (p.speed !== undefined) app.speed = p.speed;
  if (p.clip) {
    const hit =
      app.allClips.find((c) => c.clip.name === p.clip) ?? app.allClips.find((c) => c.clip.name.toLowerCase() === p.clip.toLowerCase());
    if (hit && app.current?.clip !== hit.clip) {
      // A link shows its clip alone: no crossfade from the clip chosen while loading.
      app.current?.action.stop();
      app.current = null;
      app.select(hit.character, hit.clip);
    }
  }
  if (app.current) {
    if (p.frame !== undefined) app.setTime((p.frame - app.current.clip.firstFrame) / app.current.clip.fps);
    if (!p.autoplay || p.frame !== undefined) app.current.action.paused = !p.autoplay;
  }
  if (p.camera) {
    viewer.camera.position.set(p.camera[0], p.camera[1], p.camera[2]);
    viewer.controls.target.set(p.camera[3], p.camera[4], p.camera[5]);
    viewer.controls.update();
    viewer.requestRender?.();
  }
}

// ---- packed links: `#pack=<base64url>` (core/pack.js) ------------------------------------------
// The fragment never reaches a server. The pack holds the files and the view state in this
// module's words (buildQuery's keys and values as strings); file= URLs of hosted files stay in the
// query.

/** The packed scene a fragment carries (`#pack=…`), or undefined. */
export function readPackedHash(hash) {
  const m = /^#?pack=/.exec(hash ?? '');
  return m ? hash.slice(m[0].length) : undefined;
}

/** The view state as a pack carries it: buildQuery's words as strings, without file= URLs. */
export function packedState(state) {
  const q = new URLSearchParams(buildQuery({ ...state, files: [], repo: undefined }));
  return Object.fromEntries(q.entries());
}

/**
 * The page's query with a pack's view state laid over it, for readParams to check like any
 * other parameters (a pack's state is as untrusted as a link's query). Only string values count;
 * file=, repo= and demo= cannot come from a pack.
 */
export function queryWithPackedState(search, state) {
  const q = new URLSearchParams(search);
  for (const [k, v] of Object.entries(state ?? {})) {
    if (typeof v === 'string' && k !== 'file' && k !== 'demo' && k !== 'repo') q.set(k, v);
  }
  return q.toString();
}
