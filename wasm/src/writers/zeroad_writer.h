// Writers for 0 A.D. PMD (versions 1-4) and PSA (PSSA) files from plain in-memory descriptions,
// for round-trip tests, fixtures and fuzz seeds. Values are written as given, in game space
// (left-handed, Y up); nothing is converted. Layout: shared/specs/zeroad-pmd-psa.md §1-§3.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace rs {

struct ZeroadBoneState {
  float translation[3] = {0, 0, 0};
  float rotation[4] = {0, 0, 0, 1};  // x, y, z, w
};

struct ZeroadProp {
  std::string name;
  float translation[3] = {0, 0, 0};
  float rotation[4] = {0, 0, 0, 1};
  uint8_t bone = 0xFF;  // 0xFF = model origin
};

struct PmdDesc {
  uint32_t version = 4;             // 1..4 (anything >= 4 uses the v4 layout)
  uint32_t uvSets = 1;              // written for v4 only; v1-v3 always hold exactly 1;
                                    // above 256 the count is written but no UV floats
  std::vector<float> positions;     // 3 per vertex (v1/v2: relative to the vertex's bone)
  std::vector<float> normals;       // 3 per vertex (zeros if empty)
  std::vector<float> uvs;           // 2 * uvSets per vertex, vertex-major (zeros if empty)
  std::vector<uint8_t> blendBones;  // 4 per vertex (0xFF x4 if empty)
  std::vector<float> blendWeights;  // 4 per vertex
  std::vector<uint16_t> indices;    // 3 per face
  std::vector<ZeroadBoneState> bones;
  std::vector<ZeroadProp> props;  // written for v2+ only
  // Hostile-input knobs: a payloadSize to write instead of the true one, and raw count overrides.
  bool overridePayloadSize = false;
  uint32_t payloadSize = 0;
  bool overrideCounts = false;
  uint32_t numVertices = 0, numFaces = 0, numBones = 0, numProps = 0;
};

struct PssaDesc {
  uint32_t version = 1;
  std::string name;
  float frameLength = 1000.0f / 30.0f;  // milliseconds
  uint32_t bones = 0;
  uint32_t frames = 0;
  std::vector<ZeroadBoneState> keys;  // frame-major: keys[f * bones + b]
  bool overrideCounts = false;        // write `bones`/`frames` even when `keys` is shorter
};

std::vector<uint8_t> writePmd(const PmdDesc& d);
std::vector<uint8_t> writePssa(const PssaDesc& d);

// Turns model-space positions and normals into the v1/v2 bone-relative form: each vertex is
// expressed in the frame of its first blend bone (p' = R^-1 (p - t), n' = R^-1 n). Exact for
// single-influence vertices, which is all the old exporter wrote.
void makeBoneRelative(PmdDesc& d);

// The fixtures write_zeroad_fixtures writes (and zeroad_test checks); exact values are documented
// in wasm/tools/write_zeroad_fixtures.cpp.
PmdDesc zeroadArmModel();    // arm.pmd: v4, 3 bones, 112-vertex box, props prop_hand, prop_head
PssaDesc zeroadArmWave();    // arm_wave.psa: 3 bones, 20 frames of 33.3 ms, bone 2 turns 5 deg/frame
PssaDesc zeroadArmBad();     // arm_bad.psa: 4 bones (refused with arm.pmd)
PmdDesc zeroadOldV1Model();  // old_v1.pmd: v1, 2 bones, 48-vertex box stored bone-relative

}  // namespace rs
