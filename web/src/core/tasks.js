// Long work on the page's main thread, cut into tasks: between them the page draws and answers
// input. The same code runs in Node (the CLI), where a task costs about as little.

/** Milliseconds of work in one task: a frame at 60 Hz, less the drawing's share. */
export const SLICE_MS = 12;

/** A new task: the event loop runs input, drawing and what else is queued before it. */
export const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

const now = () => globalThis.performance?.now() ?? Date.now();

/**
 * A pause to await between the small steps of a long job: it returns at once until SLICE_MS have
 * passed since its last break, then calls `onBreak` (say, to show progress) and ends the task.
 */
export function slicer(onBreak) {
  let since = now();
  const pause = async () => {
    onBreak?.();
    await nextTask();
    since = now();
  };
  // No break due: a promise already settled, as the async function's was, without making one (a
  // loader's one file passes a dozen of these).
  return () => (now() - since <= SLICE_MS ? SETTLED : pause());
}

const SETTLED = Promise.resolve();
