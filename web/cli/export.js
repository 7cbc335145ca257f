// `rigscope export FOLDER|FILE... -o OUTDIR`: UE Viewer's "export all" for Rigscope. Each folder
// becomes the scene the viewer would assemble had the user dropped it (unrelated folders never
// merge), and each character of that scene becomes one GLB: all its parts, every clip bound to it,
// its textures. Folders run in parallel in worker_threads (export-worker.js), each with its own
// decoder, and a folder's files are read only while it is assembled, so memory follows the largest
// folder, not the tree. A GLB is written under a temporary name and renamed when complete: an
// interrupted run leaves only whole files, and `--skip-existing` picks up where it stopped.
import { lstat, mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { decodeFiles, assembleScene, FAMILIES } from '../src/families/index.js';
import { sceneToJSON } from '../src/core/scene.js';
import { describeRecord } from '../src/core/report.js';
import { baseName } from '../src/core/files.js';
import { glbNames } from '../src/three/glb-names.js';
import { entryFromPath, localFolders, openBundles } from './entries.js';
import { characterFiles } from './poster.js';
import { chromiumPath } from './chromium.js';
import { ExportPosters } from './export-posters.js';
import { galleryPage } from './gallery.js';
import './convert.js'; // Node's stand-in for FileReader, which GLTFExporter reads its Blob with

/** The suffix of a GLB being written; such a file is never a finished export. */
export const PARTIAL = '.rigscope-partial';

/** Folders that belong to the folder above them: a family's package layout (UE1's Models/Classes/Textures). */
const packageFolders = new Set(FAMILIES.flatMap((f) => f.packageFolders ?? []).map((n) => n.toLowerCase()));

/**
 * The folders to export, each with its files: a folder given or found is one scene, its package
 * sub-folders included; any other sub-folder is a scene of its own. Symbolic links to folders are
 * not followed (a link cycle would never end). `out` names the folder the GLBs go to, keeping the
 * layout below the folder given.
 * @returns {Promise<{ dir: string, out: string, files: { path: string, size: number }[] }[]>}
 */
export async function planFolders(paths) {
  const units = new Map();
  const unit = (dir, base) => {
    if (!units.has(dir)) units.set(dir, { dir, out: join(basename(resolve(base)), relative(base, dir)), files: [] });
    return units.get(dir);
  };
  const walk = async (dir, into, base) => {
    for (const name of (await readdir(dir)).sort()) {
      const path = join(dir, name);
      const s = await lstat(path);
      if (s.isDirectory()) await walk(path, packageFolders.has(name.toLowerCase()) ? into : unit(path, base), base);
      else if (s.isFile()) into.files.push({ path, size: s.size });
    }
  };
  for (const p of paths) {
    const s = await stat(p);
    if (s.isDirectory()) await walk(p, unit(p, p), p);
    else unit(dirname(p), dirname(p)).files.push({ path: p, size: s.size });
  }
  return [...units.values()].filter((u) => u.files.length);
}

const exists = (path) =>
  stat(path).then(
    () => true,
    () => false,
  );

/** Writes bytes under a temporary name, then renames: the final name only ever holds a whole file. */
async function writeWhole(path, bytes) {
  const partial = `${path}${PARTIAL}`;
  await writeFile(partial, bytes);
  await rename(partial, path);
}

/** What the scene did not use, and why, from its own records; texture boards are listed, not written. */
function notUsed(scene, json) {
  const out = scene.records
    .filter((r) => ['refused', 'missing', 'unbound', 'unused'].includes(r.kind))
    .map((r) => ({ kind: r.kind, files: r.files, why: describeRecord(r, { paths: true }) }));
  for (const b of json.textureBoards)
    for (const t of b.textures)
      out.push({ kind: 'texture', files: [t.file], why: `${t.file}: a texture no model uses (shown as a texture board in the viewer)` });
  return out;
}

/**
 * Exports one folder: its scene, one GLB per character. `decoder` is this thread's.
 * @returns {Promise<object>} the folder's summary: characters written (or planned), what was not used
 */
export async function exportFolder(unit, { outDir, clip, lod, skipExisting = false, dryRun = false, compress, posters = false, decoder }) {
  const [{ Character }, { exportGLB }] = await Promise.all([import('../src/three/character.js'), import('../src/three/export.js')]);
  // A .rigscope bundle in the folder stands for its files (cli/entries.js).
  const entries = await openBundles(unit.files.map((f) => entryFromPath(f.path, f.size)));
  const scene = await assembleScene(await decodeFiles(entries, decoder, { maxFiles: Infinity }), { lod });
  const json = sceneToJSON(scene);
  const target = join(outDir, unit.out);
  const names = glbNames(scene.characters.map((c) => c.name));
  const summary = {
    folder: unit.dir,
    out: unit.out,
    files: unit.files.length,
    bytes: unit.files.reduce((n, f) => n + f.size, 0),
    characters: [],
    notUsed: notUsed(scene, json),
    refused: json.refused.length,
  };
  if (!dryRun && scene.characters.length) await mkdir(target, { recursive: true });
  for (const [i, sc] of scene.characters.entries()) {
    const c = json.characters[i];
    const file = join(unit.out, names[i]);
    const character = new Character(sc);
    const clips = character.clips.map((k) => k.name).filter((n) => clip === undefined || n.toLowerCase() === clip.toLowerCase());
    const textures = [
      ...new Set(
        c.materials
          .flatMap((m) => [m.texture, ...Object.values(m.maps ?? {})])
          .filter(Boolean)
          .map(baseName),
      ),
    ];
    const row = { name: c.name, file, meshes: c.meshes.map(baseName), clips, textures, bytes: 0, status: 'written', problems: [] };
    summary.characters.push(row);
    // --posters: the files this character uses, for the main thread to draw it alone (export-posters.js).
    if (posters && !dryRun) row.sources = characterFiles(scene, sc, entries).map((e) => e.path);
    if (dryRun) {
      row.status = 'planned';
      continue;
    }
    if (skipExisting && (await exists(join(outDir, file)))) {
      row.status = 'skipped';
      continue;
    }
    const only = clip === undefined ? undefined : clips[0];
    let { glb, problems } = await exportGLB([character], { clip: only, decoder, noClips: clip !== undefined && !only, origin: true });
    row.problems = problems.map((p) => `texture not exported: ${p}`);
    if (compress) {
      const { compressForCli } = await import('./compress.js');
      ({ glb, problems } = await compressForCli(glb, compress));
      row.problems.push(...problems);
    }
    row.bytes = glb.byteLength;
    await writeWhole(join(outDir, file), Buffer.from(glb));
  }
  return summary;
}

/** Removes GLBs an interrupted run left half-written (their temporary names only). */
export async function removePartials(dir) {
  let names;
  try {
    names = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const d of names) {
    const path = join(dir, d.name);
    if (d.isDirectory()) await removePartials(path);
    else if (d.name.endsWith(PARTIAL)) await rm(path, { force: true });
  }
}

const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
const clock = (ms) => {
  const s = Math.round(ms / 1000);
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
};

/** The live progress line (a terminal only): folders, characters, refused files, MB read, elapsed, ETA. */
function progressLine(t, started) {
  const elapsed = Date.now() - started;
  const eta = t.bytesDone > 0 && t.bytesDone < t.bytes ? ` · ETA ${clock((elapsed * (t.bytes - t.bytesDone)) / t.bytesDone)}` : '';
  const posters = t.posters === undefined ? '' : ` · ${t.posters} posters`;
  return `folders ${t.foldersDone}/${t.folders} · ${t.written} characters written${posters} · ${t.refused} files refused · ${mb(t.bytesDone)} read · ${clock(elapsed)}${eta}`;
}

/** The summary as text: a table per folder of characters written, then what was not used and why. */
export function formatSummary(result) {
  const lines = [];
  for (const f of result.folders) {
    lines.push(`${f.folder} → ${f.out}`);
    for (const c of f.characters) {
      lines.push(
        `  ${c.status === 'written' ? '' : `[${c.status}] `}${c.file}: ${c.meshes.join(' + ')}; ${c.clips.length} clip(s)${c.clips.length ? ` (${c.clips.join(', ')})` : ''}; ${c.textures.length} texture(s)${c.textures.length ? ` (${c.textures.join(', ')})` : ''}`,
      );
      for (const p of c.problems) lines.push(`    ${p}`);
    }
    if (!f.characters.length) lines.push('  no character');
    for (const n of f.notUsed) lines.push(`  not used: ${n.why}`);
  }
  for (const f of result.failed) lines.push(`${f.folder}: not exported: ${f.error}`);
  const p = result.posters;
  if (p)
    lines.push(
      `${p.drawn} poster(s) in ${(p.ms / 1000).toFixed(1)} s (${p.drawn ? (p.ms / p.drawn / 1000).toFixed(2) : '0'} s each; Chromium started in ${(p.startMs / 1000).toFixed(1)} s)${p.failed ? `, ${p.failed} not drawn` : ''}; gallery: ${p.gallery}`,
    );
  const t = result.totals;
  lines.push(
    `${t.folders} folder(s), ${t.written} GLB(s) written${t.skipped ? `, ${t.skipped} skipped (already there)` : ''}${t.planned ? `, ${t.planned} planned` : ''}, ${t.notUsed} file(s) not used, ${t.refused} refused${result.interrupted ? '; interrupted: run again with --skip-existing to finish' : ''}`,
  );
  return lines.join('\n');
}

function totalsOf(folders, failed) {
  const chars = folders.flatMap((f) => f.characters);
  const count = (status) => chars.filter((c) => c.status === status).length;
  return {
    folders: folders.length + failed.length,
    characters: chars.length,
    written: count('written'),
    skipped: count('skipped'),
    planned: count('planned'),
    clips: chars.reduce((n, c) => n + c.clips.length, 0),
    notUsed: folders.reduce((n, f) => n + f.notUsed.length, 0),
    refused: folders.reduce((n, f) => n + f.refused, 0),
    files: folders.reduce((n, f) => n + f.files, 0),
    bytes: folders.reduce((n, f) => n + f.bytes, 0),
  };
}

/**
 * Runs an export over folders in `jobs` threads. Resolves with the summary; `signal` (an
 * AbortSignal, fired on Ctrl-C) stops the run: threads end, half-written files are removed.
 */
export async function runExport(
  paths,
  { outDir, clip, lod, jobs, skipExisting, dryRun, compress, posters, posterSize, signal, onProgress },
) {
  const { Worker } = await import('node:worker_threads');
  // Repository folder addresses are fetched to a temporary folder first, removed when done.
  const local = await localFolders(paths);
  try {
    return await exportUnits(await planFolders(local.paths), {
      outDir,
      clip,
      lod,
      jobs,
      skipExisting,
      dryRun,
      compress,
      posters,
      posterSize,
      signal,
      onProgress,
      Worker,
    });
  } finally {
    await local.cleanup();
  }
}

/** The bytes of a folder's files. */
const unitBytes = (unit) => unit.files.reduce((n, f) => n + f.size, 0);

async function exportUnits(
  units,
  { outDir, clip, lod, jobs, skipExisting, dryRun, compress, posters, posterSize, signal, onProgress, Worker },
) {
  const t = {
    folders: units.length,
    foldersDone: 0,
    written: 0,
    refused: 0,
    bytes: units.reduce((n, u) => n + unitBytes(u), 0),
    bytesDone: 0,
  };
  // --posters: one Chromium for the whole run, in this thread, drawing as the folders come in.
  const drawing =
    posters && !dryRun
      ? new ExportPosters({
          outDir,
          clip,
          lod,
          size: posterSize,
          skipExisting,
          onPoster: (drawn) => onProgress?.(Object.assign(t, { posters: drawn })),
          write: writeWhole,
        })
      : null;
  const run = { t, folders: [], failed: [], drawing, onProgress, interrupted: false };
  const queue = units.slice().sort((a, b) => unitBytes(b) - unitBytes(a)); // largest first: the last to finish are short
  const threads = Math.max(1, Math.min(jobs, queue.length));
  const workerData = { outDir, clip, lod, skipExisting, dryRun, compress, posters: !!drawing };
  await exportInThreads(queue, threads, { run, Worker, workerData, signal });
  return finishRun(units, run, outDir);
}

/**
 * The folders of `queue` through `threads` export threads, each given the next folder when it is
 * done with one; `signal` ends them all (run.interrupted). Resolves when no thread is left.
 */
function exportInThreads(queue, threads, { run, Worker, workerData, signal }) {
  const workers = new Set();
  return new Promise((done) => {
    if (!queue.length) return done();
    const next = (w) => {
      w.unit = run.interrupted ? undefined : queue.shift();
      if (w.unit) w.postMessage(w.unit);
      else w.terminate();
    };
    const spawn = () => {
      // A small young generation: a folder's garbage is mostly short-lived three.js objects, and
      // V8's default lets each thread keep tens of MB of it between collections.
      const w = new Worker(new URL('./export-worker.js', import.meta.url), {
        workerData,
        resourceLimits: { maxYoungGenerationSizeMb: 4 },
      });
      workers.add(w);
      w.on('message', (m) => {
        if (!m.ready) folderDone(run, w.unit, m);
        next(w);
      });
      w.on('error', (err) => {
        w.error = err;
      });
      w.on('exit', (code) => {
        workers.delete(w);
        threadExited(run, { w, code, queue, workers, spawn });
        if (!workers.size) done();
      });
    };
    signal?.addEventListener(
      'abort',
      () => {
        run.interrupted = true;
        run.drawing?.stop();
        for (const w of workers) w.terminate();
      },
      { once: true },
    );
    for (let i = 0; i < threads; i++) spawn();
  });
}

/** A thread's answer for its folder: the folder's summary (posters drawn from it), or its failure. */
function folderDone(run, unit, m) {
  const { t } = run;
  if (m.summary) {
    run.folders.push(m.summary);
    run.drawing?.add(unit, m.summary);
    t.written += m.summary.characters.filter((c) => c.status === 'written').length;
    t.refused += m.summary.refused;
  } else run.failed.push(m.failed);
  t.foldersDone++;
  t.bytesDone += unitBytes(unit);
  run.onProgress?.(t);
}

/**
 * A thread that dies under a folder (out of memory, a crash) fails that folder, never the run: a
 * new thread takes the next. With no thread left (they cannot even start), the folders still
 * waiting fail with the reason.
 */
function threadExited(run, { w, code, queue, workers, spawn }) {
  const why = w.error?.message ?? `the export thread stopped (exit code ${code})`;
  if (w.unit && !run.interrupted) {
    run.failed.push({ folder: w.unit.dir, error: why });
    run.t.foldersDone++;
    if (queue.length) spawn();
  }
  if (!workers.size && !run.interrupted) for (const unit of queue.splice(0)) run.failed.push({ folder: unit.dir, error: why });
}

/**
 * The run's result, folders in the order given: half-written files removed when interrupted, and
 * with --posters the gallery of every character with a GLB (OUTDIR/index.html, relative links, no script).
 */
async function finishRun(units, { folders, failed, drawing, interrupted }, outDir) {
  const drawn = await drawing?.finish();
  if (interrupted) await removePartials(outDir);
  const order = new Map(units.map((u, i) => [u.dir, i]));
  folders.sort((a, b) => order.get(a.folder) - order.get(b.folder));
  const result = { folders, failed, interrupted, totals: totalsOf(folders, failed) };
  if (drawn && !interrupted) {
    await mkdir(outDir, { recursive: true });
    await writeWhole(join(outDir, 'index.html'), galleryPage(result));
    result.posters = { ...drawn, gallery: join(outDir, 'index.html') };
  }
  return result;
}

/** `rigscope export`'s command line: exit 0 when everything was used, 1 when something was not. */
export async function exportCommand(paths, { out, clip, lod, jobs, skipExisting, dryRun, json, compress, textures, posters, posterSize }) {
  // No Chromium for --posters: said before anything is exported.
  if (posters && !dryRun) chromiumPath();
  const started = Date.now();
  const tty = process.stderr.isTTY;
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  try {
    const result = await runExport(paths, {
      outDir: out,
      clip,
      lod,
      jobs,
      skipExisting,
      dryRun,
      // --compress: { textures } for compressForCli (web/cli/compress.js)
      compress: compress ? { textures } : undefined,
      posters,
      posterSize,
      signal: controller.signal,
      onProgress: tty ? (t) => process.stderr.write(`\r\x1b[K${progressLine(t, started)}`) : undefined,
    });
    if (tty) process.stderr.write('\r\x1b[K');
    process.stdout.write(`${json ? JSON.stringify(result, null, 2) : formatSummary(result)}\n`);
    if (result.interrupted) return 130;
    return result.totals.notUsed || result.failed.length || result.folders.some((f) => f.characters.some((c) => c.problems.length)) ? 1 : 0;
  } finally {
    process.off('SIGINT', onSigint);
  }
}
