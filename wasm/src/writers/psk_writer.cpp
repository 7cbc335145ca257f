#include "writers/psk_writer.h"

#include "writers/writer_bytes.h"

namespace rs {
namespace psk {
namespace {

struct ChunkWriter {
  ByteWriter w;
  uint32_t stampAll = 0;  // TypeFlag for every chunk header (0 = only the head)
  bool spaces = false;

  void header(const char* id, int32_t size, int32_t count, uint32_t typeFlag) {
    w.fixed(id, 20);
    w.u32(typeFlag);
    w.i32(size);
    w.i32(count);
  }
  void chunk(const char* id, int32_t size, size_t count) { header(id, size, int32_t(count), stampAll); }
  void name(const std::string& s, size_t width) {
    for (size_t i = 0; i < width; ++i) w.u8(i < s.size() ? uint8_t(s[i]) : (spaces ? ' ' : 0));
  }
  void bone(const Bone& b) {
    name(b.name, 64);
    w.u32(b.flags);
    w.i32(b.numChildren);
    w.i32(b.parent);
    for (float f : b.rotation) w.f32(f);
    for (float f : b.position) w.f32(f);
    w.f32(b.length);
    for (float f : b.size) w.f32(f);
  }
};

}  // namespace

std::vector<uint8_t> writePsk(const Mesh& m, const MeshOptions& o) {
  ChunkWriter c;
  c.stampAll = o.typeFlagEverywhere ? o.typeFlag : 0;
  c.spaces = o.padNamesWithSpaces;
  c.header("ACTRHEAD", 0, 0, o.typeFlag);
  if (o.repeatHeader) c.header("ACTRHEAD", 0, 0, o.typeFlag);

  c.chunk("PNTS0000", 12, m.points.size() / 3);
  for (size_t i = 0; i + 2 < m.points.size(); i += 3) {
    c.w.f32(m.points[i]);
    c.w.f32(m.points[i + 1]);
    c.w.f32(m.points[i + 2]);
  }
  c.chunk("VTXW0000", 16, m.wedges.size());
  for (const Wedge& v : m.wedges) {
    c.w.u32(v.point | (uint32_t(o.pointIndexJunk) << 16));
    c.w.f32(v.u);
    c.w.f32(v.v);
    c.w.u8(v.material);
    c.w.u8(0);
    c.w.u16(0);
  }
  if (o.unknownChunk) {
    c.chunk("ZZUNKNOWN", 3, 5);
    c.w.pad(15, 0xAB);
  }
  if (o.face32) {
    c.chunk("FACE3200", 18, m.faces.size());
    for (const Face& f : m.faces) {
      for (uint32_t x : f.wedge) c.w.u32(x);
      c.w.u8(f.material);
      c.w.u8(f.auxMaterial);
      c.w.u32(f.smoothing);
    }
  } else {
    c.chunk("FACE0000", 12, m.faces.size());
    for (const Face& f : m.faces) {
      for (uint32_t x : f.wedge) c.w.u16(uint16_t(x));
      c.w.u8(f.material);
      c.w.u8(f.auxMaterial);
      c.w.u32(f.smoothing);
    }
  }
  c.chunk("MATT0000", 88, m.materials.size());
  for (const Material& mt : m.materials) {
    c.name(mt.name, 64);
    c.w.i32(mt.textureIndex);
    c.w.u32(mt.polyFlags);
    c.w.i32(0);
    c.w.u32(0);
    c.w.i32(0);
    c.w.i32(0);
  }
  auto writeNormals = [&] {
    if (m.normals.empty()) return;
    c.chunk("VTXNORMS", 12, m.normals.size() / 3);
    for (size_t i = 0; i + 2 < m.normals.size(); i += 3)
      for (int k = 0; k < 3; ++k) c.w.f32(m.normals[i + k]);
  };
  if (o.normalsAfterMaterials) writeNormals();
  if (o.skeletonChunks || !m.bones.empty()) {
    c.chunk("REFSKELT", 120, m.bones.size());
    for (const Bone& b : m.bones) c.bone(b);
  }
  if (o.skeletonChunks || !m.weights.empty()) {
    c.chunk("RAWWEIGHTS", 12, m.weights.size());
    for (const Weight& wt : m.weights) {
      c.w.f32(wt.weight);
      c.w.i32(wt.point);
      c.w.i32(wt.bone);
    }
  }
  if (!m.colors.empty()) {
    c.chunk("VERTEXCOLOR", 4, m.colors.size() / 4);
    c.w.raw(m.colors.data(), m.colors.size() / 4 * 4);
  }
  for (size_t s = 0; s < m.extraUvs.size(); ++s) {
    std::string id = std::string(o.extraUvId) + std::to_string(s);
    c.chunk(id.c_str(), 8, m.extraUvs[s].size() / 2);
    for (float f : m.extraUvs[s]) c.w.f32(f);
  }
  if (!o.normalsAfterMaterials) writeNormals();
  if (!m.morphs.empty()) {
    size_t total = 0;
    c.chunk("MRPHINFO", 68, m.morphs.size());
    for (const MorphTarget& mt : m.morphs) {
      c.name(mt.name, 64);
      c.w.i32(int32_t(mt.deltas.size()));
      total += mt.deltas.size();
    }
    c.chunk("MRPHDATA", 28, total);
    for (const MorphTarget& mt : m.morphs)
      for (const MorphDelta& d : mt.deltas) {
        for (float f : d.position) c.w.f32(f);
        for (float f : d.tangentZ) c.w.f32(f);
        c.w.i32(d.point);
      }
  }
  if (!m.sockets.empty()) {
    // Records are always 164 bytes, whatever DataSize declares (CUE4Parse's quirk).
    c.chunk("SKELSOCK", o.socketDataSize, m.sockets.size());
    for (const Socket& s : m.sockets) {
      c.name(s.name, 64);
      c.name(s.bone, 64);
      for (float f : s.location) c.w.f32(f);
      for (float f : s.rotator) c.w.f32(f);
      for (float f : s.scale) c.w.f32(f);
    }
  }
  return std::move(c.w.bytes);
}

std::vector<uint8_t> writePsa(const Animation& a, const AnimOptions& o) {
  ChunkWriter c;
  c.stampAll = o.typeFlagEverywhere ? o.typeFlag : 0;
  c.spaces = o.padNamesWithSpaces;
  c.header("ANIMHEAD", 0, 0, o.typeFlag);
  c.chunk("BONENAMES", 120, a.bones.size());
  for (const Bone& b : a.bones) c.bone(b);
  c.chunk("ANIMINFO", 168, a.sequences.size());
  int32_t running = 0;
  size_t keyCount = 0, scaleCount = 0;
  for (const Sequence& s : a.sequences) {
    c.name(s.name, 64);
    c.name(s.group, 64);
    c.w.i32(s.totalBones >= 0 ? s.totalBones : int32_t(a.bones.size()));
    c.w.i32(s.scaleKeys.empty() ? 0 : 1);  // RootInclude / ScaleInclude
    c.w.i32(0);
    c.w.i32(int32_t(s.frames * a.bones.size()));
    c.w.f32(1.0f);
    c.w.f32(float(s.frames));  // TrackTime in frames
    c.w.f32(s.fps);
    c.w.i32(0);
    c.w.i32(s.firstRawFrame >= 0 ? s.firstRawFrame : running);
    c.w.i32(int32_t(s.frames));
    running += int32_t(s.frames);
    keyCount += s.keys.size();
    scaleCount += s.scaleKeys.size() / 3;
  }
  c.chunk("ANIMKEYS", 32, keyCount);
  for (const Sequence& s : a.sequences)
    for (const Key& k : s.keys) {
      for (float f : k.position) c.w.f32(f);
      for (float f : k.rotation) c.w.f32(f);
      c.w.f32(k.time);
    }
  if (scaleCount > 0) {
    c.chunk("SCALEKEYS", 16, scaleCount);
    for (const Sequence& s : a.sequences)
      for (size_t i = 0; i + 2 < s.scaleKeys.size(); i += 3) {
        c.w.f32(s.scaleKeys[i]);
        c.w.f32(s.scaleKeys[i + 1]);
        c.w.f32(s.scaleKeys[i + 2]);
        c.w.f32(1.0f);
      }
  } else if (o.emptyScaleChunk) {
    c.chunk("SCALEKEYS", 16, 0);
  }
  if (o.curveChunk && !a.sequences.empty()) {
    const Sequence& s = a.sequences[0];
    std::string id = s.name.substr(0, 15) + ":CUR";
    c.chunk(id.c_str(), int32_t(128 + 4 * s.frames), 1);
    c.name("Blink", 128);
    for (uint32_t f = 0; f < s.frames; ++f) c.w.f32(float(f) / float(s.frames));
  }
  return std::move(c.w.bytes);
}

std::string writePsaConfig(const Config& cfg) {
  std::string s;
  s += "[AnimSet]\n";
  s += cfg.rotationOnly ? "bAnimRotationOnly=1\n" : "bAnimRotationOnly=0\n";
  if (!cfg.useTranslation.empty()) {
    s += "\n[UseTranslationBoneNames]\n";
    for (const std::string& n : cfg.useTranslation) s += n + "\n";
  }
  if (!cfg.forceMeshTranslation.empty()) {
    s += "\n[ForceMeshTranslationBoneNames]\n";
    for (const std::string& n : cfg.forceMeshTranslation) s += n + "\n";
  }
  if (!cfg.removeTracks.empty()) {
    s += "\n[RemoveTracks]\n";
    for (const ConfigRemoval& r : cfg.removeTracks)
      s += r.sequence + "." + std::to_string(r.bone) + "=" + r.what + "\n";
  }
  return s;
}

}  // namespace psk
}  // namespace rs
