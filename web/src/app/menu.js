// A menu button as WAI-ARIA's pattern has it (https://www.w3.org/WAI/ARIA/apg/patterns/menu-button/):
// the button (aria-haspopup="menu", aria-expanded, aria-controls) opens its role=menu list of
// role=menuitem / menuitemcheckbox items, which the arrows, Home and End move through, a letter
// jumps to, Enter and Space choose and Escape leaves, focus going back to the button. A click
// outside or focus leaving closes it. The items keep their own ids and click handlers: choosing
// one clicks it. Keys the menu uses stop with it: the page's shortcuts (keyboard.js) never see them.

/** Items that can take focus now: shown, focusable (aria-disabled ones too, as the pattern says). */
const itemsOf = (menu) => [...menu.querySelectorAll('[role=menuitem], [role=menuitemcheckbox]')].filter((i) => !i.hidden);

const isDisabled = (e) => e.getAttribute('aria-disabled') === 'true' || !!e.closest('[aria-disabled=true]');
const isCheck = (item) => item.getAttribute('role') === 'menuitemcheckbox';

/** The item a click in the menu lands on: a check box's label stands for its box. */
const itemAt = (target, menu) => {
  const hit = target.closest?.('[role=menuitem], [role=menuitemcheckbox], label');
  const item = hit?.tagName === 'LABEL' ? hit.control : hit;
  return item && menu.contains(item) ? item : null;
};

export class MenuButton {
  /** `button` controls the element its aria-controls names. */
  constructor(button) {
    this.button = button;
    this.menu = document.getElementById(button.getAttribute('aria-controls'));
    this.button.setAttribute('aria-expanded', 'false');
    this.menu.hidden = true;
    for (const item of itemsOf(this.menu)) item.tabIndex = -1;
    button.addEventListener('click', () => (this.isOpen ? this.close() : this.open(0)));
    button.addEventListener('keydown', (e) => this._onButtonKey(e));
    this.menu.addEventListener('keydown', (e) => this._onMenuKey(e));
    // Capture: a disabled item's own handlers never run, and the menu is closed (focus on the
    // button) before an item's handler opens a dialog, which then gives focus back to the button.
    this.menu.addEventListener('click', (e) => this._onItemClick(e), true);
    // A press on the menu's padding or a separator keeps the focus where it is.
    this.menu.addEventListener('mousedown', (e) => itemAt(e.target, this.menu) || e.preventDefault());
    document.addEventListener('pointerdown', (e) => this.isOpen && !this._holds(e.target) && this.close(false), true);
    this.button.parentElement.addEventListener('focusout', (e) => this.isOpen && !this._holds(e.relatedTarget) && this.close(false));
  }

  get isOpen() {
    return !this.menu.hidden;
  }

  _holds(node) {
    return !!node && (this.button.contains(node) || this.menu.contains(node));
  }

  /** Opens the menu (unless the button is disabled) with the focus on item `index` (-1: the last). */
  open(index) {
    if (isDisabled(this.button)) return;
    this.menu.hidden = false;
    this.button.setAttribute('aria-expanded', 'true');
    this._keepOnScreen();
    const items = itemsOf(this.menu);
    items.at(index)?.focus();
  }

  /** Closes the menu; the focus goes back to the button unless `refocus` is false (a click elsewhere). */
  close(refocus = true) {
    this.menu.hidden = true;
    this.button.setAttribute('aria-expanded', 'false');
    if (refocus) this.button.focus();
  }

  /** A menu wider than the room right of its button opens leftwards: never past the window's edge. */
  _keepOnScreen() {
    this.menu.style.left = '';
    const room = document.documentElement.clientWidth - 4;
    const box = this.menu.getBoundingClientRect();
    if (box.right > room) this.menu.style.left = `${Math.max(4 - box.left, room - box.right)}px`;
  }

  _onButtonKey(e) {
    const at = { Enter: 0, ' ': 0, ArrowDown: 0, ArrowUp: -1 }[e.key];
    if (at === undefined) return;
    e.preventDefault();
    e.stopPropagation();
    this.open(at);
  }

  _onMenuKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey || e.key === 'Tab') return;
    const items = itemsOf(this.menu);
    const here = items.indexOf(document.activeElement);
    const moves = { ArrowDown: here + 1, ArrowUp: here - 1 + items.length, Home: 0, End: items.length - 1 };
    e.stopPropagation();
    if (e.key in moves) items[moves[e.key] % items.length]?.focus();
    else if (e.key === 'Escape') this.close();
    else if (e.key === 'Enter' || e.key === ' ') this._choose(items[here], e.key);
    else if (e.key.length === 1) this._typeahead(items, here, e.key.toLowerCase());
    else if (!e.key.startsWith('Arrow')) return; // other keys do what they do; Left and Right stop here
    e.preventDefault();
  }

  /** Enter or Space on an item: a check box toggles (Space keeps the menu open), an item is clicked. */
  _choose(item, key) {
    if (!item || isDisabled(item)) return;
    if (isCheck(item)) {
      item.click();
      if (key === 'Enter') this.close();
      return;
    }
    item.click(); // the capture listener closes the menu first
  }

  /** The next item whose words start with `letter`, from the one after the focus round. */
  _typeahead(items, here, letter) {
    const words = (i) => (i.closest('label') ?? i).textContent.trim().toLowerCase();
    for (let step = 1; step <= items.length; step++) {
      const item = items[(here + step) % items.length];
      if (words(item).startsWith(letter)) return item.focus();
    }
  }

  _onItemClick(e) {
    const item = itemAt(e.target, this.menu);
    if (!item) return;
    if (isDisabled(item)) {
      e.preventDefault();
      e.stopPropagation();
      return;
    }
    if (isCheck(item)) return;
    // Chosen from the keyboard (no click count), the focus goes back to the button, as the pattern
    // says. Chosen with the mouse it goes nowhere: Space then plays or pauses, as it does after a
    // click anywhere on the page, and does not open the menu again.
    const fromKeyboard = e.detail === 0;
    this.close(fromKeyboard);
    if (!fromKeyboard && this.menu.contains(document.activeElement)) document.activeElement.blur();
  }
}
