// The timeline: play/pause, frame steps, scrub with notify markers, frame label in the file's own
// numbering, go to frame, speed, loop or once, and the loop range. State lives in the playback
// model (App); this panel only shows it and asks it to change.
import { el } from '../dom.js';

export function timelinePanel({ app, $ }) {
  const scrub = $('scrub');
  let scrubbing = false;

  /** The current clip's notify markers as ticks over the scrub bar (names in tooltips). */
  function renderNotifies() {
    const span = app.current ? app.current.clip.duration : 0;
    $('notify-marks').replaceChildren(
      ...app.notifies
        .filter(() => span > 0)
        .map((n) => {
          const tick = el('span', { title: `${n.name} at ${n.time.toFixed(3)} s` });
          tick.style.left = `${Math.min(100, (n.time / span) * 100)}%`;
          return tick;
        }),
    );
  }
  function update() {
    const cur = app.current;
    $('play').classList.toggle('playing', app.playing);
    if (!cur) {
      $('frame-label').textContent = 'frame –';
      return;
    }
    scrub.max = String(cur.clip.duration || 1);
    if (!scrubbing) scrub.value = String(app.time);
    $('frame-label').textContent = `frame ${app.fileFrame} / ${cur.clip.firstFrame + cur.clip.frameCount - 1}`;
  }
  function showRange() {
    $('range-from').value = app.range?.from ?? '';
    $('range-to').value = app.range?.to ?? '';
  }

  scrub.addEventListener('input', () => {
    scrubbing = true;
    app.pauseAt(Number(scrub.value));
  });
  scrub.addEventListener('change', () => {
    scrubbing = false;
  });
  $('play').addEventListener('click', () => app.togglePlay());
  $('step-back').addEventListener('click', () => app.step(-1));
  $('step-forward').addEventListener('click', () => app.step(1));
  $('speed').addEventListener('change', (e) => {
    app.speed = Number(e.target.value);
  });
  // Go to a frame in the file's own numbering (UE1 sequences start where they start in the file).
  $('goto-frame').addEventListener('change', (e) => {
    if (e.target.value !== '') app.goToFileFrame(Number(e.target.value));
  });
  $('loop').addEventListener('change', (e) => app.setLoop(e.target.checked));
  const applyRange = () => app.setRange($('range-from').value, $('range-to').value);
  for (const id of ['range-from', 'range-to']) $(id).addEventListener('input', applyRange);
  $('range-clear').addEventListener('click', () => app.setRange(null, null));

  app.on('clip', () => {
    showRange();
    $('loop').checked = app.loop;
    renderNotifies();
    update();
  });
  app.on('range', showRange);
  for (const signal of ['time', 'tick', 'loaded', 'cleared']) app.on(signal, update);
  app.on('speed', () => {
    $('speed').value = String(app.speed);
  });
}
