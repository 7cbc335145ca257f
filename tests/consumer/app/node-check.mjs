// The same loaders in plain Node (no Worker: the synchronous WASM host), and the Node host itself.
import { readFileSync } from 'node:fs';
import * as THREE from 'three';
import { PSKLoader, PSALoader } from 'rigscope';
import { loadNodeDecoders } from 'rigscope/node';

const group = await new PSKLoader().parseAsync({ 'two_bone.psk': readFileSync('public/two_bone.psk'), 'two_bone.psa': readFileSync('public/two_bone.psa') });
const clips = await new PSALoader().setTarget(group).parseAsync(readFileSync('public/two_bone.psa'), 'two_bone.psa');
const mixer = new THREE.AnimationMixer(group);
mixer.clipAction(clips[0]).play();
let mesh = null;
group.traverse((o) => { if (o.isSkinnedMesh) mesh = o; });
const at = (t) => { mixer.setTime(t); group.updateMatrixWorld(true); return mesh.getVertexPosition(4, new THREE.Vector3()); };
const bend = at(0.2).distanceTo(at(0));
const host = await loadNodeDecoders();
const decoded = await host.call('detectFormat', [new Uint8Array(readFileSync('public/two_bone.psk')).buffer, 1000, 'two_bone.psk']);
console.log(JSON.stringify({ animations: group.animations.map((c) => c.name), bound: clips.map((c) => c.name), bend, detected: decoded }));
