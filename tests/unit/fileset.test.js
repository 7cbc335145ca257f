import { describe, expect, it } from 'vitest';
import { loadFileSet } from '../../web/src/core/fileset.js';
import { entryFromBytes } from '../../web/src/core/files.js';
import { decoder, fixture } from './helpers.js';

const text = (s) => new TextEncoder().encode(s);

describe('file sets', () => {
  it('pairs a .psa with its UE Viewer .config sidecar and honours [RemoveTracks]', async () => {
    const d = await decoder();
    const plain = await loadFileSet([entryFromBytes('two_bone.psa', fixture('two_bone.psa'))], d);
    const set = await loadFileSet([
      entryFromBytes('anims/two_bone.psa', fixture('two_bone.psa')),
      entryFromBytes('anims/Two_Bone.config', text('[RemoveTracks]\nBend.1=all\n')),
    ], d);
    expect(set.report.pairs).toContain('two_bone.psa ↔ Two_Bone.config (sidecar)');
    const bones = (s) => s.animations[0].clips[0].tracks.map((t) => t.bone);
    expect(bones(plain)).toEqual([0, 1]);
    expect(bones(set)).toEqual([0]);
    expect(set.animations[0].warnings.join(' ')).toMatch(/config/i);
  });

  it('detects formats by content, not by extension', async () => {
    const d = await decoder();
    const set = await loadFileSet([
      entryFromBytes('looks_like_a.pmd', fixture('two_bone.psk')), // really a PSK
      entryFromBytes('animation.psa', fixture('arm_wave.psa')),    // 0 A.D. PSSA, not Unreal
      entryFromBytes('model.psk', text('not a model at all')),
    ], d);
    expect(set.models.map((m) => [m.file, m.format])).toEqual([['looks_like_a.pmd', 'psk']]);
    expect(set.animations.map((m) => [m.file, m.format])).toEqual([['animation.psa', 'pssa']]);
    expect(set.report.refused).toEqual([{ file: 'model.psk', reason: 'not a format Rigscope reads (detected by content, not extension)' }]);
  });

  it('lists what is missing: an animation file without its mesh data file', async () => {
    const d = await decoder();
    const set = await loadFileSet([entryFromBytes('flag_a.3d', fixture('flag_a.3d'))], d);
    expect(set.report.missing).toEqual(['flag_a.3d: its data file flag_d.3d']);
  });
});
