// `rigscope export` at scale, for `npm run bench` (BENCH_ONLY=export runs it alone): a synthetic
// tree of the project's own fixtures (written by wasm/src/writers, build/fixtures), 200 folders of
// 10 files mixing all four families. Reports files/s and MB/s with --jobs 1 and every core, the
// speed-up, peak RSS of the whole tree against its largest folder alone, and 10x the tree's time.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const FIXTURES = join(root, 'build/fixtures');
const CLI = join(root, 'web/cli/rigscope.js');

// Ten files a folder, one family a folder (as mods are), each folder a whole scene.
const FAMILY_FOLDERS = [
  [
    'two_bone.psk',
    'two_bone.psa',
    'knight_body.psk',
    'knight_armour.psk',
    'knight_head.psk',
    'knight.psa',
    'morph.psk',
    'static.pskx',
    'two_bone_cap.psk',
    'hostile_names.psk',
  ],
  [
    'arm.pmd',
    'arm_wave.psa',
    'old_v1.pmd',
    'arm.pmd:arm2.pmd',
    'arm_wave.psa:arm2_wave.psa',
    'old_v1.pmd:old_v2.pmd',
    'arm.pmd:arm3.pmd',
    'arm.pmd:arm4.pmd',
    'arm_wave.psa:arm4_wave.psa',
    'arm.pmd:arm5.pmd',
  ],
  [
    'flag_d.3d',
    'flag_a.3d',
    'flag.uc',
    'flag.pcx',
    'dx_box_d.3d',
    'dx_box_a.3d',
    'flag_d.3d:banner_d.3d',
    'flag_a.3d:banner_a.3d',
    'flag.pcx:banner.pcx',
    'flag.pcx:extra.pcx',
  ],
  [
    'skinned_box.psg',
    'box_textures.psg',
    'skinned_box.psg:skinned_box2.psg',
    'skinned_box.psg:skinned_box3.psg',
    'skinned_box.psg:skinned_box4.psg',
    'skinned_box.psg:skinned_box5.psg',
    'skinned_box.psg:skinned_box6.psg',
    'skinned_box.psg:skinned_box7.psg',
    'skinned_box.psg:skinned_box8.psg',
    'texture_shapes.psg',
  ],
];

/** Writes `folders` folders of the fixtures; returns the tree's root, file count and bytes. */
export function makeTree(folders) {
  const dir = mkdtempSync(join(tmpdir(), 'rigscope-bench-export-'));
  let files = 0,
    bytes = 0;
  for (let i = 0; i < folders; i++) {
    const folder = join(dir, `mod${String(i).padStart(4, '0')}`);
    mkdirSync(folder);
    for (const spec of FAMILY_FOLDERS[i % FAMILY_FOLDERS.length]) {
      const [from, to = from] = spec.split(':');
      copyFileSync(join(FIXTURES, from), join(folder, to));
      files++;
      bytes += statSync(join(FIXTURES, from)).size;
    }
  }
  return { dir, files, bytes };
}

/** One export run: wall time, and the peak RSS of the process with all its threads. */
function run(paths, jobs) {
  const out = mkdtempSync(join(tmpdir(), 'rigscope-bench-out-'));
  const started = performance.now();
  const r = spawnSync(process.execPath, [PROBE, 'export', ...paths, '-o', out, '--jobs', String(jobs), '--json'], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  const ms = performance.now() - started;
  rmSync(out, { recursive: true, force: true });
  if (r.status > 1) throw new Error(`rigscope export failed (${r.status}): ${r.stderr.slice(-500)}`);
  const summary = JSON.parse(r.stdout);
  if (summary.failed.length) throw new Error(`rigscope export: ${summary.failed[0].folder}: ${summary.failed[0].error}`);
  const rssKb = Number(/maxrss (\d+)/.exec(r.stderr)?.[1] ?? NaN);
  return { ms, rssMb: rssKb / 1024, written: summary.totals.written };
}

// The CLI with the process's peak RSS (every thread included) printed at exit.
const PROBE = join(tmpdir(), 'rigscope-bench-export-probe.mjs');

export function exportBench() {
  writeFileSync(
    PROBE,
    `process.on('exit', () => process.stderr.write('\\nmaxrss ' + process.resourceUsage().maxRSS + '\\n'));\nprocess.argv.splice(1, 1, ${JSON.stringify(CLI)});\nawait import(${JSON.stringify(CLI)});\n`,
  );
  const cores = availableParallelism();
  const tree = makeTree(200);
  const big = makeTree(2000);
  try {
    const one = run([tree.dir], 1);
    const all = run([tree.dir], cores);
    // The largest folder alone (the texture folder of the PSG family holds the biggest file).
    const largest = run([join(tree.dir, 'mod0003')], 1);
    const wholeRss = run([tree.dir], 1).rssMb;
    const ten = run([big.dir], cores);
    const rate = (r, t) => `${((t.files * 1000) / r.ms).toFixed(0)} files/s, ${(((t.bytes / 1e6) * 1000) / r.ms).toFixed(2)} MB/s`;
    const rows = [
      { measure: `tree: ${tree.files} files in 200 folders, ${(tree.bytes / 1e6).toFixed(1)} MB, ${one.written} GLBs`, value: '' },
      { measure: 'export --jobs 1', value: `${one.ms.toFixed(0)} ms (${rate(one, tree)})` },
      {
        measure: `export --jobs ${cores} (every core)`,
        value: `${all.ms.toFixed(0)} ms (${rate(all, tree)}), speed-up ${(one.ms / all.ms).toFixed(2)}x`,
      },
      {
        measure: 'peak RSS: whole tree / largest folder alone (--jobs 1)',
        value: `${wholeRss.toFixed(0)} / ${largest.rssMb.toFixed(0)} MB = ${(wholeRss / largest.rssMb).toFixed(2)}x`,
      },
      {
        measure: `10x the tree (${big.files} files), every core`,
        value: `${ten.ms.toFixed(0)} ms = ${(ten.ms / all.ms).toFixed(2)}x the tree`,
      },
    ];
    const targets = [
      {
        target: 'export: peak RSS of the tree <= 1.5x its largest folder',
        value: `${(wholeRss / largest.rssMb).toFixed(2)}x`,
        pass: wholeRss / largest.rssMb <= 1.5,
      },
      { target: 'export: 10x the tree <= 11x its time (linear)', value: `${(ten.ms / all.ms).toFixed(2)}x`, pass: ten.ms / all.ms <= 11 },
    ];
    return { rows, targets, raw: { cores, one, all, largest, wholeRss, ten, files: tree.files, bytes: tree.bytes } };
  } finally {
    rmSync(tree.dir, { recursive: true, force: true });
    rmSync(big.dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = exportBench();
  console.table(r.rows);
  console.table(r.targets.map((t) => ({ ...t, pass: t.pass ? 'pass' : 'MISS' })));
}
