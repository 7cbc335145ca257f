// When a drop is drawn while it decodes (core/early-drawing.js, shared by the viewer page and the
// element): at its first model, then each time the models decoded have doubled, one drawing at a
// time, the latest result winning over those asked for while a drawing ran.
import { describe, expect, it } from 'vitest';
import { earlyDrawing } from '../../web/src/core/early-drawing.js';

const mesh = { meshes: [{}] };
const clipOnly = { meshes: [] };
const result = (n) => ({ models: Array.from({ length: n }, (_, i) => i) });

describe('earlyDrawing', () => {
  it('draws at the first model and at each doubling, never for a decode without meshes', async () => {
    const drawn = [];
    const early = earlyDrawing(async (partial) => drawn.push(partial.models.length));
    expect(early.decoded(clipOnly, result(0))).toBeUndefined();
    for (let n = 1; n <= 9; n++) await early.decoded(mesh, result(n));
    await early.settled();
    expect(drawn).toEqual([1, 2, 4, 8]);
  });

  it('runs one drawing at a time; what is asked for meanwhile is drawn next, the latest only', async () => {
    const drawn = [];
    let open;
    const gate = new Promise((resolve) => (open = resolve));
    let running = 0;
    let most = 0;
    const early = earlyDrawing(async (partial) => {
      running++;
      most = Math.max(most, running);
      if (!drawn.length) await gate;
      drawn.push(partial.models.length);
      running--;
    });
    const first = early.decoded(mesh, result(1));
    // While the first drawing runs: 2 and then 3 models decoded; 3 is the one drawn next.
    const second = early.decoded(mesh, result(2));
    early.decoded(mesh, result(3));
    expect(second).toBe(first);
    open();
    await first;
    await early.settled();
    expect(drawn).toEqual([1, 3]);
    expect(most).toBe(1);
  });

  it('a drawing that fails is only early: the next one still runs', async () => {
    const drawn = [];
    const early = earlyDrawing(async (partial) => {
      if (partial.models.length === 1) throw new Error('only early');
      drawn.push(partial.models.length);
    });
    await early.decoded(mesh, result(1));
    await early.decoded(mesh, result(2));
    await early.settled();
    expect(drawn).toEqual([2]);
  });

  it('once the drop is decoded (settled), a drawing asked for and not begun is dropped: the last assembly draws it all', async () => {
    const drawn = [];
    let open;
    const gate = new Promise((resolve) => (open = resolve));
    const early = earlyDrawing(async (partial) => {
      if (!drawn.length) await gate;
      drawn.push(partial.models.length);
    });
    early.decoded(mesh, result(1));
    early.decoded(mesh, result(2));
    const settled = early.settled();
    open();
    await settled;
    expect(drawn).toEqual([1]);
  });
});
