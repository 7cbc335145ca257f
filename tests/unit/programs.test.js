// Program links without holding the page where there is no parallel linking (software GL): a
// program's first use waits for everything the GPU process was sent before it, so it comes after a
// fence that the GPU process has run and that no frame followed (a frame drawn meanwhile queues its
// draws ahead of the use: 40-280 ms a use on SwiftShader during a sample folder's drop). The use
// asks the GPU process one question, whether the program linked; three's check, which reads its
// logs too, runs only for a program that did not.
import { describe, expect, it } from 'vitest';
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
        if (framesAtPolls.includes(++polls)) {
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
  it('uses each program after a fence that no frame followed', async () => {
    // A frame is drawn while the first fence is waited for, and another between the two uses.
    const { renderer, events, program } = softwareRenderer([1, 5]);
    await linkPrograms(renderer, [program('a'), program('b')]);
    expect(framesBeforeUses(events)).toEqual([
      ['use a', false],
      ['use b', false],
    ]);
    expect(events.filter((e) => e.startsWith('fence')).length).toBeGreaterThanOrEqual(3);
  });

  it('stops sending fences when frames keep coming, and uses the program all the same', async () => {
    const { renderer, events, program } = softwareRenderer(Array.from({ length: 50 }, (_, i) => i + 1));
    await linkPrograms(renderer, [program('a')]);
    expect(events.filter((e) => e.startsWith('fence')).length).toBe(4);
    expect(events.at(-1)).toBe('use a');
  });

  it('sends one fence a program when nothing is drawn meanwhile', async () => {
    const { renderer, events, program } = softwareRenderer();
    await linkPrograms(renderer, [program('a'), program('b')]);
    expect(events).toEqual(['fence 1', 'asked a', 'use a', 'fence 2', 'asked b', 'use b']);
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
