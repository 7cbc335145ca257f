// The toolbar: Open, Export and Share are menu buttons (app/menu.js), beside the drop mode, Clear
// and Help, so the bar holds a few controls at any width. What needs a model (exports, saves, a
// recording) is shown disabled while nothing is loaded, and while its own work is under way.
import { MenuButton } from '../menu.js';

/** A disabled item stays in the menu's arrow order (aria-disabled), as WAI-ARIA's menu pattern has it. */
function showEnabled(control, enabled) {
  if (enabled) control.removeAttribute('aria-disabled');
  else control.setAttribute('aria-disabled', 'true');
}

/** Whether a toolbar control can be used now: it needs no model or one is loaded, and it is not busy. */
function refresh(control) {
  const empty = control.closest('.bar')?.hasAttribute('data-empty');
  showEnabled(control, !control.hasAttribute('data-busy') && !(empty && control.hasAttribute('data-needs-model')));
}

/** Marks a toolbar control busy (its work under way: a second press does nothing) or free again. */
export function setBusy(control, busy) {
  control.toggleAttribute('data-busy', busy);
  refresh(control);
}

export function toolbar({ app, $ }) {
  const menus = ['open-menu', 'export-menu', 'share-menu'].map((id) => new MenuButton($(id)));
  // The file pickers open from their menu items (a click there is the user's, as the picker needs).
  $('open-button').addEventListener('click', () => $('file-input').click());
  $('folder-button').addEventListener('click', () => $('folder-input').click());
  const bar = $('open-menu').closest('.bar');
  const update = () => {
    bar.toggleAttribute('data-empty', !app.characters.length);
    for (const control of bar.querySelectorAll('[data-needs-model]')) refresh(control);
  };
  for (const signal of ['loaded', 'cleared']) app.on(signal, update);
  update();
  return { menus };
}
