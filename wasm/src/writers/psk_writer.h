// Writes ActorX .psk/.pskx/.psa files (and the UE Viewer .config sidecar) from a plain in-memory
// description. Used by tests, fixtures, the demo, fuzz seeds and benchmarks; never in the WASM.
// Everything is in the FILE frame (right-handed Z-up, clockwise faces, top-down V, non-root bone
// quaternions stored conjugated) — the writer stores values as given.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace rs {
namespace psk {

struct Wedge {
  uint32_t point = 0;
  float u = 0, v = 0;
  uint8_t material = 0;
};

struct Face {
  uint32_t wedge[3] = {0, 0, 0};
  uint8_t material = 0;
  uint8_t auxMaterial = 0;
  uint32_t smoothing = 1;
};

struct Material {
  std::string name;
  uint32_t polyFlags = 0;
  int32_t textureIndex = 0;
};

struct Bone {
  std::string name;
  int32_t parent = 0;  // ActorX: root's parent is 0 (CUE4Parse: -1)
  int32_t numChildren = 0;
  uint32_t flags = 0;
  float rotation[4] = {0, 0, 0, 1};  // x y z w, as stored
  float position[3] = {0, 0, 0};
  float length = 0;
  float size[3] = {0, 0, 0};
};

struct Weight {
  float weight = 1;
  int32_t point = 0;
  int32_t bone = 0;
};

struct MorphDelta {
  float position[3] = {0, 0, 0};  // un-mirrored Unreal space (the decoder negates y)
  float tangentZ[3] = {0, 0, 0};
  int32_t point = 0;
};

struct MorphTarget {
  std::string name;
  std::vector<MorphDelta> deltas;
};

struct Socket {
  std::string name;
  std::string bone;
  float location[3] = {0, 0, 0};
  float rotator[3] = {0, 0, 0};  // pitch, yaw, roll (degrees)
  float scale[3] = {1, 1, 1};
};

struct Mesh {
  std::vector<float> points;  // xyz
  std::vector<Wedge> wedges;
  std::vector<Face> faces;
  std::vector<Material> materials;
  std::vector<Bone> bones;
  std::vector<Weight> weights;
  std::vector<std::vector<float>> extraUvs;  // uv per wedge, per set
  std::vector<uint8_t> colors;               // 4 bytes per wedge, written as given
  std::vector<float> normals;                // xyz per point (VTXNORMS)
  std::vector<MorphTarget> morphs;
  std::vector<Socket> sockets;
};

struct MeshOptions {
  bool face32 = false;                 // FACE3200, 18-byte packed records (else FACE0000)
  uint16_t pointIndexJunk = 0;         // ORed into the high 16 bits of every wedge point index
  bool repeatHeader = false;           // a second ACTRHEAD right after the first
  uint32_t typeFlag = 20100422;        // ACTRHEAD TypeFlag
  bool typeFlagEverywhere = false;     // stamp it into every chunk header (psk_psa_py, HP2 files)
  bool padNamesWithSpaces = false;     // name fields padded with ' ' instead of NUL
  int32_t socketDataSize = 164;        // declared SKELSOCK DataSize (CUE4Parse declared 138 or 168)
  bool skeletonChunks = true;          // write REFSKELT/RAWWEIGHTS even when empty (UE Viewer static layout)
  bool normalsAfterMaterials = false;  // FModel's VTXNORMS placement
  const char* extraUvId = "EXTRAUVS";  // set index appended ("EXTRAUV" = io_scene_psk_psa)
  bool unknownChunk = false;           // insert an unknown chunk before the faces
};

std::vector<uint8_t> writePsk(const Mesh& mesh, const MeshOptions& options = MeshOptions());

struct Key {
  float position[3] = {0, 0, 0};
  float rotation[4] = {0, 0, 0, 1};  // as stored (non-root conjugated)
  float time = 1;
};

struct Sequence {
  std::string name;
  std::string group = "None";
  float fps = 30;
  uint32_t frames = 0;
  std::vector<Key> keys;         // frames * bones, frame-major
  std::vector<float> scaleKeys;  // frames * bones * 3, or empty
  int32_t firstRawFrame = -1;    // -1: the running sum (correct); else written as given
  int32_t totalBones = -1;       // -1: bone count
};

struct Animation {
  std::vector<Bone> bones;
  std::vector<Sequence> sequences;
};

struct AnimOptions {
  uint32_t typeFlag = 20100422;
  bool typeFlagEverywhere = false;
  bool padNamesWithSpaces = false;
  bool emptyScaleChunk = true;  // UE Viewer writes SCALEKEYS 16x0 when no sequence has scale keys
  bool curveChunk = false;      // append an ActorX Maya "<seq>:CUR" chunk for the first sequence
};

// SCALEKEYS holds the scale keys of the sequences that have them, concatenated (ActorX style).
std::vector<uint8_t> writePsa(const Animation& anim, const AnimOptions& options = AnimOptions());

struct ConfigRemoval {
  std::string sequence;
  int32_t bone = 0;
  std::string what = "all";  // trans | rot | all
};

struct Config {
  bool rotationOnly = false;
  std::vector<std::string> useTranslation;
  std::vector<std::string> forceMeshTranslation;
  std::vector<ConfigRemoval> removeTracks;
};

std::string writePsaConfig(const Config& config);

}  // namespace psk
}  // namespace rs
