// The Display panel: skeleton, wireframe, grid, ground, attachment points, bone names, normals,
// bind pose, base colour only, lighting, background and the 0 A.D. player colour.
import { setBaseColourOnly } from '../../three/material-maps.js';

export function displayPanel({ app, viewer, $ }) {
  const toggles = {
    'show-skeleton': (on) => viewer.setSkeletonVisible(on),
    'show-wireframe': (on) => viewer.setWireframe(on),
    'show-grid': (on) => {
      viewer.grid.visible = on;
      viewer.requestRender();
    },
    'show-ground': (on) => {
      viewer.ground.visible = on;
      viewer.requestRender();
    },
    'show-attachments': (on) => viewer.setAttachmentsVisible(on),
    'show-bone-names': (on) => viewer.setBoneNamesVisible(on),
    'show-normals': (on) => viewer.setNormalsVisible(on),
    'bind-pose': (on) => viewer.setBindPose(on),
  };
  for (const [id, apply] of Object.entries(toggles)) $(id).addEventListener('change', (e) => apply(e.target.checked));

  // Full materials (normal, packed and emissive maps) or base colour only.
  const applyBaseColourOnly = () => {
    for (const c of app.characters)
      for (const x of c.tree()) for (const m of x.materials) setBaseColourOnly(m, $('base-colour-only').checked);
    viewer.requestRender();
  };
  $('base-colour-only').addEventListener('change', applyBaseColourOnly);
  $('lighting').addEventListener('change', (e) => viewer.setLighting(e.target.value));
  $('background').addEventListener('input', (e) => viewer.setBackground(e.target.value));

  // 0 A.D. player_trans materials: one colour for all of them, shown only when one is loaded.
  const playerColors = () => app.characters.flatMap((c) => c.materials.map((m) => m.userData.playerColor).filter(Boolean));
  const applyPlayerColor = () => {
    for (const u of playerColors()) u.value.set($('player-color').value);
    viewer.requestRender();
  };
  $('player-color').addEventListener('input', applyPlayerColor);
  const showPlayerColor = () => {
    const row = $('player-color-row');
    row.hidden = !playerColors().length;
    row.style.display = row.hidden ? 'none' : '';
    applyPlayerColor();
  };

  app.on('loaded', () => {
    applyBaseColourOnly();
    showPlayerColor();
  });
  app.on('textures', applyBaseColourOnly);
  app.on('cleared', showPlayerColor);
  // New characters get the overlays that are switched on.
  const reapply = () => {
    if ($('show-bone-names').checked) viewer.setBoneNamesVisible(true);
    if ($('show-normals').checked) viewer.setNormalsVisible(true);
  };
  for (const signal of ['loaded', 'clip', 'textures', 'cleared']) app.on(signal, reapply);
}
