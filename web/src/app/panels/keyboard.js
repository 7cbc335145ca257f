// Keyboard shortcuts (the help dialog lists them). Space plays and pauses wherever the focus is;
// a focused button is not pressed again, and arrows on a focused slider stay with the slider.
export function keyboard({ app, viewer, $ }) {
  function selectNeighbourClip(delta) {
    const all = app.allClips;
    if (!all.length) return;
    const i = all.findIndex((c) => c.clip === app.current?.clip);
    const next = all[(i + delta + all.length) % all.length];
    app.select(next.character, next.clip);
  }
  const toggle = (id) => {
    const box = $(id);
    box.checked = !box.checked;
    box.dispatchEvent(new Event('change'));
  };
  const keys = {
    ' ': () => app.togglePlay(),
    ArrowLeft: () => app.step(-1),
    ArrowRight: () => app.step(1),
    ArrowUp: () => selectNeighbourClip(-1),
    ArrowDown: () => selectNeighbourClip(1),
    Home: () => app.current && app.setTime(0),
    End: () => app.current && app.setTime((app.current.clip.frameCount - 1) / app.current.clip.fps),
    s: () => toggle('show-skeleton'),
    w: () => toggle('show-wireframe'),
    f: () => app.frameView(),
    PageUp: () => app.stepCharacter(-1),
    PageDown: () => app.stepCharacter(1),
    l: () => toggle('loop'),
    '?': () => $('help-dialog').showModal(),
  };
  addEventListener('keydown', (e) => {
    const t = e.target;
    if (
      t instanceof HTMLTextAreaElement ||
      t instanceof HTMLSelectElement ||
      (t instanceof HTMLInputElement && !['range', 'checkbox'].includes(t.type))
    )
      return;
    if (e.ctrlKey || e.metaKey || e.altKey || document.querySelector('dialog[open]')) return;
    const free = t === document.body || t === viewer.renderer.domElement || t instanceof HTMLCanvasElement;
    const action = keys[e.key];
    if (!action || (!free && e.key.startsWith('Arrow') && t.type === 'range')) return;
    e.preventDefault();
    if (e.key.startsWith('Arrow') || e.key === 'Home' || e.key === 'End') app.pause();
    action();
  });
  // A focused button is pressed by Space on key up: that press belongs to play/pause.
  addEventListener('keyup', (e) => {
    if (e.key === ' ' && e.target instanceof HTMLButtonElement) e.preventDefault();
  });
  $('help-button').addEventListener('click', () => $('help-dialog').showModal());
}
