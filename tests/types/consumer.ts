// A consumer of the package, type-checked against its declarations: what the README shows.
import { AnimationClip, AnimationMixer, Group, LoadingManager, Scene, Skeleton } from 'three';
import {
  PSKLoader,
  PSALoader,
  PMDLoader,
  PSSALoader,
  UE1Loader,
  PSGLoader,
  UPackageLoader,
  bindClips,
  Character,
  DecoderPool,
  decodeFiles,
  assembleScene,
  sceneToJSON,
  describeRecord,
  isProblem,
  entryFromBytes,
  exportGLB,
  type RigscopeGroup,
  type SceneRecord,
} from 'rigscope';
import { compiledDecoders, loadNodeDecoders } from 'rigscope/node';
import { RigscopeViewer, configureSharedPool, type ViewerSnapshot } from 'rigscope/viewer';

export async function loaders(scene: Scene): Promise<void> {
  const manager = new LoadingManager(() => console.log('all decoded'));
  const meshLoader = new PSKLoader(manager).setDecoderPath('/rigscope/').setWorkerLimit(2).setPath('/models/');
  const group: RigscopeGroup = await meshLoader.loadAsync(['hero.psk', 'hero.psa']);
  scene.add(group);
  const mixer = new AnimationMixer(group);
  const first: AnimationClip | undefined = group.animations[0];
  if (first) mixer.clipAction(first).play();
  const character: Character | null = group.userData.character;
  character?.update();
  const problems: SceneRecord[] = group.userData.records.filter(isProblem);
  problems.map((r) => describeRecord(r));

  const clips: AnimationClip[] = await new PSALoader(manager).setTarget(group).loadAsync('hero_extra.psa');
  const own = await new PSALoader().parseAsync(new ArrayBuffer(8), 'x.psa');
  const bound: AnimationClip[] = bindClips(own, group);
  bindClips(clips, new Skeleton([]));
  meshLoader.load(
    'a.psk',
    (g: Group) => scene.add(g),
    undefined,
    (err) => console.error(err),
  );
  meshLoader.parse({ 'a.psk': new Uint8Array(4), 'a.psa': new ArrayBuffer(4) }, '', (g) => scene.add(g));
  meshLoader.parse(new ArrayBuffer(4), (g) => scene.add(g));
  const arm = await new PMDLoader().parseAsync(new ArrayBuffer(4), 'arm.pmd');
  await new PSSALoader().setTarget(arm).parseAsync(new ArrayBuffer(4), 'arm_wave.psa');
  await new UE1Loader().loadAsync('flag_d.3d');
  const arena = await new PSGLoader().loadAsync('box.psg');
  arena.userData.textures?.forEach((t) => t.dispose());
  const pkg: RigscopeGroup = await new UPackageLoader().setMesh('SkaarjBody').loadAsync(['SkaarjPack.u', 'Skins.utx']);
  scene.add(pkg);
  meshLoader.setDecoder(new DecoderPool({ workerLimit: 1 })).dispose();
  mixer.update(bound.length);
}

export async function node(): Promise<void> {
  const host = await loadNodeDecoders();
  await loadNodeDecoders({ wasmPath: new URL('file:///opt/decoders.wasm') });
  const compiled: WebAssembly.Module = await compiledDecoders('./decoders.wasm');
  new PSKLoader().setDecoderPath('/opt/rigscope/decoders.wasm').setWorkerLimit(4).dispose();
  console.log(compiled);
  const decoded = await decodeFiles([entryFromBytes('a.psk', new Uint8Array(4))], host);
  const json = sceneToJSON(await assembleScene(decoded));
  json.refused.map((r) => r.reason);
  const group = await new PSKLoader().setDecoder(host).parseAsync(new Uint8Array(4), 'a.psk');
  const { glb, problems } = await exportGLB(group.userData.characters, { decoder: host });
  console.log(glb.byteLength, problems.length);
}

export function element(): ViewerSnapshot {
  configureSharedPool({ workerLimit: 2 });
  const el = document.createElement('rigscope-viewer');
  const typed: RigscopeViewer = el;
  typed.src = 'hero.psk hero.psa';
  typed.addEventListener('load', (e) => console.log(e.detail.clips.map((c) => c.name)));
  typed.addEventListener('error', (e) =>
    console.log(
      e.detail.records.map((r) => r.kind),
      e.detail.messages[0]?.text,
    ),
  );
  typed.addEventListener('clipchange', (e) => console.log(e.detail.clip));
  typed.play();
  typed.currentTime = 0.5;
  typed.pause();
  console.log(RigscopeViewer.renderer.stats.contexts, RigscopeViewer.decoderPool.workerCount);
  return typed.snapshot();
}
