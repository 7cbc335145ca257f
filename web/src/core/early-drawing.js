// When to draw a drop while it decodes, for the viewer page (App) and <rigscope-viewer> (Player):
// the first model as soon as it is decoded, then again each time the models decoded have doubled.
// A folder shows its first character at about the cost of that file, and assembling again stays
// O(n log n) over the drop. One drawing runs at a time; what decoded meanwhile is drawn next, the
// latest result winning over any asked for before it.

/**
 * @param {(partial: { models: object[] }) => Promise<void>} draw draws the result so far; one
 *   that fails is only early (the last assembly reports what went wrong)
 * @returns {{ decoded: (decoded: { meshes: object[] }, partial: { models: object[] }) => Promise<void> | undefined,
 *   settled: () => Promise<void> }} decoded: decodeFiles()'s onDecoded; the promise it returns resolves once this
 *   drawing (and any asked for meanwhile) is done, so a drop's first look holds its other reads until then.
 *   settled: called once the drop is decoded; drops the drawing asked for and not begun, and
 *   resolves when no drawing runs
 */
export function earlyDrawing(draw) {
  let drawn = 0; // models in the last drawing begun
  let wanted = null; // the result to draw next
  let running = null;
  const decoded = (item, partial) => {
    if (!item.meshes.length || partial.models.length < Math.max(1, drawn * 2)) return undefined;
    wanted = partial;
    running ??= (async () => {
      while (wanted) {
        const next = wanted;
        wanted = null;
        drawn = next.models.length;
        await draw(next).catch(() => {});
      }
      running = null;
    })();
    return running;
  };
  // Asked once the drop is decoded: a drawing still waiting would only draw part of what the
  // last assembly draws next, so it is dropped.
  const settled = () => {
    wanted = null;
    return running ?? Promise.resolve();
  };
  return { decoded, settled };
}
