// Shader programs linked without holding the page. WebGL links a program in the GPU process; the
// first use of it (three's getUniforms) waits for that link. Where the browser links in parallel
// (KHR_parallel_shader_compile) three can ask whether a program is ready. Elsewhere (software GL)
// a fence tells when the GPU process has run every command sent before it, links included: asked
// after that, a program is used at once. There the link itself is short (Chromium 156 on
// SwiftShader: 5-15 ms), but the GPU process runs one command at a time and draws each frame in
// full before the next command (25-60 ms a frame for a folder of 25 characters at 960x640), so a
// first use asked for too early waited for every frame queued ahead of it. SwiftShader also
// compiles its own code for a program at the program's first draw (20-40 ms more than later draws).

import { nextTask, SLICE_MS } from '../core/tasks.js';

/**
 * Longest wait for the GPU process, in ms: past it, the first use waits for the rest. Linking a
 * large drop's programs took it 0.2-2.5 s, more while the machine was busy; the page is free
 * meanwhile, so the wait is long (a lost context ends it at once: its fence reports a failure).
 */
const CAUGHT_UP_MS = 20000;

/**
 * Resolves once the GPU process has run every command sent so far (or after `maxMs`), between
 * tasks: the page draws and answers input meanwhile.
 * @param {import('three').WebGLRenderer} renderer
 */
export async function gpuCaughtUp(renderer, maxMs = CAUGHT_UP_MS) {
  const gl = /** @type {WebGL2RenderingContext} */ (renderer.getContext());
  if (!gl.fenceSync) return;
  const fence = gl.fenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0);
  gl.flush();
  const start = performance.now();
  // A fence's status changes only between tasks (WebGL): polled with a zero timeout.
  while (gl.clientWaitSync(fence, 0, 0) === gl.TIMEOUT_EXPIRED && performance.now() - start < maxMs)
    await new Promise((resolve) => setTimeout(resolve, 5));
  gl.deleteSync(fence);
}

/** Fences tried for one that no frame followed before a program's first use waits for the rest. */
const QUIET_TRIES = 4;

/**
 * Resolves once the GPU process has run every command sent so far and no frame has been drawn
 * since the last fence sent (or after QUIET_TRIES fences). The first use of a program waits for
 * everything sent before it: a frame drawn while the page waited for a fence (the playing first
 * look of a drop) queued its draws there, 40-280 ms of software drawing that the use then held the page for.
 * With `hold` (a function that stops the view drawing and returns what starts it again), a fence
 * that a frame followed is followed by one with drawing held: a playing look drew a frame during
 * every fence, so each wait took all QUIET_TRIES fences (issue #41); held, it pauses for one.
 * @param {import('three').WebGLRenderer} renderer
 * @param {(() => () => void) | null} [hold]
 */
async function gpuQuiet(renderer, hold = null) {
  for (let i = 0; i < QUIET_TRIES; i++) {
    const frame = renderer.info.render.frame;
    const release = i > 0 ? hold?.() : null;
    try {
      await gpuCaughtUp(renderer);
    } finally {
      release?.();
    }
    if (renderer.info.render.frame === frame) return;
  }
}

/**
 * First uses three's programs (from renderer.compile: their links already sent) once they are
 * linked and no frame is queued ahead of them: after one wait for the whole batch, as many as fit
 * in a task's budget, one after another in that task (a frame drawn between two uses queues its
 * draws ahead of the second). Waiting afresh for each program, while a drop's first look played,
 * took up to QUIET_TRIES fences a program: 2 s for the vertex3d folder's last three programs on a
 * busy machine (issue #41).
 * @param {import('three').WebGLRenderer} renderer
 * @param {object[]} programs three's WebGLProgram objects
 * @param {{ hold?: (() => () => void) | null }} [options] `hold` stops the view drawing for a fence (gpuQuiet)
 */
export async function linkPrograms(renderer, programs, { hold = null } = {}) {
  const parallel = renderer.extensions.has('KHR_parallel_shader_compile');
  let next = 0;
  while (next < programs.length) {
    if (parallel) while (!programs.every((p) => p.isReady())) await new Promise((resolve) => setTimeout(resolve, 10));
    else await gpuQuiet(renderer, hold);
    const start = performance.now();
    // The link is done and nothing waits ahead: each use finds its uniforms at once.
    do firstUse(renderer, programs[next++]);
    while (next < programs.length && performance.now() - start < SLICE_MS);
    await nextTask();
  }
}

/**
 * A program's first use (three's getUniforms) asking the GPU process one question, whether it
 * linked, instead of four: three's own check (renderer.debug.checkShaderErrors) reads the
 * program's and both shaders' logs too, and each read waits for whatever the GPU process has
 * queued (software GL that finished a link behind its fence made that one task of 59 ms, 44 ms of
 * it the logs). A program that did not link gets three's check and its report.
 * @param {import('three').WebGLRenderer} renderer
 * @param {any} program three's WebGLProgram
 */
function firstUse(renderer, program) {
  const gl = renderer.getContext();
  const checks = renderer.debug.checkShaderErrors;
  renderer.debug.checkShaderErrors = checks && gl.getProgramParameter(program.program, gl.LINK_STATUS) === false;
  try {
    program.getUniforms();
  } finally {
    renderer.debug.checkShaderErrors = checks;
  }
}
