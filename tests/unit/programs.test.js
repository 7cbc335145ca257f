// Program links without holding the page where there is no parallel linking (software GL): a
// program's first use waits for everything the GPU process was sent before it, so it comes after a
// fence that the GPU process has run and that no frame followed (a frame drawn meanwhile queues its
// draws ahead of the use: 40-280 ms a use on SwiftShader during a sample folder's drop). A batch's
// programs are used one after another in one task after one such wait, not a wait each (issue #41:
// up to four fences a program while a drop's first look played). The use
// asks the GPU process one question, whether the program linked; three's check, which reads its
// logs too, runs only for a program that did not.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { linkPrograms } from '../../web/src/three/programs.js';

/**
 * A renderer without KHR_parallel_shader_compile whose GPU process runs a fence on its second poll,
 * and whose page draws a frame at each poll listed in `framesAtPolls` (counted over all fences).
 * `events` lists what happened in order: fence n, frame, asked <program> (its link status), use
 * <program> (three's first use; "checked" when three's own check, its logs, ran).
 */
function softwareRenderer(framesAtPolls = []) {
  const events = [];
  let fences = 0,
    polls = 0;
  const renderer = {
    debug: { checkShaderErrors: true },
    info: { render: { frame: 0 } },
    extensions: { has: () => false },
    getContext: () => ({
      SYNC_GPU_COMMANDS_COMPLETE: 1,
      TIMEOUT_EXPIRED: 2,
      CONDITION_SATISFIED: 3,
      LINK_STATUS: 4,
      getProgramParameter(program, what) {
        if (what === 4) events.push(`asked ${program.name}`);
        return program.linked;
      },
      fenceSync() {
        events.push(`fence ${++fences}`);
        return { polls: 0 };
      },
      flush() {},
      clientWaitSync(fence) {
        // A view held (linkPrograms' hold) draws no frame.
        if (framesAtPolls.includes(++polls) && !renderer.held) {
          renderer.info.render.frame++;
          events.push('frame');
        }
        return ++fence.polls >= 2 ? 3 : 2;
      },
      deleteSync() {},
    }),
  };
  const program = (name, linked = true) => ({
    program: { name, linked },
    getUniforms: () => events.push(`use ${name}${renderer.debug.checkShaderErrors ? ' checked' : ''}`),
  });
  return { renderer, events, program };
}

/** For each use, whether a frame came between the last fence sent before it and the use. */
function framesBeforeUses(events) {
  const out = [];
  let frameSinceFence = false;
  for (const e of events) {
    if (e.startsWith('fence')) frameSinceFence = false;
    else if (e === 'frame') frameSinceFence = true;
    else if (e.startsWith('use')) out.push([e, frameSinceFence]);
  }
  return out;
}

describe('linkPrograms without parallel linking', () => {
  afterEach(() => vi.restoreAllMocks());

  it('uses each program after a fence that no frame followed', async () => {
    // A frame is drawn while the first fence is waited for.
    const { renderer, events, program } = softwareRenderer([1]);
    await linkPrograms(renderer, [program('a'), program('b')]);
    expect(framesBeforeUses(events)).toEqual([
      ['use a', false],
      ['use b', false],
    ]);
    expect(events.filter((e) => e.startsWith('fence')).length).toBe(2);
  });

  it('waits once for a batch, and uses its programs in one task (no frame can come between them)', async () => {
    // A frame at every other poll: each wait takes fences until one passes with no frame.
    const { renderer, events, program } = softwareRenderer([1, 5, 9, 13]);
    await linkPrograms(renderer, [program('a'), program('b'), program('c')]);
    const uses = events.slice(events.findIndex((e) => e.startsWith('use')));
    expect(uses).toEqual(['use a', 'asked b', 'use b', 'asked c', 'use c']);
    expect(framesBeforeUses(events).every(([, frame]) => !frame)).toBe(true);
  });

  it("waits again, after the task's budget of uses, for the rest", async () => {
    // Each use takes 10 ms: two fit in a task of 12 ms, the third waits for a fence of its own.
    let clock = 0;
    vi.spyOn(performance, 'now').mockImplementation(() => clock);
    const { renderer, events, program } = softwareRenderer([3]);
    const slow = (name) => {
      const p = program(name);
      const use = p.getUniforms;
      p.getUniforms = () => {
        clock += 10;
        use();
      };
      return p;
    };
    await linkPrograms(renderer, [slow('a'), slow('b'), slow('c')]);
    expect(events).toEqual(['fence 1', 'asked a', 'use a', 'asked b', 'use b', 'fence 2', 'frame', 'fence 3', 'asked c', 'use c']);
    expect(framesBeforeUses(events).every(([, frame]) => !frame)).toBe(true);
  });

  it('stops sending fences when frames keep coming, and uses the program all the same', async () => {
    const { renderer, events, program } = softwareRenderer(Array.from({ length: 50 }, (_, i) => i + 1));
    await linkPrograms(renderer, [program('a')]);
    expect(events.filter((e) => e.startsWith('fence')).length).toBe(4);
    expect(events.at(-1)).toBe('use a');
  });

  it('holds the drawing for a fence after one that a frame followed, and then uses the programs', async () => {
    // A playing view: a frame at every poll, unless held.
    const { renderer, events, program } = softwareRenderer(Array.from({ length: 50 }, (_, i) => i + 1));
    const hold = () => {
      renderer.held = true;
      events.push('hold');
      return () => {
        renderer.held = false;
        events.push('release');
      };
    };
    await linkPrograms(renderer, [program('a'), program('b')], { hold });
    expect(events).toEqual(['fence 1', 'frame', 'frame', 'hold', 'fence 2', 'release', 'asked a', 'use a', 'asked b', 'use b']);
    expect(framesBeforeUses(events).every(([, frame]) => !frame)).toBe(true);
  });

  it('sends one fence for a batch when nothing is drawn meanwhile', async () => {
    const { renderer, events, program } = softwareRenderer();
    await linkPrograms(renderer, [program('a'), program('b')]);
    expect(events).toEqual(['fence 1', 'asked a', 'use a', 'asked b', 'use b']);
  });

  it("asks whether each program linked, and lets three's check read the logs of one that did not", async () => {
    const { renderer, events, program } = softwareRenderer();
    await linkPrograms(renderer, [program('a'), program('broken', false), program('c')]);
    expect(events.filter((e) => !e.startsWith('fence'))).toEqual([
      'asked a',
      'use a',
      'asked broken',
      'use broken checked',
      'asked c',
      'use c',
    ]);
    expect(renderer.debug.checkShaderErrors).toBe(true);
  });
});
