// `rigscope convert FILE... -o out.glb [--clip NAME]`: the viewer's GLB export from the command
// line, over the same scene. Anything given that cannot be used is named on stderr and makes the
// exit status 1 (the GLB of what could be used is still written).
import { writeFile } from 'node:fs/promises';
import { loadNodeDecoders } from '../src/decoder/node.js';
import { assembleScene, decodeFiles } from '../src/families/index.js';
import { describeRecord, isProblem } from '../src/core/report.js';
import { entriesFromPaths } from './entries.js';

// GLTFExporter reads its Blob through FileReader, which Node lacks.
globalThis.FileReader ??= class {
  readAsArrayBuffer(blob) {
    blob.arrayBuffer().then((b) => {
      this.result = b;
      this.onloadend?.();
    });
  }
  readAsDataURL(blob) {
    blob.arrayBuffer().then((b) => {
      this.result = `data:${blob.type || 'application/octet-stream'};base64,${Buffer.from(b).toString('base64')}`;
      this.onloadend?.();
    });
  }
};

/** Builds the scene's characters (three.js objects, textures assigned) in Node. */
export async function buildScene(paths, decoder, { lod } = {}) {
  const { Character } = await import('../src/three/character.js');
  const decoded = await decodeFiles(await entriesFromPaths(paths), decoder, { maxFiles: Infinity });
  const scene = await assembleScene(decoded, { lod });
  return { scene, characters: scene.characters.map((sc) => new Character(sc)) };
}

export async function convert(paths, { out, clip, lod, compress = false, textures }) {
  const { exportGLB } = await import('../src/three/export.js');
  const decoder = await loadNodeDecoders();
  const { scene, characters } = await buildScene(paths, decoder, { lod });
  const problems = scene.records.filter(isProblem);
  for (const r of problems) process.stderr.write(`rigscope: ${describeRecord(r, { paths: true })}\n`);
  if (!characters.length) throw new Error('nothing to convert: no mesh among the files');
  const exported = await exportGLB(characters, { clip, decoder });
  let { glb } = exported;
  const left = exported.problems;
  if (compress) {
    const { compressForCli } = await import('./compress.js');
    const done = await compressForCli(glb, { textures });
    glb = done.glb;
    left.push(...done.problems);
  }
  for (const p of left) process.stderr.write(`rigscope: texture not exported: ${p}\n`);
  await writeFile(out, Buffer.from(glb));
  const clips = characters.reduce((n, c) => n + c.clips.filter((k) => !clip || k.name === clip).length, 0);
  process.stdout.write(`${out}: ${glb.byteLength} bytes, ${characters.length} model(s), ${clips} clip(s)\n`);
  return problems.length || left.length ? 1 : 0;
}
