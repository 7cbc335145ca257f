// The loaders from the installed package, used the way three.js apps use DRACOLoader/FBXLoader:
// a PSK + PSA pair in depth, then one model of every other family, each drawn.
import * as THREE from 'three';
import { PMDLoader, PSGLoader, PSKLoader, PSALoader, PSSALoader, UE1Loader, bindClips } from 'rigscope';

/** Where vertex 4 (the tip of the upper bone) is at `t` seconds into `clip`. */
function tipAt(group, clip, t) {
  const mixer = new THREE.AnimationMixer(group);
  mixer.clipAction(clip).play();
  mixer.setTime(t);
  group.updateMatrixWorld(true);
  let mesh = null;
  group.traverse((o) => {
    if (o.isSkinnedMesh) mesh = o;
  });
  return mesh.getVertexPosition(4, new THREE.Vector3());
}

/** The meshes of a Group: [type, vertex count]. */
function meshesOf(group) {
  const meshes = [];
  group.traverse((o) => {
    if (o.isMesh) meshes.push([o.type, o.geometry.attributes.position.count]);
  });
  return meshes;
}

const renderer = new THREE.WebGLRenderer({ canvas: document.getElementById('view'), preserveDrawingBuffer: true });

/** Pixels brighter than the black background once the group is framed and drawn. */
function litPixels(group) {
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0x000000);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x444444, 3));
  scene.add(group);
  const camera = new THREE.PerspectiveCamera(45, 1, 0.01, 10000);
  const box = new THREE.Box3().setFromObject(group, true);
  const center = box.getCenter(new THREE.Vector3());
  camera.position.copy(center).add(new THREE.Vector3(0, 0, box.getSize(new THREE.Vector3()).length() * 1.5));
  camera.lookAt(center);
  renderer.render(scene, camera);
  const gl = renderer.getContext();
  const px = new Uint8Array(256 * 256 * 4);
  gl.readPixels(0, 0, 256, 256, gl.RGBA, gl.UNSIGNED_BYTE, px);
  let lit = 0;
  for (let i = 0; i < px.length; i += 4) if (px[i] + px[i + 1] + px[i + 2] > 60) lit++;
  scene.remove(group);
  return lit;
}

async function run() {
  const events = [];
  const manager = new THREE.LoadingManager();
  const managerDone = new Promise((resolve) => {
    manager.onLoad = () => {
      events.push('manager');
      resolve();
    };
  });
  const meshLoader = new PSKLoader(manager);
  const group = await new Promise((resolve, reject) =>
    meshLoader.load(
      ['./two_bone.psk', './two_bone.psa'],
      (g) => {
        events.push('mesh');
        resolve(g);
      },
      undefined,
      reject,
    ),
  );
  await managerDone;
  const clips = await new PSALoader().setTarget(group).loadAsync('./two_bone.psa');
  const own = await new PSALoader().loadAsync('./two_bone.psa');

  // dispose() of one loader leaves the other's decodes running.
  const bytes = await (await fetch('./two_bone.psk')).arrayBuffer();
  const a = new PSKLoader();
  const b = new PSKLoader();
  const pendingA = a.parseAsync(bytes, 'two_bone.psk');
  const pendingB = b.parseAsync(bytes, 'two_bone.psk');
  a.dispose();
  const disposed = await pendingA.then(
    () => 'resolved',
    (err) => err.message,
  );
  const other = await pendingB.then(
    (g) => g.userData.character.name,
    (err) => `rejected: ${err.message}`,
  );

  // Drawn with the app's own renderer.
  const lit = litPixels(group);

  // Every other family: 0 A.D. (PMD + PSSA), Unreal Engine 1 (the _a.3d is fetched beside the _d.3d), Skate 3 PSG.
  const arm = await new PMDLoader().loadAsync(['./arm.pmd', './arm_wave.psa']);
  const armClips = await new PSSALoader().setTarget(arm).loadAsync('./arm_wave.psa');
  const flag = await new UE1Loader().loadAsync(['./flag_d.3d', './flag.uc', './flag.pcx']);
  const box = await new PSGLoader().loadAsync(['./skinned_box.psg', './box_textures.psg']);
  const families = Object.fromEntries(
    Object.entries({ zeroad: arm, ue1: flag, psg: box }).map(([id, g]) => [
      id,
      {
        name: g.userData.character.name,
        animations: g.animations.map((c) => c.name),
        meshes: meshesOf(g),
        lit: litPixels(g),
      },
    ]),
  );
  families.zeroad.bound = armClips.map((c) => c.name);
  families.psg.textured = box.userData.records.filter((r) => r.kind === 'texture').length;

  return {
    events,
    animations: group.animations.map((c) => c.name),
    bend: tipAt(group, group.animations[0], 0.2).distanceTo(tipAt(group, group.animations[0], 0)),
    bound: clips.map((c) => c.name),
    same: tipAt(group, bindClips(own, group)[0], 0.2).distanceTo(tipAt(group, clips[0], 0.2)),
    disposed,
    other,
    lit,
    families,
  };
}

/** More small files, a new loader each, once the first loads are done: the names they give. */
window.more = async () => {
  const bytes = await (await fetch('./two_bone.psk')).arrayBuffer();
  const names = [];
  for (let i = 0; i < 3; i++) names.push((await new PSKLoader().parseAsync(bytes, 'two_bone.psk')).userData.character.name);
  return { names, bytes: bytes.byteLength };
};

run().then(
  (r) => {
    window.result = r;
  },
  (err) => {
    window.result = { error: String(err?.stack ?? err) };
  },
);
