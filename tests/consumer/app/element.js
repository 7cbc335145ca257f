// The element from the installed package, as a bundler user imports it.
import 'rigscope/viewer';

const player = document.getElementById('player');
player.addEventListener('load', () => {
  window.result = { snapshot: player.snapshot(), clips: player.clips.map((c) => c.name), pixels: player.stage.countForegroundPixels().count };
});
player.addEventListener('error', (e) => { window.result = { error: e.detail.messages.map((m) => m.text) }; });
