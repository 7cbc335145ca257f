// Package entry: `import { PSKLoader, PSALoader } from 'rigscope'`.
export { PSKLoader, PSALoader, PMDLoader, PSSALoader, UE1Loader, PSGLoader } from './three/loaders.js';
export { Character } from './three/character.js';
export { buildClip, buildGeometry, buildMaterials, buildMesh, buildSkeleton } from './three/build.js';
export { VertexAnimation } from './three/vertex-animation.js';
export { DecoderClient, sharedDecoder } from './decoder/client.js';
export { matchBonesByName, matchBonesByCount } from './core/match.js';
export { loadFileSet } from './core/fileset.js';
export { exportGLB } from './three/export.js';
