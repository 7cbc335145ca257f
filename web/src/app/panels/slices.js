// Long panel lists are built a slice at a time. A short list (a few files) is built at once, so
// a small scene's panels are complete when the signal that drew them returns (tests and people
// read them straight away); a long one is built in later tasks of a few milliseconds each, so a
// drop of thousands of files never holds the page while every row of every panel is made. Lists
// in open panels are filled before those in closed ones. Every row ends up in the document
// (reachable by keyboard, screen readers and find in page); rows off screen are not laid out (CSS
// content-visibility), so adding them costs little more than making them. A newer fill of the
// same list cancels the one under way.

/** A list of at most this many items is built at once. */
export const AT_ONCE = 60;
/** The time a later slice may build for, in ms: a task stays well under 50 ms with its layout. */
const SLICE_MS = 6;

const fills = new Map(); // list -> fill under way
const queue = []; // fills waiting for their next slice: open panels' first
let scheduled = false;

const nextTask = (fn) =>
  globalThis.scheduler?.postTask ? globalThis.scheduler.postTask(fn, { priority: 'user-visible' }) : setTimeout(fn, 0);

/** One slice: the first fill in the queue builds for SLICE_MS, then goes to the back of its rank. */
function runSlice() {
  scheduled = false;
  const end = performance.now() + SLICE_MS;
  while (queue.length && performance.now() < end) {
    const fill = queue.shift();
    if (fill.cancelled) {
      fill.resolve(false);
      continue;
    }
    fill.build(() => performance.now() < end);
    if (fill.complete()) fill.finish();
    else queue.splice(fill.shown() ? queue.findLastIndex((f) => f.shown()) + 1 : queue.length, 0, fill);
  }
  if (queue.length && !scheduled) {
    scheduled = true;
    nextTask(runSlice);
  }
}

/**
 * Empties `list`, then appends `make(item)` (a node, an array of nodes, or null) for each item: all
 * at once when there are at most `atOnce`, else in slices from the next task on. `done(list)` runs
 * after the last item (a closing line, a placeholder). The list says aria-busy while rows are
 * still coming. Resolves when the list is complete (false if a newer fill replaced this one).
 * `items` may be a function that lists them, with their `count` (about): a long list's items are
 * then listed in its first slice, not in the task that asked for the list.
 */
export function fillList(list, items, make, { atOnce = AT_ONCE, count, done } = {}) {
  fills.get(list)?.cancel();
  list.replaceChildren();
  let all = typeof items === 'function' ? null : items;
  let at = 0;
  const build = (more) => {
    all ??= items();
    const out = document.createDocumentFragment();
    while (at < all.length && more()) {
      const made = make(all[at++]);
      if (Array.isArray(made)) out.append(...made);
      else if (made) out.append(made);
    }
    list.append(out);
  };
  const long = (count ?? all?.length) > atOnce;
  // Only a long list's rows skip layout off screen (style.css): a short one reads as it always did
  // (innerText, copying), and has nothing to skip.
  list.classList.toggle('long-list', long);
  if (!long) {
    build(() => true);
    list.removeAttribute('aria-busy');
    done?.(list);
    return Promise.resolve(true);
  }
  list.setAttribute('aria-busy', 'true');
  const fill = {
    cancelled: false,
    build,
    complete: () => all !== null && at >= all.length,
    // In an open panel (or outside any): what people see is filled first.
    shown: () => list.closest('details')?.open !== false,
    cancel: () => (fill.cancelled = true),
    finish: () => {
      list.removeAttribute('aria-busy');
      fills.delete(list);
      done?.(list);
      fill.resolve(true);
    },
  };
  fill.promise = new Promise((resolve) => (fill.resolve = resolve));
  fills.set(list, fill);
  queue.splice(fill.shown() ? queue.findLastIndex((f) => f.shown()) + 1 : queue.length, 0, fill);
  if (!scheduled) {
    scheduled = true;
    nextTask(runSlice);
  }
  return fill.promise;
}

/** Resolves when every list under way is complete (for tests and host pages). */
export async function listsSettled() {
  while (fills.size) await Promise.all([...fills.values()].map((f) => f.promise));
}
