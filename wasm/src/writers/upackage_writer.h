// Writer for small UE1 packages (spec: shared/specs/ue1-package.md): vertex meshes (Mesh with its
// triangles, or LodMesh with wedges/faces/materials), skeletal meshes, P8 textures with their
// palettes, procedural textures. Test fixtures, fuzz seeds, and hostile variants (the layout says
// where the fields a test corrupts are).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace rs {

struct UpkWriteSequence {
  std::string name, group;  // group "" -> None
  int32_t startFrame = 0, numFrames = 1;
  float rate = 30;
  std::vector<std::pair<float, std::string>> notifies;  // Time (fraction), Function
};

struct UpkWriteTriangle {
  uint16_t v[3] = {0, 0, 0};
  uint8_t uv[3][2] = {{0, 0}, {0, 0}, {0, 0}};
  uint32_t polyFlags = 0;
  int32_t textureIndex = 0;
};

// A texture slot: "" (none), the name of a texture written in this package, or Package.Group.Name
// of a texture in another package (written as imports).
struct UpkWriteVertexMesh {
  std::string name, group;  // group "" = top level
  bool lod = false;         // LodMesh: triangles become wedges (one per distinct vertex+UV), faces, materials
  bool dx16 = false;        // 8-byte Deus Ex vertices instead of packed 11:11:10
  uint32_t frameVerts = 0;
  std::vector<int32_t> xyz;  // frame-major raw positions, 3 per vertex
  std::vector<UpkWriteTriangle> triangles;
  std::vector<std::string> textures;
  float scale[3] = {1, 1, 1}, origin[3] = {0, 0, 0};
  int32_t rotOrigin[3] = {0, 0, 0};  // 65536 a turn
  std::vector<UpkWriteSequence> sequences;
};

struct UpkWriteBone {
  std::string name;
  float orientation[4] = {0, 0, 0, 1};
  float position[3] = {0, 0, 0};
  int32_t parent = 0;
};

struct UpkWriteSkeletalMesh {
  std::string name, group;
  std::vector<float> points;  // xyz
  struct Wedge {
    uint16_t point = 0;
    uint8_t u = 0, v = 0;
  };
  std::vector<Wedge> wedges;
  struct Face {
    uint16_t wedge[3] = {0, 0, 0};
    uint16_t material = 0;
  };
  std::vector<Face> faces;
  std::vector<std::pair<uint32_t, int32_t>> materials;  // PolyFlags, TextureIndex
  std::vector<std::string> textures;
  std::vector<UpkWriteBone> bones;
  struct Weight {
    uint16_t point = 0, bone = 0;
    float weight = 1;
  };
  std::vector<Weight> weights;
};

struct UpkWriteTexture {
  std::string name, group;
  std::string className = "Texture";  // or FireTexture (0-byte mip 0), ...
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> indices;  // P8, row-major; empty for a procedural texture
  std::vector<uint8_t> palette;  // 256 × RGBA; written as a Palette export "<name>Pal"
  bool masked = false;
  bool mips = true;     // the whole chain down to 1 × n, else mip 0 alone
  uint32_t sparks = 0;  // FireTexture
};

// Animation (UT v436): RefBones, one MotionChunk and one AnimSeqs entry per sequence, one
// AnalogTrack per bone (KeyTime in frames).
struct UpkWriteAnimation {
  std::string name, group;
  std::vector<std::pair<std::string, int32_t>> bones;  // name, ParentIndex
  struct BoneKeys {
    std::vector<float> quat;  // xyzw per key
    std::vector<float> pos;   // xyz per key
    std::vector<float> time;  // frames
  };
  struct Sequence {
    std::string name;
    int32_t numFrames = 1;
    float rate = 30, trackTime = 0;
    std::vector<std::pair<float, std::string>> notifies;
    std::vector<BoneKeys> tracks;  // one per bone
  };
  std::vector<Sequence> sequences;
};

struct UpkWritePackage {
  uint16_t version = 69;
  std::vector<UpkWriteVertexMesh> meshes;
  std::vector<UpkWriteSkeletalMesh> skeletalMeshes;
  std::vector<UpkWriteTexture> textures;
  std::vector<UpkWriteAnimation> animations;
};

// Where the fields hostile tests corrupt were written (file offsets).
struct UpkLayout {
  size_t nameOffset = 0, importOffset = 0, exportOffset = 0;
  std::vector<size_t> importOuterAt;  // each import's Outer INT
  struct Object {
    std::string name, className;
    uint32_t exportIndex = 0;
    size_t offset = 0, size = 0;  // SerialOffset, SerialSize
    size_t serialSizeAt = 0;      // the export table's SerialSize field
    size_t vertsSkipAt = 0;       // meshes: the Verts SkipPos
    size_t texturesCountAt = 0;   // meshes: the Textures count
  };
  std::vector<Object> objects;
  const Object* find(const std::string& name) const {
    for (const Object& o : objects)
      if (o.name == name) return &o;
    return nullptr;
  }
};

std::vector<uint8_t> writeUpackage(const UpkWritePackage& p, UpkLayout* layout = nullptr);

}  // namespace rs
