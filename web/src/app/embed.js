// Minimal player for iframes: canvas, play/pause, scrub, a link to the full viewer. Takes the
// same parameters as the full viewer (file=, clip=, frame=, speed=, autoplay=).
import { sharedDecoder } from '../decoder/client.js';
import { App } from './app.js';
import { entriesFromUrls } from './input.js';
import { Viewer } from './viewer.js';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const viewer = new Viewer($('stage'));
viewer.grid.visible = params.get('grid') === '1';
const app = new App(viewer, sharedDecoder());
$('open-full').href = `./index.html${location.search}`;

const scrub = $('scrub');
viewer.onTick = () => {
  const cur = app.current;
  $('play').classList.toggle('playing', app.playing);
  if (!cur) return;
  scrub.max = String(cur.clip.duration || 1);
  scrub.value = String(app.time);
  $('frame-label').textContent = `${cur.clip.name} · frame ${cur.clip.firstFrame + app.frame}`;
};
$('play').addEventListener('click', () => app.togglePlay());
scrub.addEventListener('input', () => { if (app.current) app.current.action.paused = true; app.setTime(Number(scrub.value)); });

window.__rigscope = { app, viewer, ready: false, pixels: () => { const r = viewer.countForegroundPixels(); delete r.pixels; return r; } };

(async () => {
  try {
    const files = params.getAll('file');
    const urls = files.length ? files : ['./demo/rigscope-demo.psk', './demo/rigscope-demo.psa'].map((u) => new URL(u, location.href).href);
    const report = await app.loadFiles(await entriesFromUrls(urls));
    for (const r of report.refused) $('errors').append(Object.assign(document.createElement('p'), { textContent: `${r.file}: ${r.reason}` }));
    const want = params.get('clip');
    const hit = want && app.allClips.find((c) => c.clip.name.toLowerCase() === want.toLowerCase());
    if (hit) app.select(hit.character, hit.clip);
    if (params.has('speed')) viewer.timeScale = Number(params.get('speed')) || 1;
    if (params.has('frame') && app.current) app.setTime(Number(params.get('frame')) / app.current.clip.fps);
    if (params.get('autoplay') === '0' && app.current) app.current.action.paused = true;
  } catch (err) {
    $('errors').append(Object.assign(document.createElement('p'), { textContent: err.message }));
  }
  window.__rigscope.ready = true;
})();
