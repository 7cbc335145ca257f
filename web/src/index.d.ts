// Types for the package entry (`import { PSKLoader } from 'rigscope'`). Checked in `npm test`:
// tests/types compiles a consumer against them, and tests/unit/types.test.js holds them to the
// names web/src/index.js really exports.
import {
  AnimationClip,
  AnimationMixer,
  Bone,
  BufferGeometry,
  Group,
  Loader,
  LoadingManager,
  Material,
  Mesh,
  Object3D,
  Skeleton,
  SkinnedMesh,
  Texture,
} from 'three';

// ---- the decoded model (what the WASM decoders return) ------------------------------------

export interface DecodedMaterial {
  name: string;
  textureNames: string[];
  twoSided: boolean;
  blend: 'opaque' | 'masked' | 'translucent' | 'modulated';
  unlit: boolean;
  hidden: boolean;
  guid?: string;
}
export interface Bounds {
  min: number[];
  max: number[];
  center: number[];
  radius: number;
}
export interface DecodedMesh {
  name: string;
  positions: Float32Array;
  normals?: Float32Array;
  uvs: Float32Array[];
  colors?: Uint8Array;
  indices: Uint32Array;
  groups: { start: number; count: number; material: number }[];
  skinIndex?: Uint16Array;
  skinWeight?: Float32Array;
  /** The rest pose's box and sphere, measured by the decoder. */
  bounds?: Bounds;
  /** With morph targets: the box and sphere three's computeBoundingBox/Sphere give them (relative targets). */
  morphedBounds?: Bounds;
  morphs: { name: string; positions: Float32Array; normals?: Float32Array }[];
}
export interface DecodedTrack {
  bone: number;
  times: Float32Array;
  translation?: Float32Array;
  rotation?: Float32Array;
  scale?: Float32Array;
}
export interface Notify {
  time: number;
  name: string;
}
export interface DecodedClip {
  name: string;
  fps: number;
  frameCount: number;
  duration: number;
  loop: boolean;
  tracks: DecodedTrack[];
  notifies?: Notify[];
}
export interface DecodedSkeleton {
  names: string[];
  parents: Int32Array;
  restTranslation: Float32Array;
  restRotation: Float32Array;
  restScale?: Float32Array;
  flat?: boolean;
  helperBone?: number;
}
export interface VertexSequence {
  name: string;
  group: string;
  startFrame: number;
  frameCount: number;
  rate: number;
  notifies?: Notify[];
}
export interface DecodedTexture {
  name: string;
  guid?: string;
  width: number;
  height: number;
  format: string;
  cube: boolean;
  mips: Uint8Array[];
}
export interface DecodedModel {
  format: string;
  name: string;
  warnings: string[];
  counts: Record<string, number>;
  info: Record<string, string>;
  /** How its animations bind: bone names or bone index and count. */
  bindBy?: 'name' | 'index' | string;
  meshes: DecodedMesh[];
  materials: DecodedMaterial[];
  skeleton?: DecodedSkeleton;
  clips: DecodedClip[];
  vertexAnimation?: { frameCount: number; vertexCount: number; frames: Float32Array; normals?: Float32Array; sequences: VertexSequence[] };
  attachments: { name: string; bone: number; translation: number[]; rotation: number[] }[];
  textures: DecodedTexture[];
  /** Added by decodeFiles(): the file's path, every input's path, the family and the drop number. */
  file?: string;
  files?: string[];
  family?: string;
  drop?: number;
}

// ---- files, the decode stage, the scene and its report -----------------------------------

export interface FileEntry {
  name: string;
  path: string;
  size: number;
  read(): Promise<ArrayBuffer>;
  readHead(bytes: number): Promise<ArrayBuffer>;
}
export function entryFromBlob(blob: Blob, path?: string): FileEntry;
export function entryFromBytes(path: string, bytes: ArrayBuffer | ArrayBufferView): FileEntry;

/** A report record: what happened to which files, and why, in data. */
export interface SceneRecord {
  kind: 'refused' | 'missing' | 'unused' | 'unbound' | 'paired' | 'bound' | 'part' | 'texture' | string;
  files: string[];
  via?: string;
  reason?: string;
  needs?: string;
  best?: string | null;
}
export function describeRecord(record: SceneRecord, options?: { paths?: boolean }): string;
export function isProblem(record: SceneRecord): boolean;

export interface TextureRecord {
  id: string;
  path: string;
  name: string;
  key: string;
  guid?: string;
  decoded?: DecodedTexture;
  drop: number;
}
export interface DecodedFileSet {
  models: DecodedModel[];
  animations: DecodedModel[];
  textures: TextureRecord[];
  texts: { path: string; name: string; kind: string }[];
  records: SceneRecord[];
}
/** Anything with the decoder's call surface: a DecoderPool, a DecoderClient, the Node host. */
export interface DecoderHost {
  call(op: string, args: unknown[]): Promise<any>;
  /** False when a call copies its input and never transfers (detaches) it: loaders then hand it the caller's bytes as they are. */
  transfersInput?: boolean;
}
export function decodeFiles(
  entries: FileEntry[],
  decoder: DecoderHost,
  options?: { onProgress?: (p: { done: number; total: number; name: string }) => void; drop?: number; isCancelled?: () => boolean },
): Promise<DecodedFileSet>;

export interface SceneClip {
  kind: 'skeletal' | 'vertex';
  name: string;
  frames: number;
  fps: number;
  loop: boolean;
  notifies: Notify[];
  file: string;
  firstFrame: number;
  speed?: number;
}
export interface SceneMaterial {
  model: DecodedModel;
  index: number;
  name: string;
  texture: TextureRecord | null;
  rule: string | null;
}
export interface SceneCharacter {
  id: string;
  name: string;
  host: DecodedModel;
  models: DecodedModel[];
  skeleton: DecodedSkeleton | null;
  clips: SceneClip[];
  materials: SceneMaterial[];
  props: { point: string; character: SceneCharacter }[];
  animations: { file: string; by: string; matched: number; total: number; clips: SceneClip[] }[];
  offset?: number[];
  hidden?: boolean;
}
export interface Scene {
  characters: SceneCharacter[];
  boards: { id: string; drop: number; textures: TextureRecord[] }[];
  records: SceneRecord[];
}
/**
 * `lod`: the level of detail shown of parts with levels (0 by default) or 'all'; `layout: false`
 * leaves every character where its file put it, with no `offset` or `hidden` (what the loaders do).
 */
export function assembleScene(
  decoded: DecodedFileSet,
  options?: { manual?: Map<string, string>; lod?: number | 'all'; layout?: boolean },
): Promise<Scene>;
export function characterOf(model: DecodedModel): SceneCharacter;
export function sceneToJSON(scene: Scene): {
  characters: object[];
  textureBoards: object[];
  unbound: { file: string; reason: string; best: string | null }[];
  unused: string[];
  refused: { file: string; reason: string }[];
  missing: { file: string; needs: string }[];
};

export interface MatchReport {
  file: string;
  target: string;
  total: number;
  matched: number;
  byIndex: boolean;
  missing: string[];
  extra: string[];
  error?: string;
}
export function matchBonesByName(
  skeletonNames: string[],
  animNames: string[],
): { map: Int32Array; byIndex: boolean; matched: number; missing: string[]; extra: string[] };
export function matchBonesByCount(
  skeletonCount: number,
  animCount: number,
  animFile: string,
  modelFile: string,
): { error?: string; map?: Int32Array; byIndex?: boolean; matched?: number };

// ---- three.js objects ----------------------------------------------------------------------

export interface CharacterClip {
  name: string;
  fps: number;
  frameCount: number;
  duration: number;
  lastTime: number;
  loop: boolean;
  source: string;
  kind: 'skeletal' | 'vertex';
  firstFrame: number;
  group?: string;
  notifies: Notify[];
  speed: number;
  /** The AnimationClip, built on first use, one per loop mode. */
  build(loop?: boolean): AnimationClip;
  /** Vertex clips: makes this sequence the one the mesh blends within. */
  select(loop?: boolean): void;
}

export class VertexAnimation {
  constructor(mesh: Mesh, data: NonNullable<DecodedModel['vertexAnimation']>);
  mesh: Mesh & { vertexFrame: number };
  data: NonNullable<DecodedModel['vertexAnimation']>;
  clipFor(sequence: VertexSequence, loop?: boolean): AnimationClip;
  setSequence(sequence: VertexSequence, loop?: boolean): void;
  update(): void;
}

export class Character {
  /** A scene character, or one decoded model (which becomes a character of its own). */
  constructor(source: SceneCharacter | DecodedModel);
  scene: SceneCharacter;
  name: string;
  models: DecodedModel[];
  root: Group;
  meshes: (Mesh | SkinnedMesh)[];
  materials: Material[];
  bones: Bone[];
  skeleton: Skeleton | null;
  clips: CharacterClip[];
  mixer: AnimationMixer;
  flat?: boolean;
  vertexAnimations: VertexAnimation[];
  attachments: { name: string; bone: number; node: Object3D }[];
  props: Character[];
  readonly boneSourceNames: string[];
  addAnimation(anim: DecodedModel): MatchReport;
  advance(dt: number): void;
  update(): void;
  tree(): Generator<Character>;
  dispose(): void;
}

export function buildSkeleton(skeleton: DecodedSkeleton): { bones: Bone[]; roots: Bone[] };
export function buildGeometry(mesh: DecodedMesh): BufferGeometry;
export function buildMaterials(materials: DecodedMaterial[]): Material[];
export function buildMesh(mesh: DecodedMesh, materials: Material[], skeleton?: Skeleton | null): Mesh | SkinnedMesh;
export function buildClip(clip: DecodedClip, bones: { name: string }[], map?: Int32Array | null, loop?: boolean): AnimationClip;

export function exportGLB(
  characters: Character[],
  options?: { clip?: string; decoder?: DecoderHost },
): Promise<{ glb: ArrayBuffer; problems: string[] }>;

// ---- decoders ------------------------------------------------------------------------------

export class DecoderClient implements DecoderHost {
  constructor(options?: { createWorker?: () => Worker });
  call(op: string, args: unknown[]): Promise<any>;
  readonly busy: boolean;
  cancel(reason?: string): void;
  dispose(): void;
}
/** The viewer page's one decoder worker. */
export function sharedDecoder(): DecoderClient;

export interface DecoderPoolOptions {
  /** Workers started at most (2 unless told). */
  workerLimit?: number;
  /** A folder holding a bundled decoder `worker.js` and `decoders.wasm`. */
  decoderPath?: string;
  /** The decoder worker script itself. */
  workerUrl?: string;
  createWorker?: () => Worker;
  /** A worker with nothing left to decode goes back to the page's spare ones at once (loaders' pools do). */
  lendIdle?: boolean;
}
export class DecoderPool implements DecoderHost {
  constructor(options?: DecoderPoolOptions);
  workerLimit: number;
  decoderPath: string;
  readonly workerCount: number;
  readonly pending: number;
  readonly disposed: boolean;
  setWorkerLimit(limit: number): this;
  setDecoderPath(path: string): this;
  call(op: string, args: unknown[]): Promise<any>;
  cancel(reason?: string): void;
  dispose(): void;
}

// ---- loaders -------------------------------------------------------------------------------

/** One file's bytes (text for scripts and sidecars), or several files as name → bytes. */
export type FileData = ArrayBuffer | ArrayBufferView | string;
export type LoaderData = FileData | Record<string, FileData> | Map<string, FileData>;

/** What a mesh loader resolves to: a Group with every clip, like FBXLoader's. */
export interface RigscopeGroup extends Group {
  animations: AnimationClip[];
  userData: {
    /** The Character behind the Group (not serialised): its clips, bones, mixer and update(). */
    readonly character: Character | null;
    readonly characters: Character[];
    /** A texture-only file (a PSG texture arena): its textures. */
    readonly textures?: Texture[];
    /** The scene's report: pairings, bindings, textures, and what was refused or missing. */
    records: SceneRecord[];
    [key: string]: any;
  };
}

declare class RigscopeLoader<TResult> extends Loader<TResult, string | string[]> {
  constructor(manager?: LoadingManager);
  decoderPath: string;
  workerLimit: number;
  /**
   * Where the decoder `worker.js` and `decoders.wasm` live, for bundlers that do not bundle
   * workers. In Node: another `decoders.wasm` (a file path, a `file:` URL, or a folder holding one).
   */
  setDecoderPath(path: string): this;
  /**
   * Decoder workers this loader starts at most (2 unless told). In Node: decode in that many
   * `worker_threads`; without it, Node decodes synchronously on one instance shared by all loaders.
   */
  setWorkerLimit(limit: number): this;
  /** Decode with another host (a shared DecoderPool, the Node host); dispose() leaves it alone. */
  setDecoder(decoder: DecoderHost): this;
  /** A URL, or several (a mesh with its animations, textures, scripts). */
  load(
    url: string | string[],
    onLoad: (result: TResult) => void,
    onProgress?: (event: ProgressEvent) => void,
    onError?: (err: unknown) => void,
  ): void;
  loadAsync(url: string | string[], onProgress?: (event: ProgressEvent) => void): Promise<TResult>;
  parse(data: LoaderData, path: string, onLoad: (result: TResult) => void, onError?: (err: unknown) => void): void;
  parse(data: LoaderData, onLoad: (result: TResult) => void, onError?: (err: unknown) => void): void;
  parseAsync(data: LoaderData, path?: string): Promise<TResult>;
  /** Ends this loader's own decoder workers; other loaders' decodes go on. */
  dispose(): this;
}

declare class MeshLoader extends RigscopeLoader<RigscopeGroup> {
  /** The level of detail shown of parts loaded with their levels: 0 (the finest, the default), N, or 'all'. */
  lod: number | 'all';
  /**
   * Which level of detail a part loaded with its levels (UE Viewer's `X`, `X_Lod1`…; FModel's
   * `X_LOD0`…) shows: 0 the finest, N (a part with fewer levels shows its coarsest), or 'all':
   * every level a mesh of its own, named `X LODN`. Throws a RangeError for anything else.
   */
  setLod(lod: number | 'all'): this;
}

declare class AnimationLoader extends RigscopeLoader<AnimationClip[]> {
  target: Object3D | Skeleton | Bone[] | null;
  /** The model the clips are for: a mesh loader's Group, any SkinnedMesh or Object3D with bones, a Skeleton or Bone[]. */
  setTarget(target: Object3D | Skeleton | Bone[] | null): this;
}

export class PSKLoader extends MeshLoader {}
export class PSALoader extends AnimationLoader {}
export class PMDLoader extends MeshLoader {}
export class PSSALoader extends AnimationLoader {}
export class UE1Loader extends MeshLoader {}
export class PSGLoader extends MeshLoader {}
/**
 * Unreal Engine 1 packages (`.u`, `.utx`, `.umx`, `.uax`, `.unr`): every mesh of the package in one
 * Group (or the one `setMesh` names), textures found in the packages passed with it; a texture
 * package alone gives an empty Group with `userData.textures`.
 */
export class UPackageLoader extends MeshLoader {
  /** The mesh asked for (its name or `Package.Group.Name`), or null for every mesh. */
  mesh: string | null;
  /** Decodes and gives only this mesh: its name or `Package.Group.Name`, case-insensitive; null for all. */
  setMesh(name: string | null): this;
}

/** Re-binds clips an animation loader made to another target. */
export function bindClips(clips: AnimationClip[], target: Object3D | Skeleton | Bone[]): AnimationClip[];
