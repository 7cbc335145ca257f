// The one playback model (three/playback.js), through the page's App and the element's Player:
// clip choice, loop or once, loop range, crossfade, speed, time, frames in the file's numbering,
// notify markers.
import { describe, expect, it } from 'vitest';
import * as THREE from 'three';
import { App } from '../../web/src/app/app.js';
import { Player } from '../../web/src/element/player.js';
import { CROSSFADE_SECONDS } from '../../web/src/three/playback.js';
import { entryFromBytes } from '../../web/src/core/files.js';
import { bytes, decoder, fixture, fakeViewer } from './helpers.js';

const DEMO = new URL('../../web/public/demo/', import.meta.url).pathname;

const fakeStage = () => ({
  add() {},
  clear() {},
  frameAll() {},
  prepare: async () => {},
  invalidate() {},
  poseChanged() {},
  glideTo() {},
  shown: async () => {},
});
const files = (...names) => names.map((n) => entryFromBytes(n, fixture(n)));

/** The demo character with its Idle, Walk and Wave clips (written by the PSK/PSA writer at build time). */
async function demo(Kind) {
  const player = Kind === App ? new App(fakeViewer(), await decoder()) : new Player(fakeStage(), await decoder());
  await player.loadFiles(['rigscope-demo.psk', 'rigscope-demo.psa'].map((n) => entryFromBytes(n, bytes(DEMO + n))));
  return player;
}
const clipNamed = (p, name) => p.allClips.find((c) => c.clip.name === name);

describe.each([
  ['App', App],
  ['Player', Player],
])('playback model through %s', (_, Kind) => {
  it("starts on the first clip with motion and reports time and frame at the clip's rate", async () => {
    const p = await demo(Kind);
    expect(p.current).not.toBeNull();
    expect(p.current.clip.frameCount).toBeGreaterThan(2);
    const { fps } = p.current.clip;
    p.setTime(3 / fps);
    expect(p.frame).toBe(3);
    expect(p.fileFrame).toBe(3);
    p.step(1);
    expect(p.frame).toBe(4);
    expect(p.playing).toBe(false); // stepping pauses
  });

  it('wraps frames when looping and holds the ends when playing once', async () => {
    const p = await demo(Kind);
    const n = p.current.clip.frameCount;
    p.setTime(0);
    p.step(-1);
    expect(p.frame).toBe(n - 1);
    p.setLoop(false);
    expect(p.frame).toBe(n - 1); // the time survives the swap of actions
    p.step(3);
    expect(p.frame).toBe(n - 1);
    p.step(-2 * n);
    expect(p.frame).toBe(0);
    expect(p.current.action.loop).toBe(THREE.LoopOnce);
  });

  it('keeps a looping clip inside its loop range (file frame numbers)', async () => {
    const p = await demo(Kind);
    const { fps, frameCount } = p.current.clip;
    expect(frameCount).toBeGreaterThan(4);
    p.setRange(1, 3);
    expect(p.rangeTimes()).toEqual([1 / fps, 3 / fps]);
    p.play();
    p.setTime(3.5 / fps);
    p.tick();
    expect(p.frame).toBe(1); // past the end of the range: back to its start
    p.setRange('', '');
    expect(p.range).toBeNull();
    p.setTime(3.5 / fps);
    p.tick();
    expect(p.frame).toBe(3);
  });

  it("goes to a frame given in the file's numbering, clamped to the clip, and pauses", async () => {
    const p = await demo(Kind);
    p.play();
    p.goToFileFrame(2);
    expect(p.fileFrame).toBe(2);
    expect(p.playing).toBe(false);
    p.goToFileFrame(1e9);
    expect(p.frame).toBe(p.current.clip.frameCount - 1);
  });

  it('crossfades between skeletal clips on the same character', async () => {
    const p = await demo(Kind);
    const other = p.allClips.find((c) => c.clip !== p.current.clip && c.character === p.current.character);
    expect(other).toBeDefined();
    const before = p.current.action;
    p.play();
    p.select(other.character, other.clip);
    expect(p.current.clip).toBe(other.clip);
    // The last action fades out over CROSSFADE_SECONDS instead of stopping at once.
    expect(before.isRunning()).toBe(true);
    p.current.character.mixer.update(CROSSFADE_SECONDS + 0.01);
    expect(before.isRunning()).toBe(false);
  });

  it.each([
    // Each chooses a frame and says which, in the file's numbering.
    ['gone to', (p, first) => (p.goToFileFrame(first + 2), first + 2)],
    ['stepped to', (p, first, from) => (p.step(2), from + 2)],
  ])('shows a frame %s of the current clip alone, not a blend with the clip it fades from', async (_, choose) => {
    const p = await demo(Kind);
    const other = p.allClips.find((c) => c.clip !== p.current.clip && c.character === p.current.character);
    const before = p.current.action;
    p.play();
    p.select(other.character, other.clip);
    p.current.character.mixer.update(CROSSFADE_SECONDS / 4); // a slow machine's one frame into the fade
    expect(before.getEffectiveWeight()).toBeGreaterThan(0);
    const want = choose(p, other.clip.firstFrame, p.fileFrame);
    expect(before.isRunning()).toBe(false);
    expect(before.getEffectiveWeight()).toBe(0);
    expect(p.current.action.getEffectiveWeight()).toBe(1);
    expect(p.fileFrame).toBe(want);
    expect(p.playing).toBe(false);
  });

  it('holds the speed the render loop advances by, and says so by the named signal', async () => {
    const p = await demo(Kind);
    const heard = [];
    const stop = p.on('speed', (v) => heard.push(v));
    p.speed = 0.5;
    p.speed = 2;
    stop();
    p.speed = 1;
    expect(heard).toEqual([0.5, 2]);
  });

  it('sends named signals to their listeners and every signal to a listener of all', async () => {
    const p = await demo(Kind);
    const named = [],
      all = [];
    p.on('clip', () => named.push('clip'));
    p.on((what) => all.push(what));
    p.setLoop(false);
    p.setRange(1, 2);
    p.setTime(0);
    expect(named).toEqual(['clip']);
    expect(all).toEqual(expect.arrayContaining(['clip', 'range', 'time']));
  });
});

describe('what differs by design', () => {
  it('the page plays a newly chosen clip; a paused element stays paused', async () => {
    for (const [Kind, playsAfter] of [
      [App, true],
      [Player, false],
    ]) {
      const p = await demo(Kind);
      p.pause();
      const other = p.allClips.find((c) => c.clip !== p.current.clip);
      p.select(other.character, other.clip);
      expect(p.playing).toBe(playsAfter);
    }
  });

  it('UE1 notify markers and file frame numbers come through the same model', async () => {
    const app = new App(fakeViewer(), await decoder());
    await app.loadFiles(files('flag_d.3d', 'flag_a.3d', 'flag.uc', 'flag.pcx'));
    const wave = clipNamed(app, 'Wave');
    app.select(wave.character, wave.clip);
    app.setTime(0);
    expect(app.fileFrame).toBe(1); // Wave starts at the file's frame 1
    app.setRange(3, 5);
    app.play();
    app.setTime(10 / wave.clip.fps);
    app.tick();
    expect(app.fileFrame).toBe(3);
    expect(app.notifies).toEqual(wave.clip.notifies);
    expect(app.notifies.length).toBeGreaterThan(0);
  });
});
