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

/** Whether a scene character is the mesh asked for by `--mesh NAME`: its name, or an object path of a container it holds. */
const isMesh = (sc, name) => {
  const n = name.toLowerCase();
  return sc.name.toLowerCase() === n || sc.models.some((m) => m.container?.object?.toLowerCase() === n);
};

/**
 * Builds the scene's characters (three.js objects, textures assigned) in Node.
 * @param {{ lod?: number | 'all', mesh?: string }} [options] mesh: only that character (of a
 *   container, only that object is decoded)
 */
export async function buildScene(paths, decoder, { lod, mesh } = {}) {
  const { Character } = await import('../src/three/character.js');
  const decoded = await decodeFiles(await entriesFromPaths(paths), decoder, { maxFiles: Infinity, ...(mesh ? { objects: [mesh] } : {}) });
  const scene = await assembleScene(decoded, { lod });
  const chosen = mesh ? scene.characters.filter((sc) => isMesh(sc, mesh)) : scene.characters;
  // The meshes there were to choose from: the characters, and the meshes containers hold (not decoded when not chosen).
  const meshes = [...new Set([...scene.characters.map((sc) => sc.name), ...decoded.containers.flatMap((c) => c.meshes ?? [])])];
  return { scene, meshes, characters: chosen.map((sc) => new Character(sc)) };
}

export async function convert(paths, { out, clip, mesh, lod, compress = false, textures }) {
  const { exportGLB } = await import('../src/three/export.js');
  const decoder = await loadNodeDecoders();
  const { scene, characters, meshes } = await buildScene(paths, decoder, { lod, mesh });
  const problems = scene.records.filter(isProblem);
  for (const r of problems) process.stderr.write(`rigscope: ${describeRecord(r, { paths: true })}\n`);
  if (mesh && !characters.length) {
    throw new Error(`no mesh ${mesh} among the files${meshes.length ? ` (meshes: ${meshes.join(', ')})` : ''}`);
  }
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
