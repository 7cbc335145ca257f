// The element from the installed package, as a bundler user imports it: one viewer per family.
import 'rigscope/viewer';

const players = [...document.querySelectorAll('rigscope-viewer')];
const results = {};
for (const player of players) {
  const settle = (value) => {
    results[player.id] = value;
    if (Object.keys(results).length === players.length) window.result = results;
  };
  player.addEventListener('load', () =>
    settle({
      snapshot: player.snapshot(),
      clips: player.clips.map((c) => c.name),
      pixels: player.stage.countForegroundPixels().count,
    }),
  );
  player.addEventListener('error', (e) => settle({ error: e.detail.messages.map((m) => m.text) }));
}
