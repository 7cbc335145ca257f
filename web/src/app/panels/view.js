// The View panel: framing over the whole clip, preset directions, orthographic camera, and
// quarter turns of the scene about X, Y and Z (kept in links as up=).
export function viewPanel({ app, viewer, $ }) {
  $('view-frame').addEventListener('click', () => app.frameView());
  $('view-previous').addEventListener('click', () => app.stepCharacter(-1));
  $('view-next').addEventListener('click', () => app.stepCharacter(1));
  for (const b of document.querySelectorAll('[data-view]')) b.addEventListener('click', () => app.frameView(b.dataset.view));
  $('orthographic').addEventListener('change', (e) => viewer.setOrthographic(e.target.checked));
  for (const b of document.querySelectorAll('[data-turn]')) {
    b.addEventListener('click', () => {
      const [axis, deg] = b.dataset.turn.split(',');
      const up = [...(viewer.up ?? [0, 0, 0])];
      up['xyz'.indexOf(axis)] = ((up['xyz'.indexOf(axis)] + Number(deg) + 540) % 360) - 180;
      viewer.setUp(up);
      app.frameView();
    });
  }
  $('turn-reset').addEventListener('click', () => {
    viewer.setUp([0, 0, 0]);
    app.frameView();
  });
}
