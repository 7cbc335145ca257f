// Package entry: `import { PSKLoader, PSALoader } from 'rigscope'`. The element is
// `import 'rigscope/viewer'`; the synchronous Node decoder host is `rigscope/node`.
export { PSKLoader, PSALoader, PMDLoader, PSSALoader, UE1Loader, PSGLoader, UPackageLoader, bindClips } from './three/loaders.js';
export { Character } from './three/character.js';
export { buildClip, buildGeometry, buildMaterials, buildMesh, buildSkeleton } from './three/build.js';
export { VertexAnimation } from './three/vertex-animation.js';
export { exportGLB } from './three/export.js';
export { DecoderClient, sharedDecoder } from './decoder/client.js';
export { DecoderPool } from './decoder/pool.js';
export { assembleScene, decodeFiles } from './families/index.js';
export { characterOf, sceneToJSON } from './core/scene.js';
export { describeRecord, isProblem } from './core/report.js';
export { entryFromBlob, entryFromBytes } from './core/files.js';
export { matchBonesByName, matchBonesByCount } from './core/match.js';
