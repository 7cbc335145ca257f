// One parameter scheme for the viewer and the embed page:
//   file=URL (repeatable)  clip=NAME  frame=N  speed=X  autoplay=0|1  skeleton=0|1
//   camera=px,py,pz,tx,ty,tz  bg=RRGGBB  demo=0
// "Copy link" writes the current state in these words; both pages read them.

export function readParams(search = location.search) {
  const q = new URLSearchParams(search);
  const num = (k) => (q.has(k) && Number.isFinite(Number(q.get(k))) ? Number(q.get(k)) : undefined);
  const camera = q.get('camera')?.split(',').map(Number);
  const bg = q.get('bg');
  return {
    files: q.getAll('file'),
    clip: q.get('clip') ?? undefined,
    frame: num('frame'),
    speed: num('speed'),
    autoplay: q.get('autoplay') !== '0',
    skeleton: q.get('skeleton') === '1',
    camera: camera?.length === 6 && camera.every(Number.isFinite) ? camera : undefined,
    bg: bg && /^[0-9a-f]{6}$/i.test(bg) ? bg : undefined,
    demo: q.get('demo') !== '0',
  };
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
  return q.toString();
}

/** The current view as parameters. `urls` are the http(s) URLs the loaded files came from. */
export function currentState(app, viewer, urls) {
  const c = viewer.camera.position;
  const t = viewer.controls.target;
  return {
    files: urls,
    clip: app.current?.clip.name,
    frame: app.current ? app.current.clip.firstFrame + app.frame : undefined,
    speed: viewer.timeScale,
    autoplay: app.playing,
    skeleton: viewer.showSkeleton,
    camera: [c.x, c.y, c.z, t.x, t.y, t.z],
    bg: viewer.background.getHexString(),
  };
}

/** Applies clip, frame, speed, autoplay, skeleton, camera and background after files loaded. */
export function applyState(app, viewer, p) {
  if (p.bg) viewer.setBackground(`#${p.bg}`);
  if (p.skeleton) viewer.setSkeletonVisible(true);
  if (p.speed !== undefined) viewer.timeScale = p.speed;
  if (p.clip) {
    const hit = app.allClips.find((c) => c.clip.name === p.clip) ?? app.allClips.find((c) => c.clip.name.toLowerCase() === p.clip.toLowerCase());
    if (hit) app.select(hit.character, hit.clip);
  }
  if (app.current) {
    if (p.frame !== undefined) app.setTime((p.frame - app.current.clip.firstFrame) / app.current.clip.fps);
    if (!p.autoplay || p.frame !== undefined) app.current.action.paused = !p.autoplay;
  }
  if (p.camera) {
    viewer.camera.position.set(p.camera[0], p.camera[1], p.camera[2]);
    viewer.controls.target.set(p.camera[3], p.camera[4], p.camera[5]);
    viewer.controls.update();
  }
}
