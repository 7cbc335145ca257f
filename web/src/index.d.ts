// Type declarations for the package entry (`import { PSKLoader } from 'rigscope'`).
import { AnimationClip, AnimationMixer, Bone, Group, Loader, LoadingManager, Material, Mesh, Object3D, Skeleton, SkinnedMesh } from 'three';

export interface DecodedMaterial { name: string; textureNames: string[]; twoSided: boolean; blend: 'opaque' | 'masked' | 'translucent' | 'modulated'; unlit: boolean; hidden: boolean; guid?: string }
export interface DecodedMesh {
  name: string; positions: Float32Array; normals?: Float32Array; uvs: Float32Array[]; colors?: Uint8Array;
  indices: Uint32Array; groups: { start: number; count: number; material: number }[];
  skinIndex?: Uint16Array; skinWeight?: Float32Array; morphs: { name: string; positions: Float32Array; normals?: Float32Array }[];
}
export interface DecodedTrack { bone: number; times: Float32Array; translation?: Float32Array; rotation?: Float32Array; scale?: Float32Array }
export interface DecodedClip { name: string; fps: number; frameCount: number; duration: number; loop: boolean; tracks: DecodedTrack[] }
export interface DecodedSkeleton { names: string[]; parents: Int32Array; restTranslation: Float32Array; restRotation: Float32Array; restScale?: Float32Array }
export interface DecodedModel {
  format: string; name: string; file?: string; warnings: string[]; counts: Record<string, number>; info: Record<string, string>;
  meshes: DecodedMesh[]; materials: DecodedMaterial[]; skeleton?: DecodedSkeleton; clips: DecodedClip[];
  vertexAnimation?: { frameCount: number; vertexCount: number; frames: Float32Array; normals?: Float32Array; sequences: { name: string; group: string; startFrame: number; frameCount: number; rate: number }[] };
  attachments: { name: string; bone: number; translation: number[]; rotation: number[] }[];
  textures: { name: string; guid?: string; width: number; height: number; format: string; cube: boolean; mips: Uint8Array[] }[];
}
export interface MatchReport { file: string; target: string; total: number; map: Int32Array; byIndex: boolean; matched: number; missing: string[]; extra: string[]; error?: string }
export interface ClipEntry { name: string; fps: number; frameCount: number; duration: number; loop: boolean; source: string; kind: 'skeletal' | 'vertex'; firstFrame: number; build(): AnimationClip }

export class Character {
  constructor(model: DecodedModel);
  name: string; models: DecodedModel[]; root: Group; meshes: (Mesh | SkinnedMesh)[]; materials: Material[];
  bones: Bone[]; skeleton: Skeleton | null; clips: ClipEntry[]; matchReports: MatchReport[]; mixer: AnimationMixer;
  attachments: { name: string; bone: number; node: Object3D }[];
  canShare(model: DecodedModel): boolean;
  addPart(model: DecodedModel): void;
  addAnimation(anim: DecodedModel): MatchReport;
  update(): void;
  dispose(): void;
}

export class DecoderClient {
  constructor(options?: { createWorker?: () => Worker });
  call(op: string, args: unknown[]): Promise<any>;
  cancel(reason?: string): void;
  dispose(): void;
}
export function sharedDecoder(): DecoderClient;

declare class RigscopeLoader<T> extends Loader<T> {
  constructor(manager?: LoadingManager);
  setDecoder(decoder: DecoderClient): this;
  dispose(): void;
}
export class PSKLoader extends RigscopeLoader<Character> { parse(buffer: ArrayBuffer, name?: string): Promise<Character> }
export class PSALoader extends RigscopeLoader<DecodedModel> { parse(buffer: ArrayBuffer, name?: string, config?: string): Promise<DecodedModel> }
export class PMDLoader extends RigscopeLoader<Character> { parse(buffer: ArrayBuffer, name?: string): Promise<Character> }
export class PSSALoader extends RigscopeLoader<DecodedModel> { parse(buffer: ArrayBuffer, name?: string): Promise<DecodedModel> }
export class UE1Loader extends RigscopeLoader<Character> { parse(data: ArrayBuffer, anim: ArrayBuffer, uc?: string, dataName?: string, animName?: string, ucName?: string): Promise<Character> }
export class PSGLoader extends RigscopeLoader<Character | DecodedModel> { parse(buffer: ArrayBuffer, name?: string): Promise<Character | DecodedModel> }

export function matchBonesByName(skeletonNames: string[], animNames: string[]): Omit<MatchReport, 'file' | 'target' | 'total'>;
export function matchBonesByCount(skeletonCount: number, animCount: number, animFile: string, modelFile: string): Partial<MatchReport>;
export function buildSkeleton(skeleton: DecodedSkeleton): { bones: Bone[]; roots: Bone[] };
export function buildClip(clip: DecodedClip, bones: Bone[], map?: Int32Array | null): AnimationClip;
export function exportGLB(characters: Character[]): Promise<ArrayBuffer>;
