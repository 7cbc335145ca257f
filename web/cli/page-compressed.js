// `rigscope page --compress`: the page carries the scene as one compressed GLB (the export, made
// small by three/compress.js) instead of the files, for characters whose files make the page too
// large, and the GLB reader script that opens it (build/standalone/rigscope-glb-reader.js,
// written beside the template by scripts/build-standalone.mjs). Pages of game files go without it.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { loadNodeDecoders } from '../src/decoder/node.js';
import { describeRecord, isProblem } from '../src/core/report.js';
import { pageFileName, titleCharacter } from '../src/core/page.js';
import { buildScene } from './convert.js';
import { compressForCli } from './compress.js';
import { UsageError } from './usage.js';

export const GLB_READER_PATH = fileURLToPath(new URL('../../build/standalone/rigscope-glb-reader.js', import.meta.url));

/** The pack of `sceneToPack`'s shape holding one compressed GLB of the scene. */
export async function compressedPack(paths, { clip, lod = 0, textures }) {
  const decoder = await loadNodeDecoders();
  const { scene, characters } = await buildScene(paths, decoder, { lod });
  const problems = scene.records.filter(isProblem);
  for (const r of problems) process.stderr.write(`rigscope: ${describeRecord(r, { paths: true })}\n`);
  if (!characters.length) throw new Error('nothing to show: no mesh among the files');
  const state = {};
  if (clip !== undefined) {
    const names = characters.flatMap((c) => c.clips.map((k) => k.name));
    const hit = names.find((n) => n === clip) ?? names.find((n) => n.toLowerCase() === clip.toLowerCase());
    if (!hit) throw new UsageError(`--clip ${clip}: no clip of that name; clips: ${names.length ? names.join(', ') : 'none'}`);
    state.clip = hit;
  }
  const { exportGLB } = await import('../src/three/export.js');
  const exported = await exportGLB(characters, { decoder });
  const { glb, problems: left } = await compressForCli(exported.glb, { textures });
  for (const p of [...exported.problems, ...left]) process.stderr.write(`rigscope: texture: ${p}\n`);
  const name = pageFileName(characters[0].name, '.glb');
  const title = titleCharacter(scene.characters).name;
  return { files: [{ name, bytes: new Uint8Array(glb) }], state, problems: [...problems, ...exported.problems, ...left], left: 0, title };
}

/** The template with the GLB reader script after the player's. */
export async function withGlbReader(template) {
  let reader;
  try {
    reader = await readFile(GLB_READER_PATH, 'utf8');
  } catch (err) {
    if (err.code === 'ENOENT')
      throw new Error(`${GLB_READER_PATH} is missing: build it with the template (node scripts/build-standalone.mjs)`, { cause: err });
    throw err;
  }
  return `${template}<script>${reader}</script>\n`;
}
