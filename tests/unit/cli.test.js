import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateBytes } from 'gltf-validator';
import { FIXTURES, HAVE_SAMPLES, SAMPLES } from './helpers.js';

const CLI = new URL('../../web/cli/rigscope.js', import.meta.url).pathname;
const run = (...args) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });

describe('rigscope CLI', () => {
  it('inspects a mesh and its animation together, as JSON', () => {
    const r = run('inspect', `${FIXTURES}two_bone.psk`, `${FIXTURES}two_bone.psa`, '--json');
    expect(r.status).toBe(0);
    const [mesh, anim] = JSON.parse(r.stdout);
    expect(mesh).toMatchObject({
      format: 'psk',
      counts: { points: 6, wedges: 6, faces: 4, materials: 1, bones: 2, influences: 8 },
      warnings: [],
      error: null,
    });
    expect(mesh.bounds.min).toHaveLength(3);
    expect(mesh.bounds.max[1]).toBeCloseTo(20, 4); // Z up in the file is Y up here
    expect(anim).toMatchObject({ format: 'psa', sequences: [{ name: 'Bend', frames: 3, fps: 10 }] });
    expect(anim.pairing[0]).toMatchObject({ mesh: `${FIXTURES}two_bone.psk`, matched: 2, total: 2 });
  });

  it('exits non-zero with the message on stderr when a file fails', () => {
    const r = run('inspect', `${FIXTURES}truncated.psk`, `${FIXTURES}two_bone.psk`);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/truncated\.psk: PSK truncated\.psk: .*byte \d+/);
    expect(r.stdout).toMatch(/two_bone\.psk: psk/);
  });

  it.skipIf(!HAVE_SAMPLES)('reports the documented facts of a sample pair in text', () => {
    const r = run('inspect', `${SAMPLES}psk/skSpiderLargeMesh.psk`, `${SAMPLES}psk/skSpiderLargeAnims.psa`);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/points 266, wedges 307, faces 492, materials 3, bones 71, influences 408/);
    expect(r.stdout).toMatch(/sequence webattack: 72 frames @ 30 fps, 2\.400 s/);
    expect(r.stdout).toMatch(/71\/71 bones matched \(by index\)/);
  });

  it('converts to a GLB that passes the Khronos validator', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'rigscope-')), 'out.glb');
    const r = run('convert', `${FIXTURES}two_bone.psk`, `${FIXTURES}two_bone.psa`, '-o', out);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/1 model\(s\), 1 clip\(s\)/);
    const report = await validateBytes(new Uint8Array(readFileSync(out)));
    expect(report.issues.numErrors).toBe(0);
    expect(report.info.animationCount).toBe(1);
    expect(report.info.hasSkins).toBe(true);
  });
});

describe('rigscope CLI on a game-sized folder', () => {
  it('inspects 20,001 files (no cap on a walk of a tree) with one open at a time (no EMFILE), listing every one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rigscope-many-'));
    const two = readFileSync(`${FIXTURES}two_bone.psk`);
    for (let i = 0; i < 20001; i++)
      writeFileSync(join(dir, `f${String(i).padStart(5, '0')}${i % 1000 === 0 ? '.psk' : '.txt'}`), i % 1000 === 0 ? two : 'note');
    const r = spawnSync(process.execPath, [CLI, 'inspect', dir, '--json'], { encoding: 'utf8', maxBuffer: 1 << 28 });
    expect(r.stderr).not.toMatch(/EMFILE|too many open files/);
    const records = JSON.parse(r.stdout);
    expect(records).toHaveLength(20001);
    expect(records.filter((x) => x.format === 'psk')).toHaveLength(21);
    expect(r.stdout).not.toMatch(/over the limit/);
  }, 300000);
});
