// Small UE1 packages made by the writer, the same everywhere they are used: the native tests' round
// trips, the fixtures (write_upackage_fixtures) and from those the fuzzer's seeds.
#include "writers/upackage_examples.h"

namespace rs {

// A 4-vertex, 2-triangle mesh over `frames` frames; every frame moves the apex.
UpkWriteVertexMesh exampleQuad(const std::string& name, bool lod, bool dx16, uint32_t frames) {
  UpkWriteVertexMesh m;
  m.name = name;
  m.lod = lod;
  m.dx16 = dx16;
  m.frameVerts = 4;
  for (uint32_t f = 0; f < frames; ++f) {
    const int32_t s = int32_t(f) * 7;
    const int32_t v[4][3] = {{-100, -50, 0}, {100 + s, -50, 10}, {100, 50, -20 - s}, {-100, 50, 30 + s}};
    for (const auto& p : v) m.xyz.insert(m.xyz.end(), p, p + 3);
  }
  UpkWriteTriangle a, b;
  a.v[0] = 0, a.v[1] = 1, a.v[2] = 2;
  a.uv[0][0] = 0, a.uv[0][1] = 0, a.uv[1][0] = 255, a.uv[1][1] = 0, a.uv[2][0] = 255, a.uv[2][1] = 255;
  b.v[0] = 0, b.v[1] = 2, b.v[2] = 3;
  b.uv[0][0] = 0, b.uv[0][1] = 0, b.uv[1][0] = 255, b.uv[1][1] = 255, b.uv[2][0] = 0, b.uv[2][1] = 200;
  b.polyFlags = 0x100;  // two-sided
  b.textureIndex = 1;
  m.triangles = {a, b};
  m.scale[0] = 0.5f, m.scale[1] = 0.25f, m.scale[2] = 2.0f;
  m.origin[0] = 4, m.origin[1] = -8, m.origin[2] = 16;
  m.rotOrigin[1] = 16384;  // a quarter turn of yaw: YAW=64 in the .uc
  UpkWriteSequence all, walk;
  all.name = "All";
  all.numFrames = int32_t(frames);
  walk.name = "Walk";
  walk.group = "Moving";
  walk.startFrame = 1;
  walk.numFrames = int32_t(frames) - 1;
  walk.rate = 10;
  walk.notifies = {{0.5f, "PlayFootStep"}};
  m.sequences = {all, walk};
  m.textures = {"Skin0", "Skin1"};
  return m;
}

UpkWriteTexture exampleTexture(const std::string& name, const std::string& group, uint32_t w, uint32_t h, bool masked) {
  UpkWriteTexture t;
  t.name = name;
  t.group = group;
  t.width = w;
  t.height = h;
  for (uint32_t i = 0; i < w * h; ++i) t.indices.push_back(uint8_t(i % 7));
  for (int i = 0; i < 256; ++i) t.palette.insert(t.palette.end(), {uint8_t(i), uint8_t(255 - i), uint8_t(i * 3), 255});
  t.masked = masked;
  return t;
}

UpkWritePackage examplePackage(uint16_t version, bool lod, bool dx16) {
  UpkWritePackage p;
  p.version = version;
  p.textures.push_back(exampleTexture("Skin0", "", 8, 4, false));
  p.textures.push_back(exampleTexture("Skin1", "Skins", 16, 16, true));
  p.meshes.push_back(exampleQuad("Quad", lod, dx16, 3));
  return p;
}

// A Deus Ex character as mods ship one: a LodMesh of 8-byte vertices with 72 sequences of 4 frames
// (the apex swings out and back in each), beside a larger prop of one frame, so the animated one,
// not the largest, is the package's character.
UpkWritePackage exampleCharacterPackage() {
  constexpr uint32_t kSequences = 72, kFramesEach = 4;
  UpkWritePackage p = examplePackage(68, true, true);
  UpkWriteVertexMesh& hero = p.meshes[0];
  hero.name = "Trooper";
  hero.xyz.clear();
  hero.sequences.clear();
  for (uint32_t f = 0; f < kSequences * kFramesEach; ++f) {
    const int32_t s = int32_t(f % kFramesEach) * 40;
    const int32_t v[4][3] = {{-100, -50, 0}, {100 + s, -50, 10 + s}, {100, 50, -20}, {-100, 50, 30}};
    for (const auto& q : v) hero.xyz.insert(hero.xyz.end(), q, q + 3);
  }
  for (uint32_t i = 0; i < kSequences; ++i) {
    UpkWriteSequence seq;
    seq.name = "Seq" + std::to_string(100 + i).substr(1);  // Seq00 .. Seq71
    seq.startFrame = int32_t(i * kFramesEach);
    seq.numFrames = int32_t(kFramesEach);
    seq.rate = 8;
    hero.sequences.push_back(seq);
  }
  UpkWriteVertexMesh prop = exampleQuad("Crate", true, true, 1);
  prop.scale[0] = prop.scale[1] = prop.scale[2] = 3;
  prop.sequences.resize(1);  // All, one frame
  p.meshes.push_back(prop);
  return p;
}

}  // namespace rs
