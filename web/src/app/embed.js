// Minimal player for iframes: canvas, play/pause, scrub, a link to the full viewer. Takes the
// same parameters as the full viewer (file=, clip=, frame=, speed=, autoplay=).
import { sharedDecoder } from '../decoder/client.js';
import { App } from './app.js';
import { describeRecord } from '../core/report.js';
import { entriesFromUrls } from './input.js';
import { Viewer } from './viewer.js';
import { applyState, readParams } from './params.js';

const $ = (id) => document.getElementById(id);
const params = readParams();
const viewer = new Viewer($('stage'));
viewer.grid.visible = false;
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
    const files = params.files.length ? params.files : ['./demo/rigscope-demo.psk', './demo/rigscope-demo.psa'];
    const urls = files.map((u) => new URL(u, location.href).href);
    const report = await app.loadFiles(await entriesFromUrls(urls));
    for (const r of report.records.filter((x) => x.kind === 'refused')) $('errors').append(Object.assign(document.createElement('p'), { textContent: describeRecord(r) }));
    applyState(app, viewer, params);
  } catch (err) {
    $('errors').append(Object.assign(document.createElement('p'), { textContent: err.message }));
  }
  window.__rigscope.ready = true;
})();
