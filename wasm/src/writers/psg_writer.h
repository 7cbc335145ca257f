// Writes Skate 3 PS3 RenderWare 4 arenas (.psg) following spec §10, for tests, fixtures and fuzz
// seeds: model arenas (RenderModelData, optimeshes with islands and bone palettes, materials with
// texture GUIDs, optionally textures) and texture arenas (DXT1/3/5, A8R8G8B8, mips, cube maps).
// A single skinned mesh with one island reproduces the layout of the synthetic samples byte for byte.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace rs {

// RSX vertex types and attribute slots (spec §7.6).
namespace psgv {
enum Type : uint8_t { S1 = 1, F = 2, SF = 3, UB = 4, S32K = 5, CMP = 6, UB256 = 7 };
enum Slot : uint8_t {
  XYZ = 0,
  BLENDWEIGHT = 1,
  NORMAL = 2,
  COLOR0 = 3,
  BLENDINDICES = 7,
  TEX0 = 8,
  TEX1 = 9,
  TANGENT = 14
};
}  // namespace psgv

struct PsgElementIn {
  uint8_t type = psgv::F;
  uint8_t count = 3;
  uint8_t slot = psgv::XYZ;
  int offset = -1;  // -1: next 4-byte boundary after the previous element
};

struct PsgMeshIn {
  std::vector<PsgElementIn> layout;
  int stride = -1;                      // -1: 4-aligned end of the last element
  std::vector<float> positions;         // xyz per vertex, game space (Y up)
  std::vector<float> normals;           // xyz per vertex
  std::vector<std::vector<float>> uvs;  // per TEXn slot: uv per vertex, file convention (v down)
  std::vector<uint8_t> colors;          // RGBA per vertex
  std::vector<float> tangents;          // xyzw per vertex
  std::vector<uint8_t> skinSlots;       // 4 palette slots per vertex
  std::vector<float> skinWeights;       // 4 weights per vertex (0..1)
  std::vector<uint16_t> palette;        // slot -> bone
  std::vector<uint32_t> indices;        // triangle list, CCW
  std::vector<uint32_t> islands;        // index count per island (empty: one island)
  int material = 0;                     // index into PsgModelIn::materials, -1 = none
  float positionScale = 1.0f / 256.0f;  // S1/S32K positions store round(x / scale)
  uint8_t indexSize = 2;
  uint8_t primType = 5;
};

struct PsgChannelIn {
  std::string input;  // "diffuse", "specular", "Name", ...
  uint64_t guid = 0;
  std::string stream;  // empty: "0x<guid>.Texture"
};

struct PsgMaterialIn {
  std::vector<PsgChannelIn> channels;
};

struct PsgBoneIn {
  std::string name;
  float ibp[16];  // inverse bind matrix, file order (row-vector, translation in floats 12..14)
};

struct PsgTextureIn {
  uint64_t guid = 0;
  std::string name;       // TOC name; empty: "0x<guid>.Texture"
  uint8_t format = 0x86;  // 0x86 DXT1, 0x87 DXT3, 0x88 DXT5, 0x85 A8R8G8B8 (swizzled), 0xA5 linear
  uint16_t width = 0, height = 0;
  bool cube = false;
  // Per level (level 0 first): DXT blocks as they go to the GPU, or RGBA8 rows top-down;
  // for cubes the 6 faces concatenated (+X, -X, +Y, -Y, +Z, -Z).
  std::vector<std::vector<uint8_t>> levels;
};

struct PsgModelIn {
  std::string name = "model";  // TOC name of the RenderModelData
  uint64_t guid = 0x0123456789ABCDEFull;
  uint32_t arenaId = 0x5EED5EED;
  std::vector<PsgBoneIn> bones;
  std::vector<PsgMaterialIn> materials;
  std::vector<PsgMeshIn> meshes;
  std::vector<PsgTextureIn> textures;  // stored in the same arena after the model
};

std::vector<uint8_t> writePsgModel(const PsgModelIn& model);
std::vector<uint8_t> writePsgTextures(const std::vector<PsgTextureIn>& textures, uint32_t arenaId = 0x5EED5EED);

// The fuzz_psg_texture layout (writers/fuzz_input.h, two parts): a valid 4×4 DXT1 texture arena
// whose Texture object starts with `object` (its first 40 bytes: format, mips, size, cube, buffer
// reference; zero-filled when shorter) and whose graphics block is `payload`, sizes fixed.
std::vector<uint8_t> psgTextureArenaSpliced(const uint8_t* object, size_t objectSize, const uint8_t* payload,
                                            size_t payloadSize);

// Byte size of a texture level (DXT blocks or 4 bytes per texel), for building inputs.
size_t psgLevelBytes(uint8_t format, uint32_t width, uint32_t height, uint32_t level);
// IEEE half from float (round to nearest even), as the SF vertex type stores it.
uint16_t psgHalf(float f);
// Identity inverse bind matrix with a translation (row-vector form: translation in row 3).
PsgBoneIn psgBone(const std::string& name, float tx = 0, float ty = 0, float tz = 0);

}  // namespace rs
