// The neutral decoded model: the contract between the C++ decoders and JavaScript.
// Everything here is already in three.js space: right-handed, Y up, counter-clockwise front faces,
// UV origin at the bottom left (three's default flipY). Nothing in web/ knows a file format.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace rs {

struct Group {
  uint32_t start = 0;  // first index (not triangle)
  uint32_t count = 0;  // number of indices
  uint32_t material = 0;
};

struct Morph {
  std::string name;
  std::vector<float> positions;  // deltas from the base mesh, 3 per vertex (three's morphTargetsRelative)
  std::vector<float> normals;    // deltas, optional
};

struct Mesh {
  std::string name;
  std::vector<float> positions;         // xyz per vertex
  std::vector<float> normals;           // xyz per vertex, optional
  std::vector<std::vector<float>> uvs;  // uv per vertex, per set
  std::vector<uint8_t> colors;          // RGBA8 per vertex, optional (sRGB as authored)
  std::vector<uint32_t> indices;        // triangles, CCW
  std::vector<Group> groups;
  std::vector<uint16_t> skinIndex;  // 4 per vertex, optional
  std::vector<float> skinWeight;    // 4 per vertex, sum 1
  std::vector<Morph> morphs;
};

enum class Blend { Opaque, Masked, Translucent, Modulated };

struct Material {
  std::string name;
  std::vector<std::string> textureNames;  // candidates, best first
  bool twoSided = false;
  Blend blend = Blend::Opaque;
  bool unlit = false;
  bool hidden = false;  // e.g. UE1 weapon triangle, PSK invisible placeholder
  bool environment = false;
  bool flat = false;
  std::string guid;  // PSG: texture GUID (hex) the material refers to
};

struct Skeleton {
  std::vector<std::string> names;
  std::vector<int32_t> parents;        // -1 = root
  std::vector<float> restTranslation;  // xyz, local to parent
  std::vector<float> restRotation;     // xyzw, local to parent
  std::vector<float> restScale;        // xyz, optional
  bool flat = false;                   // every bone hangs off the root (0 A.D.): draw joints, not bones
  int32_t helper = -1;                 // a bone that is no joint (0 A.D. bind shape), or -1
};

struct Track {
  int32_t bone = 0;                // index into the model's skeleton (or BONENAMES for a PSA)
  std::vector<float> times;        // seconds
  std::vector<float> translation;  // xyz per key, optional
  std::vector<float> rotation;     // xyzw per key, optional, hemisphere-consistent
  std::vector<float> scale;        // xyz per key, optional
};

// A named event at a time of a clip or sequence (UE1 #exec MESH NOTIFY: the script function).
struct Notify {
  double time = 0;  // seconds from the start
  std::string name;
};

// Exactly the file's frames: key k at k / fps, and duration = frameCount / fps is the loop period.
// A player looping the clip adds the wrap back to key 0 itself.
struct Clip {
  std::string name;
  double fps = 30;
  uint32_t frameCount = 0;
  double duration = 0;  // seconds
  bool loop = true;
  std::vector<Track> tracks;
  std::vector<Notify> notifies;  // by time
};

struct VertexSequence {
  std::string name;
  std::string group;
  uint32_t startFrame = 0;
  uint32_t frameCount = 0;
  double rate = 30;              // frames per second
  std::vector<Notify> notifies;  // by time
};

struct VertexAnimation {
  uint32_t frameCount = 0;
  uint32_t vertexCount = 0;
  std::vector<float> frames;   // frame-major xyz, already in three space
  std::vector<float> normals;  // frame-major xyz, optional
  std::vector<VertexSequence> sequences;
};

struct Attachment {
  std::string name;
  int32_t bone = -1;  // -1 = model root
  float translation[3] = {0, 0, 0};
  float rotation[4] = {0, 0, 0, 1};
};

struct Texture {
  std::string name;
  std::string guid;  // PSG texture GUID (hex), empty otherwise
  uint32_t width = 0, height = 0;
  std::string format;  // "rgba8", "dxt1", "dxt3", "dxt5"
  bool cube = false;
  std::vector<std::vector<uint8_t>> mips;  // level 0 first (faces concatenated for cubes)
};

struct Model {
  std::string format;  // "psk", "psa", "pmd", "pssa", "ue1", "psg", "pcx"
  std::string name;
  // How animations find their target: "name" (bone names: PSK, PSA), "index" (bone index, counts
  // must match: PMD, PSSA), "script" (the _a.3d and .uc travel with the UE1 mesh), "guid" (PSG).
  // Empty for a texture on its own (PCX).
  std::string bindBy;
  std::vector<std::string> warnings;
  std::vector<std::pair<std::string, double>> counts;  // format's own words: points, wedges, ...
  std::vector<Mesh> meshes;
  std::vector<Material> materials;
  bool hasSkeleton = false;
  Skeleton skeleton;
  std::vector<Clip> clips;
  bool hasVertexAnimation = false;
  VertexAnimation vertexAnimation;
  std::vector<Attachment> attachments;
  std::vector<Texture> textures;
  std::vector<std::pair<std::string, std::string>> info;  // other facts for the CLI/info panel

  void count(const char* key, double value) { counts.emplace_back(key, value); }
};

}  // namespace rs
