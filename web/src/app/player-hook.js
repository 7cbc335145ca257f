// The test hook of the pages that are one <rigscope-viewer> (the embed page, the standalone page),
// under the same names as the viewer page's `window.__rigscope`.

/** Sets `window.__rigscope` for `player`; returns the function that marks the page ready. */
export function exposePlayer(player) {
  window.__rigscope = {
    app: player.app,
    viewer: player.stage,
    element: player,
    ready: false,
    snapshot: () => player.snapshot(),
    pixels: () => player.stage.countForegroundPixels(),
  };
  return () => {
    window.__rigscope.ready = true;
  };
}
