// The same loaders in plain Node (the synchronous WASM host, then worker_threads with the .wasm
// named by setDecoderPath), and the Node host itself.
import { readFileSync } from 'node:fs';
import * as THREE from 'three';
import { PSKLoader, PSALoader } from 'rigscope';
import { loadNodeDecoders } from 'rigscope/node';

const group = await new PSKLoader().parseAsync({
  'two_bone.psk': readFileSync('public/two_bone.psk'),
  'two_bone.psa': readFileSync('public/two_bone.psa'),
});
const clips = await new PSALoader().setTarget(group).parseAsync(readFileSync('public/two_bone.psa'), 'two_bone.psa');
const mixer = new THREE.AnimationMixer(group);
mixer.clipAction(clips[0]).play();
let mesh = null;
group.traverse((o) => {
  if (o.isSkinnedMesh) mesh = o;
});
const at = (t) => {
  mixer.setTime(t);
  group.updateMatrixWorld(true);
  return mesh.getVertexPosition(4, new THREE.Vector3());
};
const bend = at(0.2).distanceTo(at(0));
const threaded = new PSKLoader().setWorkerLimit(2).setDecoderPath('node_modules/rigscope/build/wasm/');
const inThreads = await threaded.parseAsync({
  'two_bone.psk': readFileSync('public/two_bone.psk'),
  'two_bone.psa': readFileSync('public/two_bone.psa'),
});
const threads = threaded._pool.workerCount;
threaded.dispose();
let sameInThreads = 0;
inThreads.traverse((o) => {
  if (o.isSkinnedMesh)
    sameInThreads = o.geometry.attributes.position.array.every((v, i) => v === mesh.geometry.attributes.position.array[i]) ? 1 : -1;
});
const host = await loadNodeDecoders();
const decoded = await host.call('detectFormat', [new Uint8Array(readFileSync('public/two_bone.psk')).buffer, 1000, 'two_bone.psk']);
console.log(
  JSON.stringify({
    animations: group.animations.map((c) => c.name),
    bound: clips.map((c) => c.name),
    bend,
    detected: decoded,
    threads,
    sameInThreads,
    threadedAnimations: inThreads.animations.map((c) => c.name),
  }),
);
