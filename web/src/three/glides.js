// Gliding into place, for the page's viewer and <rigscope-viewer> alike. A folder's characters
// arrive one after another and the layout makes room for each; what is already drawn moves to its
// new place, and the camera to its new framing, over a moment instead of jumping. With reduced
// motion asked for, everything moves at once. A glide takes no longer than its starting place was
// on screen: a folder's first look, replaced a blink later, is left in a blink, not over GLIDE_MS.

/** How long a glide takes at most. */
const GLIDE_MS = 400;

/** Whether the reader asked for reduced motion (no glides, no autoplay). */
export const reducedMotion = () => globalThis.matchMedia?.('(prefers-reduced-motion: reduce)').matches ?? false;

export class Glides {
  constructor() {
    /** @type {Map<import('three').Vector3, { from: import('three').Vector3, to: import('three').Vector3, start: number }>} */
    this.moves = new Map();
    /** When each vector was put where it stands (drawn there, framed there, or arrived there). */
    this.placedAt = new WeakMap();
  }

  /** Notes that `vector` was just put where it is, at once. */
  placed(vector, now = performance.now()) {
    this.placedAt.set(vector, now);
  }

  /** Puts `vector` at `to` at once, ending any glide of it. */
  put(vector, to, now = performance.now()) {
    this.moves.delete(vector);
    vector.copy(to);
    this.placed(vector, now);
  }

  /**
   * Moves `vector` to `to` from where it is: over GLIDE_MS, or over as long as it has stood where it
   * is if that was less (a vector never noted as placed has stood there long), or at once with
   * reduced motion.
   */
  to(vector, to, now = performance.now()) {
    const stood = this.moves.has(vector) ? GLIDE_MS : now - (this.placedAt.get(vector) ?? -Infinity);
    const ms = Math.min(GLIDE_MS, stood);
    if (reducedMotion() || vector.equals(to) || !(ms > 0)) return this.put(vector, to, now);
    this.moves.set(vector, { from: vector.clone(), to: to.clone(), start: now, ms });
  }

  /** Where `vector` is going (its glide's end), or where it is. */
  target(vector) {
    return this.moves.get(vector)?.to ?? vector;
  }

  get active() {
    return this.moves.size > 0;
  }

  /** Advances every glide to `now` (eased in and out); true while one still moves. */
  step(now = performance.now()) {
    for (const [vector, m] of this.moves) {
      const k = Math.min(1, Math.max(0, (now - m.start) / m.ms));
      vector.lerpVectors(m.from, m.to, k * k * (3 - 2 * k));
      if (k >= 1) {
        this.moves.delete(vector);
        this.placed(vector, now);
      }
    }
    return this.active;
  }

  /** Runs `fn` with every gliding vector where it is going, then puts them back (bounds of a settled layout). */
  atTargets(fn) {
    const now = [...this.moves.keys()].map((v) => [v, v.clone()]);
    for (const [vector, m] of this.moves) vector.copy(m.to);
    try {
      return fn();
    } finally {
      for (const [vector, was] of now) vector.copy(was);
    }
  }

  /** Ends every glide where it was going (a new framing, a clear). */
  finish(now = performance.now()) {
    for (const [vector, m] of this.moves) {
      vector.copy(m.to);
      this.placed(vector, now);
    }
    this.moves.clear();
  }

  /** Forgets the glides of these vectors (a character removed). */
  drop(vectors) {
    for (const v of vectors) this.moves.delete(v);
  }
}
