// Recording the current clip, or a turntable (one turn around the scene: models without clips, such
// as Skate 3 arenas, and poses), to WebM, GIF, APNG or a PNG sprite sheet. Frame-exact: frame k is
// rendered once at its clip time (or angle), off screen, so a slow machine writes the same file as
// a fast one. Playback (clip, time, paused) and the camera are put back as they were.
import { encoderFor, sheetGrid } from './record-formats.js';
import { nextTask } from '../core/tasks.js';

/** The formats, in the order the dialog offers them. */
export const FORMATS = {
  webm: { label: 'WebM video', extension: 'webm', type: 'video/webm', transparent: false },
  gif: { label: 'Animated GIF', extension: 'gif', type: 'image/gif', transparent: true },
  apng: { label: 'Animated PNG', extension: 'png', type: 'image/apng', transparent: true },
  sheet: { label: 'PNG sprite sheet', extension: 'png', type: 'image/png', transparent: true },
};

/** Bounds on what one recording may ask for: a picture side, the frame rate and the frame count. */
export const LIMITS = { side: [16, 1920], rate: [1, 60], frames: 3000, sheetSide: 16384 };

/**
 * The clip times of the frames to record: one loop of a looping clip (its last frame is followed
 * by the first again, so it is not repeated), a play-once clip to its last frame, or the loop
 * range from its first to its last frame. `pace` is clip seconds per real second (the clip's own
 * speed times the playback speed), so a recording lasts as long as the clip plays on screen.
 */
export function recordingTimes(clip, span, rate, pace = 1) {
  const [from, to, wraps] = span ? [span[0], span[1], false] : [0, clip.loop ? clip.duration : clip.lastTime, clip.loop];
  // Frames in real seconds × rate (multiplied, not divided by a step: 0.7 / 0.2 rounds to 3, 0.7 × 5 to 4).
  const frames = ((to - from) * rate) / pace;
  const count = wraps ? Math.max(1, Math.round(frames)) : Math.round(frames) + 1;
  return Array.from({ length: count }, (_, k) => Math.min(from + (k * pace) / rate, wraps ? to - 1e-6 : to));
}

/** A turntable's turns (radians) of its frames: one whole turn that loops without a repeated frame. */
export function turntableTurns(seconds, rate) {
  const count = Math.max(1, Math.round(seconds * rate));
  return Array.from({ length: count }, (_, k) => (2 * Math.PI * k) / count);
}

/** Checks a request against LIMITS; returns the problem as a sentence, or null. */
export function checkRequest({ width, height, rate, format, subject, seconds = 4 }, frames) {
  const [lo, hi] = LIMITS.side;
  if (subject === 'turntable' && !(seconds > 0 && seconds <= 60)) return 'A turn must take more than 0 and at most 60 seconds';
  if (!(width >= lo && width <= hi && height >= lo && height <= hi)) return `The size must be ${lo} to ${hi} pixels a side`;
  if (!(rate >= LIMITS.rate[0] && rate <= LIMITS.rate[1] && Number.isInteger(width) && Number.isInteger(height)))
    return `The frame rate must be ${LIMITS.rate[0]} to ${LIMITS.rate[1]} frames a second`;
  if (frames > LIMITS.frames) return `${frames} frames is more than ${LIMITS.frames}: choose a lower frame rate or a loop range`;
  if (format === 'sheet') {
    const { columns, rows } = sheetGrid(frames);
    if (columns * width > LIMITS.sheetSide || rows * height > LIMITS.sheetSide)
      return `A sheet of ${columns} × ${rows} frames of ${width} × ${height} is wider than ${LIMITS.sheetSide} pixels: choose a smaller size`;
  }
  return null;
}

/**
 * The frames a request asks for: {times} of the current clip, or {turns} of a turntable
 * (request.subject 'turntable', or no clip to play), with the clip's name or 'turntable'.
 */
export function recordingPlan(app, request) {
  const cur = app.current;
  if (request.subject === 'turntable' || !cur) {
    const turns = turntableTurns(request.seconds ?? 4, request.rate);
    return { name: cur ? `${cur.clip.name} turntable` : 'turntable', turns, times: null, count: turns.length };
  }
  const times = recordingTimes(cur.clip, app.rangeTimes(), request.rate, (cur.clip.speed ?? 1) * app.speed);
  return { name: cur.clip.name, turns: null, times, count: times.length };
}

/**
 * Records what `request` asks ({subject: 'clip' | 'turntable', seconds, format, width, height,
 * rate, transparent}) through `viewer`. `onProgress(done, total)` after each frame; `signal`
 * (AbortSignal) cancels. Returns {bytes, frames, name, type}, or null when cancelled.
 */
export async function recordClip(app, viewer, request, { signal, onProgress = () => {} } = {}) {
  if (!viewer.characters.length) throw new Error('Nothing to record: load a model first');
  const plan = recordingPlan(app, request);
  const problem = checkRequest(request, plan.count);
  if (problem) throw new Error(problem);
  const format = FORMATS[request.format];
  const transparent = !!request.transparent && format.transparent;
  const encoder = await encoderFor(request.format, { ...request, transparent, frames: plan.count });
  const cur = app.current;
  const saved = cur && { action: cur.action, time: cur.action.time, paused: cur.action.paused };
  if (cur) {
    cur.action.paused = true;
    app.endFade();
  }
  viewer.holds++;
  try {
    for (let k = 0; k < plan.count; k++) {
      if (signal?.aborted) return null;
      if (plan.times) poseAt(app, viewer, plan.times[k], k === 0 ? 0 : plan.times[k] - plan.times[k - 1]);
      const turn = plan.turns?.[k] ?? 0;
      await encoder.add(viewer.renderPixels(request.width, request.height, { transparent, turn }), k);
      onProgress(k + 1, plan.count);
      // Let the page draw the progress bar and take clicks (Cancel) between frames.
      await nextTask();
    }
    if (signal?.aborted) return null;
    const bytes = await encoder.finish();
    return { bytes, frames: plan.count, name: `${fileStem(plan.name)}.${format.extension}`, type: format.type };
  } finally {
    encoder.close?.();
    viewer.holds--;
    if (saved) restore(app, saved);
    viewer.requestRender();
  }
}

/**
 * Poses the scene at clip time `t`: the current clip exactly, everything else (other characters,
 * actor props) moved on by the recording's own step, never by the wall clock.
 */
function poseAt(app, viewer, t, step) {
  const { character, action } = app.current;
  for (const c of viewer.characters) if (c !== character) c.advance(step);
  for (const p of character.props ?? []) p.advance(step);
  action.time = t;
  action.enabled = true;
  character.mixer.update(0);
}

/** Puts the clip back at its time and play state (the same clip: recording never changes it). */
function restore(app, { action, time, paused }) {
  if (app.current?.action !== action) return;
  app.setTime(time);
  action.paused = paused;
  app.requestRender();
  app.emit('time');
}

/** A file name from a clip name (text from a file): no path separators or control characters. */
function fileStem(name) {
  const stem = String(name)
    .replace(/[\\/:*?"<>|\u0000-\u001f\u007f]+/g, '_')
    .slice(0, 80);
  return stem.trim() || 'clip';
}
