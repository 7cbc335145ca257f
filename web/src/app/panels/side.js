// The side panels that show the scene: the outliner, the clip list with search, info, files,
// morph sliders and the inspector (bones, materials, stats). Each redraws on the signals that
// change what it shows; long lists are built in slices (slices.js), and a clip choice, the time or
// a visibility change only moves the marks in the clip list and the outliner.
import { ClipList, renderFilesReport, renderInfo, renderMorphs } from '../panels.js';
import { Outliner } from '../outliner.js';
import { Inspector } from '../inspect.js';

export function sidePanels({ app, viewer, $, messages }) {
  const clips = new ClipList($('clip-list'), app);
  const refreshClips = () => clips.render($('clip-search').value);
  $('clip-search').addEventListener('input', refreshClips);

  const frameOn = (c) => viewer.frameAll(c === app.current?.character ? app.clipBounds([c]) : viewer.visibleBounds([c]));
  const outliner = new Outliner($('outliner'), app, { onFrame: frameOn });
  const refreshOutliner = () => outliner.render();

  const inspector = new Inspector(app, viewer, {
    tree: $('bone-tree'),
    detail: $('bone-detail'),
    materials: $('materials'),
    stats: $('stats'),
  });
  const refreshScene = () => {
    renderInfo($('info'), app);
    renderFilesReport($('files-report'), app);
    renderMorphs($('morphs'), app);
    inspector.refresh();
  };

  for (const signal of ['loaded', 'cleared', 'textures'])
    app.on(signal, () => {
      refreshClips();
      refreshOutliner();
      refreshScene();
    });
  // Choosing a clip changes only which clip and character are marked: the scene's panels (info,
  // files, morphs, bones, materials) stay, which matters for a drop of a thousand characters.
  const mark = () => {
    clips.mark();
    outliner.mark();
  };
  app.on('clip', mark);
  app.on('visibility', mark);
  app.on('range', refreshScene);
  app.on('time', () => clips.mark());
  app.on('cleared', () => messages.render());

  // The bone panel follows the pose every drawn frame; the stats twice a second while their panel
  // is open (counting a thousand characters' meshes is no work for a closed panel), and at once
  // when it opens.
  const statsPanel = $('stats').closest('details');
  statsPanel?.addEventListener('toggle', () => statsPanel.open && inspector.renderStats());
  let statsAge = 0;
  app.on('tick', (dt) => {
    inspector.update();
    if ((statsAge += dt) > 0.5 && statsPanel?.open !== false) {
      statsAge = 0;
      inspector.renderStats();
    }
  });
}
