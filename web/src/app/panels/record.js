// *Record…*: the current clip (one loop, or the loop range) or a turntable to WebM, GIF, APNG or a
// sprite sheet, at a chosen size and frame rate, with progress and Cancel (app/record.js records).
import { formatBytes } from '../../core/input.js';
import { el } from '../dom.js';
import { download } from './export.js';

/** A recording's default width: the view's, up to this. */
const DEFAULT_WIDTH = 640;

/** What the dialog asks for, as app/record.js takes it. */
function readRequest(field) {
  return {
    subject: field('subject').value,
    seconds: Number(field('seconds').value),
    format: field('format').value,
    width: Number(field('width').value),
    height: Number(field('height').value),
    rate: Number(field('rate').value),
    transparent: field('transparent').checked,
  };
}

/** What will be recorded, in words: the clip and its frames, or the turn, and the frames written. */
async function describe(app, field) {
  const { recordingPlan } = await import('../record.js');
  const r = readRequest(field);
  field('seconds-row').hidden = r.subject !== 'turntable';
  field('transparent-row').hidden = r.format === 'webm';
  if (!(r.rate > 0 && r.seconds > 0)) return;
  const plan = recordingPlan(app, r);
  const cur = app.current;
  let what = `One turn in ${r.seconds} s`;
  if (plan.times) {
    const part = app.rangeTimes() ? 'the loop range' : cur.clip.loop ? 'one loop' : 'once through';
    what = `${cur.clip.name}: ${cur.clip.frameCount} frames at ${+cur.clip.fps.toFixed(2)} fps, ${part}`;
  }
  field('what').textContent = `${what} → ${plan.count} frames`;
}

/** The dialog's starting values: the clip if there is one, the view's shape at a post's size. */
function fillDefaults(app, viewer, field) {
  // Without a clip (a Skate 3 arena, a pose) the turntable is what there is to record.
  field('subject').value = app.current ? 'clip' : 'turntable';
  field('subject').options[0].disabled = !app.current;
  // The view's shape at a size that suits a forum post; even sides suit every video encoder.
  const canvas = viewer.renderer.domElement;
  const width = Math.min(DEFAULT_WIDTH, canvas.width);
  const even = (v) => Math.max(16, 2 * Math.round(v / 2));
  field('width').value = String(even(width));
  field('height').value = String(even((width * canvas.height) / canvas.width));
  field('rate').value = String(Math.min(30, Math.max(1, Math.round(app.current?.clip.fps ?? 30))));
  field('result').textContent = '';
}

/** While recording: the settings locked, Cancel and the progress bar shown. */
function setBusy(field, busy) {
  for (const name of ['subject', 'seconds', 'format', 'width', 'height', 'rate', 'transparent', 'start']) field(name).disabled = busy;
  field('cancel').hidden = !busy;
  field('progress').hidden = !busy;
  if (busy) field('progress').value = 0;
}

/** One recording under `signal`, downloaded when done; the result line says how it went. */
async function record(app, viewer, field, signal) {
  try {
    const { recordClip } = await import('../record.js');
    const result = await recordClip(app, viewer, readRequest(field), {
      signal,
      onProgress: (done, total) => {
        field('progress').max = total;
        field('progress').value = done;
        field('result').textContent = `Recording frame ${done} of ${total}…`;
      },
    });
    if (!result) field('result').textContent = 'Recording cancelled.';
    else {
      download(new Blob([result.bytes], { type: result.type }), result.name);
      field('result').textContent = `Saved ${result.name}: ${result.frames} frames, ${formatBytes(result.bytes.byteLength)}.`;
    }
  } catch (err) {
    field('result').textContent = `Recording failed: ${err.message}`;
  }
}

export function recordPanel({ app, viewer, $, messages }) {
  const dialog = $('record-dialog');
  const field = (name) => $(`record-${name}`);
  let recording = null; // the AbortController of the recording under way

  import('../record.js').then(({ FORMATS }) => {
    field('format').replaceChildren(...Object.entries(FORMATS).map(([value, f]) => el('option', { value }, f.label)));
  });
  const describeIt = () => describe(app, field);

  $('record-button').addEventListener('click', () => {
    if (!viewer.characters.length) return messages.add('Nothing to record: load a model first');
    fillDefaults(app, viewer, field);
    describeIt();
    dialog.showModal();
  });
  for (const name of ['rate', 'seconds']) field(name).addEventListener('input', describeIt);
  for (const name of ['subject', 'format']) field(name).addEventListener('change', describeIt);
  field('cancel').addEventListener('click', () => recording?.abort());
  // Closing the dialog (Escape, Close) while recording cancels the recording.
  dialog.addEventListener('close', () => recording?.abort());

  field('start').addEventListener('click', async () => {
    if (recording || !field('form').reportValidity()) return;
    recording = new AbortController();
    setBusy(field, true);
    try {
      await record(app, viewer, field, recording.signal);
    } finally {
      recording = null;
      setBusy(field, false);
    }
  });
}
