// A page that prefilters three's RoomEnvironment with the installed three.js (PMREMGenerator, as
// <rigscope-viewer> did on every page) and reads levels of it back: for scripts/neutral-room.mjs,
// which keeps them, and for the test that checks the kept ones still match.
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';

const PAGE = `<!doctype html><script type="importmap">{"imports":{"three":"/three.module.js","fflate":"/fflate.js"}}</script>
<script type="module">
import * as THREE from 'three';
import { inflateSync } from 'fflate';
import { RoomEnvironment } from '/RoomEnvironment.js';
import { neutralRoomTexture } from '/neutral-room-data.js';
// As the element's shared renderer is made (web/src/element/renderer.js).
const renderer = new THREE.WebGLRenderer({ antialias: true, powerPreference: 'low-power' });
renderer.setPixelRatio(1);
renderer.outputColorSpace = THREE.SRGBColorSpace;
renderer.toneMapping = THREE.NeutralToneMapping;
renderer.setScissorTest(true);
// Each asked level of each face as linear RGBA floats (read as half floats, as the target holds them).
window.pmremLevels = (levels) => {
  const pmrem = new THREE.PMREMGenerator(renderer);
  const room = new RoomEnvironment();
  const target = pmrem.fromScene(room, 0);
  const gl = renderer.getContext();
  const faces = {};
  for (const level of levels) {
    const side = target.width >> level;
    faces[level] = [];
    for (let f = 0; f < 6; f++) {
      renderer.setRenderTarget(target, f, level);
      const half = new Uint16Array(side * side * 4);
      gl.readPixels(0, 0, side, side, gl.RGBA, gl.HALF_FLOAT, half);
      faces[level].push(Array.from(half, THREE.DataUtils.fromHalfFloat));
    }
  }
  renderer.setRenderTarget(null);
  const out = { revision: THREE.REVISION, size: target.width, levels: target.texture.mipmaps.length, faces };
  room.dispose();
  pmrem.dispose();
  target.dispose();
  return out;
};
// A sphere of each roughness lit by the room prefiltered here and by the kept one, as the element
// draws (its renderer's settings): RGBA rows of each picture, 96 pixels a side.
window.litSpheres = async (roughnesses) => {
  // Imported here: the script that writes it runs this page too.
  const { NEUTRAL_ROOM } = await import('/neutral-room.js');
  const pmrem = new THREE.PMREMGenerator(renderer);
  const made = pmrem.fromScene(new RoomEnvironment(), 0).texture;
  pmrem.dispose();
  const kept = neutralRoomTexture(THREE, NEUTRAL_ROOM, inflateSync);
  const target = new THREE.WebGLRenderTarget(96, 96);
  target.texture.colorSpace = THREE.SRGBColorSpace;
  const camera = new THREE.PerspectiveCamera(30, 1, 0.1, 10);
  camera.position.set(0, 0, 4);
  const out = {};
  for (const roughness of roughnesses) {
    out[roughness] = [made, kept].map((environment) => {
      const scene = new THREE.Scene();
      scene.environment = environment;
      scene.add(new THREE.Mesh(new THREE.SphereGeometry(1, 48, 24), new THREE.MeshStandardMaterial({ roughness, metalness: 1 })));
      renderer.setRenderTarget(target);
      renderer.setScissor(0, 0, 96, 96);
      renderer.setViewport(0, 0, 96, 96);
      renderer.render(scene, camera);
      const pixels = new Uint8Array(96 * 96 * 4);
      renderer.readRenderTargetPixels(target, 0, 0, 96, 96, pixels);
      return Array.from(pixels);
    });
  }
  renderer.setRenderTarget(null);
  return out;
};
window.ready = true;
</script>`;

/** Serves the page and the installed three.js; resolves to its URL and a close(). */
export function servePmremPage(root) {
  const files = {
    '/three.module.js': `${root}node_modules/three/build/three.module.js`,
    '/three.core.js': `${root}node_modules/three/build/three.core.js`,
    '/RoomEnvironment.js': `${root}node_modules/three/examples/jsm/environments/RoomEnvironment.js`,
    '/fflate.js': `${root}node_modules/fflate/esm/browser.js`,
    '/neutral-room.js': `${root}web/src/element/neutral-room.js`,
    '/neutral-room-data.js': `${root}web/src/element/neutral-room-data.js`,
  };
  const server = createServer((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    if (path === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    if (!files[path]) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync(files[path]));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${server.address().port}/`, close: () => server.close() })),
  );
}

/** The room's levels, as the page reads them back. */
export async function pmremLevels(page, levels) {
  await page.waitForFunction(() => window.ready === true);
  return page.evaluate((l) => window.pmremLevels(l), levels);
}

/** Spheres lit by the room made now and by the kept one, per roughness: [made, kept] RGBA rows. */
export async function litSpheres(page, roughnesses) {
  await page.waitForFunction(() => window.ready === true);
  return page.evaluate((r) => window.litSpheres(r), roughnesses);
}
