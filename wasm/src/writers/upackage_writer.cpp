#include "writers/upackage_writer.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "writers/ue1_writer.h"
#include "writers/writer_bytes.h"

namespace rs {
namespace {

constexpr uint32_t kObjectFlags = 0x000F0004u;
constexpr uint32_t kPaletteFlags = 0x00070004u;

void compactIndex(ByteWriter& w, int32_t value) {
  uint32_t a = value < 0 ? uint32_t(-int64_t(value)) : uint32_t(value);
  uint8_t b0 = uint8_t((value < 0 ? 0x80 : 0) | (a & 0x3F));
  if (a >= 0x40) b0 |= 0x40;
  w.u8(b0);
  if (a < 0x40) return;
  a >>= 6;
  for (int i = 1; i < 5; ++i) {
    if (i == 4) {
      w.u8(uint8_t(a));
      return;
    }
    uint8_t b = uint8_t(a & 0x7F);
    a >>= 7;
    if (a) b |= 0x80;
    w.u8(b);
    if (!a) return;
  }
}

struct Import {
  std::string classPackage, className, name;
  int32_t outer = 0;
};

struct Export {
  int32_t classRef = 0, outer = 0;
  std::string name;
  uint32_t flags = kObjectFlags;
  size_t offset = 0, size = 0;
};

class Builder {
 public:
  explicit Builder(uint16_t version) : version_(version) { name("None"); }

  int32_t name(const std::string& s) {
    for (size_t i = 0; i < names_.size(); ++i)
      if (names_[i] == s) return int32_t(i);
    names_.push_back(s);
    return int32_t(names_.size() - 1);
  }
  int32_t import(const std::string& classPackage, const std::string& className, const std::string& n, int32_t outer) {
    for (size_t i = 0; i < imports_.size(); ++i) {
      const Import& im = imports_[i];
      if (im.classPackage == classPackage && im.className == className && im.name == n && im.outer == outer)
        return -int32_t(i) - 1;
    }
    imports_.push_back(Import{classPackage, className, n, outer});
    name(classPackage), name(className), name(n);
    return -int32_t(imports_.size());
  }
  int32_t classRef(const std::string& cls) {
    const std::string pkg =
        cls == "FireTexture" || cls == "IceTexture" || cls == "WaveTexture" || cls == "WetTexture" ? "Fire" : "Engine";
    return import("Core", "Class", cls, import("Core", "Package", pkg, 0));
  }
  // A group path "A.B" as exports of class Package.
  int32_t group(const std::string& path) {
    int32_t outer = 0;
    size_t start = 0;
    while (start < path.size()) {
      size_t dot = path.find('.', start);
      if (dot == std::string::npos) dot = path.size();
      const std::string part = path.substr(start, dot - start);
      outer = exportRef(part, "Package", outer, kPaletteFlags);
      start = dot + 1;
    }
    return outer;
  }
  int32_t exportRef(const std::string& n, const std::string& cls, int32_t outer, uint32_t flags) {
    const int32_t c = classRef(cls);
    for (size_t i = 0; i < exports_.size(); ++i)
      if (exports_[i].name == n && exports_[i].classRef == c && exports_[i].outer == outer) return int32_t(i) + 1;
    Export e;
    e.classRef = c;
    e.outer = outer;
    e.name = n;
    e.flags = flags;
    exports_.push_back(e);
    name(n);
    return int32_t(exports_.size());
  }
  // A texture slot: a texture of this package by name, or an import chain for Package.Group.Name.
  int32_t textureRef(const std::string& ref) {
    if (ref.empty()) return 0;
    if (ref.find('.') == std::string::npos) {
      for (size_t i = 0; i < exports_.size(); ++i)
        if (exports_[i].name == ref) return int32_t(i) + 1;
      return 0;
    }
    std::vector<std::string> parts;
    size_t start = 0;
    while (true) {
      const size_t dot = ref.find('.', start);
      parts.push_back(ref.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    int32_t outer = 0;
    for (size_t i = 0; i + 1 < parts.size(); ++i) outer = import("Core", "Package", parts[i], outer);
    return import("Engine", "Texture", parts.back(), outer);
  }

  uint16_t version() const { return version_; }
  ByteWriter w;
  std::vector<std::string> names_;
  std::vector<Import> imports_;
  std::vector<Export> exports_;

  // Object data helpers, written straight into the file (SkipPos values are absolute).
  void nameRef(const std::string& s) { compactIndex(w, name(s)); }
  size_t lazyBegin() {
    const size_t at = w.size();
    if (version_ > 61) w.u32(0);
    return at;
  }
  void lazyEnd(size_t at) {
    if (version_ <= 61) return;
    const uint32_t end = uint32_t(w.size());
    for (int k = 0; k < 4; ++k) w.bytes[at + size_t(k)] = uint8_t(end >> (8 * k));
  }
  void box(const float lo[3], const float hi[3]) {
    for (int k = 0; k < 3; ++k) w.f32(lo[k]);
    for (int k = 0; k < 3; ++k) w.f32(hi[k]);
    w.u8(1);
  }
  void sphere(const float lo[3], const float hi[3]) {
    float r2 = 0;
    for (int k = 0; k < 3; ++k) {
      w.f32((lo[k] + hi[k]) / 2);
      r2 += (hi[k] - lo[k]) * (hi[k] - lo[k]) / 4;
    }
    if (version_ > 61) w.f32(std::sqrt(r2));
  }

 private:
  uint16_t version_;
};

void boxOf(const int32_t* xyz, size_t count, float lo[3], float hi[3]) {
  for (int k = 0; k < 3; ++k) lo[k] = hi[k] = 0;
  for (size_t i = 0; i < count; ++i)
    for (int k = 0; k < 3; ++k) {
      const float v = float(xyz[i * 3 + size_t(k)]);
      if (i == 0 || v < lo[k]) lo[k] = v;
      if (i == 0 || v > hi[k]) hi[k] = v;
    }
}

void writeSequences(Builder& b, const std::vector<UpkWriteSequence>& seqs) {
  compactIndex(b.w, int32_t(seqs.size()));
  for (const UpkWriteSequence& s : seqs) {
    b.nameRef(s.name);
    b.nameRef(s.group.empty() ? "None" : s.group);
    b.w.i32(s.startFrame);
    b.w.i32(s.numFrames);
    compactIndex(b.w, int32_t(s.notifies.size()));
    for (const auto& n : s.notifies) {
      b.w.f32(n.first);
      b.nameRef(n.second);
    }
    b.w.f32(s.rate);
  }
}

// The UMesh fields (§7) of a vertex mesh, or of a skeletal one (no vertices, no frames).
struct MeshFields {
  const int32_t* xyz = nullptr;  // frame-major raw positions
  uint32_t frameVerts = 0, frames = 0;
  bool dx16 = false;
  const std::vector<UpkWriteTriangle>* tris = nullptr;  // Mesh only
  std::vector<UpkWriteSequence> sequences;
  std::vector<int32_t> textures;
  float boxLo[3] = {0, 0, 0}, boxHi[3] = {0, 0, 0};
  float scale[3] = {1, 1, 1}, origin[3] = {0, 0, 0};
  int32_t rot[3] = {0, 0, 0};
};

void writeMeshFields(Builder& b, const MeshFields& m, UpkLayout::Object& lo) {
  ByteWriter& w = b.w;
  float allLo[3], allHi[3];
  if (m.xyz)
    boxOf(m.xyz, size_t(m.frameVerts) * m.frames, allLo, allHi);
  else
    std::copy(m.boxLo, m.boxLo + 3, allLo), std::copy(m.boxHi, m.boxHi + 3, allHi);
  b.box(allLo, allHi);
  b.sphere(allLo, allHi);
  lo.vertsSkipAt = b.lazyBegin();
  const size_t verts = size_t(m.frameVerts) * m.frames;
  compactIndex(w, int32_t(verts));
  for (size_t i = 0; i < verts; ++i) {
    const int32_t* p = m.xyz + i * 3;
    if (m.dx16) {
      for (int k = 0; k < 3; ++k) w.u16(uint16_t(int16_t(std::min(32767, std::max(-32768, p[k])))));
      w.u16(0);
    } else {
      w.u32(packUe1Vertex(p[0], p[1], p[2]));
    }
  }
  b.lazyEnd(lo.vertsSkipAt);
  size_t at = b.lazyBegin();
  const size_t triCount = m.tris ? m.tris->size() : 0;
  compactIndex(w, int32_t(triCount));
  for (size_t i = 0; i < triCount; ++i) {
    const UpkWriteTriangle& t = (*m.tris)[i];
    for (int k = 0; k < 3; ++k) w.u16(t.v[k]);
    for (int k = 0; k < 3; ++k) w.u8(t.uv[k][0]), w.u8(t.uv[k][1]);
    w.u32(t.polyFlags);
    w.i32(t.textureIndex);
  }
  b.lazyEnd(at);
  writeSequences(b, m.sequences);
  at = b.lazyBegin();  // Connects
  compactIndex(w, 0);
  b.lazyEnd(at);
  b.box(allLo, allHi);
  b.sphere(allLo, allHi);
  at = b.lazyBegin();  // VertLinks
  compactIndex(w, 0);
  b.lazyEnd(at);
  lo.texturesCountAt = w.size();
  compactIndex(w, int32_t(m.textures.size()));
  for (int32_t t : m.textures) compactIndex(w, t);
  compactIndex(w, int32_t(m.xyz ? m.frames : 0));
  for (uint32_t f = 0; m.xyz && f < m.frames; ++f) {
    float flo[3], fhi[3];
    boxOf(m.xyz + size_t(f) * m.frameVerts * 3, m.frameVerts, flo, fhi);
    b.box(flo, fhi);
  }
  compactIndex(w, int32_t(m.xyz ? m.frames : 0));
  for (uint32_t f = 0; m.xyz && f < m.frames; ++f) {
    float flo[3], fhi[3];
    boxOf(m.xyz + size_t(f) * m.frameVerts * 3, m.frameVerts, flo, fhi);
    b.sphere(flo, fhi);
  }
  w.i32(int32_t(m.frameVerts));
  w.i32(int32_t(m.frames));
  w.u32(m.xyz ? 0xFFFFFFFFu : 0);
  w.u32(0);
  for (float v : m.scale) w.f32(v);
  for (float v : m.origin) w.f32(v);
  for (int32_t v : m.rot) w.i32(v);
  w.i32(0);
  w.i32(0);
  if (b.version() == 65) {
    w.f32(1);
  } else if (b.version() >= 66) {
    compactIndex(w, 1);
    w.f32(1);
  }
}

struct LodFields {
  std::vector<std::pair<uint16_t, uint16_t>> wedges;  // point, U | V << 8
  std::vector<UpkWriteSkeletalMesh::Face> faces;
  std::vector<std::pair<uint32_t, int32_t>> materials;
  uint32_t modelVerts = 0;
};

void writeLodFields(Builder& b, const LodFields& l) {
  ByteWriter& w = b.w;
  compactIndex(w, 0);  // CollapsePointThus
  compactIndex(w, 0);  // FaceLevel
  compactIndex(w, int32_t(l.faces.size()));
  for (const auto& f : l.faces) {
    for (int k = 0; k < 3; ++k) w.u16(f.wedge[k]);
    w.u16(f.material);
  }
  compactIndex(w, 0);  // CollapseWedgeThus
  compactIndex(w, int32_t(l.wedges.size()));
  for (const auto& wd : l.wedges) {
    w.u16(wd.first);
    w.u8(uint8_t(wd.second & 0xFF));
    w.u8(uint8_t(wd.second >> 8));
  }
  compactIndex(w, int32_t(l.materials.size()));
  for (const auto& m : l.materials) {
    w.u32(m.first);
    w.i32(m.second);
  }
  compactIndex(w, 0);  // SpecialFaces
  w.i32(int32_t(l.modelVerts));
  w.i32(0);  // SpecialVerts
  w.f32(1);  // MeshScaleMax
  w.f32(0.5f);
  w.f32(1);
  w.i32(10);
  w.f32(0.3f);
  w.f32(0);
  compactIndex(w, 0);  // RemapAnimVerts
  w.i32(0);            // OldFrameVerts
}

// Triangles -> wedges (one per distinct vertex + UV), materials (distinct flags + slot), faces.
LodFields lodOf(const UpkWriteVertexMesh& m) {
  LodFields l;
  l.modelVerts = m.frameVerts;
  for (const UpkWriteTriangle& t : m.triangles) {
    UpkWriteSkeletalMesh::Face f;
    const std::pair<uint32_t, int32_t> mat(t.polyFlags, t.textureIndex);
    auto mi = std::find(l.materials.begin(), l.materials.end(), mat);
    if (mi == l.materials.end()) mi = l.materials.insert(l.materials.end(), mat);
    f.material = uint16_t(mi - l.materials.begin());
    for (int k = 0; k < 3; ++k) {
      const std::pair<uint16_t, uint16_t> wd(t.v[k], uint16_t(t.uv[k][0] | (t.uv[k][1] << 8)));
      auto wi = std::find(l.wedges.begin(), l.wedges.end(), wd);
      if (wi == l.wedges.end()) wi = l.wedges.insert(l.wedges.end(), wd);
      f.wedge[k] = uint16_t(wi - l.wedges.begin());
    }
    l.faces.push_back(f);
  }
  return l;
}

void propertyTag(Builder& b, const std::string& n, uint8_t type, uint8_t sizeCode) {
  b.nameRef(n);
  b.w.u8(uint8_t(type | (sizeCode << 4)));
}

int32_t bitsOf(uint32_t v) {
  int32_t bits = 0;
  while ((1u << bits) < v) ++bits;
  return bits;
}

void writeMip(Builder& b, const uint8_t* data, size_t bytes, uint32_t u, uint32_t v) {
  const size_t at = b.lazyBegin();
  compactIndex(b.w, int32_t(bytes));
  b.w.raw(data, bytes);
  b.lazyEnd(at);
  b.w.i32(int32_t(u));
  b.w.i32(int32_t(v));
  b.w.u8(uint8_t(bitsOf(u)));
  b.w.u8(uint8_t(bitsOf(v)));
}

// Each mip a box filter of the one before (the P8 index of the top-left texel: enough for tests).
void writeTextureData(Builder& b, const UpkWriteTexture& t, int32_t paletteRef) {
  ByteWriter& w = b.w;
  if (paletteRef) {
    ByteWriter ref;
    compactIndex(ref, paletteRef);
    propertyTag(b, "Palette", 5, ref.size() == 1 ? 0 : ref.size() == 2 ? 1 : 2);
    w.raw(ref.bytes.data(), ref.size());
    w.pad(ref.size() == 3 ? 1 : 0);  // a 4-byte value holds a 3-byte index and a pad byte
  }
  propertyTag(b, "USize", 2, 2);
  w.i32(int32_t(t.width));
  propertyTag(b, "VSize", 2, 2);
  w.i32(int32_t(t.height));
  propertyTag(b, "UBits", 1, 0);
  w.u8(uint8_t(bitsOf(t.width)));
  propertyTag(b, "VBits", 1, 0);
  w.u8(uint8_t(bitsOf(t.height)));
  if (t.masked) {
    propertyTag(b, "bMasked", uint8_t(3 | 0x80), 5);
    w.u8(0);
  }
  b.nameRef("None");
  if (t.indices.empty()) {
    compactIndex(w, 1);
    writeMip(b, nullptr, 0, t.width, t.height);
  } else {
    std::vector<std::vector<uint8_t>> chain{t.indices};
    std::vector<std::pair<uint32_t, uint32_t>> sizes{{t.width, t.height}};
    while (t.mips && (sizes.back().first > 1 || sizes.back().second > 1)) {
      const uint32_t pu = sizes.back().first, pv = sizes.back().second;
      const uint32_t u = std::max(1u, pu / 2), v = std::max(1u, pv / 2);
      std::vector<uint8_t> next(size_t(u) * v);
      for (uint32_t y = 0; y < v; ++y)
        for (uint32_t x = 0; x < u; ++x)
          next[size_t(y) * u + x] = chain.back()[size_t(y * (pv / v)) * pu + x * (pu / u)];
      chain.push_back(std::move(next));
      sizes.emplace_back(u, v);
    }
    compactIndex(w, int32_t(chain.size()));
    for (size_t i = 0; i < chain.size(); ++i)
      writeMip(b, chain[i].data(), chain[i].size(), sizes[i].first, sizes[i].second);
  }
  if (t.className == "FireTexture") {
    compactIndex(w, int32_t(t.sparks));
    for (uint32_t i = 0; i < t.sparks * 8; ++i) w.u8(uint8_t(i * 37));
  }
}

void writePaletteData(Builder& b, const std::vector<uint8_t>& rgba) {
  b.nameRef("None");
  const size_t stride = b.version() <= 65 ? 3 : 4;
  compactIndex(b.w, 256);
  for (size_t i = 0; i < 256; ++i)
    for (size_t k = 0; k < stride; ++k) b.w.u8(i * 4 + k < rgba.size() ? rgba[i * 4 + k] : (k == 3 ? 255 : 0));
}

void writeAnalogTrack(Builder& b, const UpkWriteAnimation::BoneKeys& k) {
  ByteWriter& w = b.w;
  w.u32(0);
  compactIndex(w, int32_t(k.quat.size() / 4));
  for (size_t i = 0; i < k.quat.size() / 4 * 4; ++i) w.f32(k.quat[i]);
  compactIndex(w, int32_t(k.pos.size() / 3));
  for (size_t i = 0; i < k.pos.size() / 3 * 3; ++i) w.f32(k.pos[i]);
  compactIndex(w, int32_t(k.time.size()));
  for (float t : k.time) w.f32(t);
}

void writeAnimationData(Builder& b, const UpkWriteAnimation& a) {
  ByteWriter& w = b.w;
  b.nameRef("None");
  compactIndex(w, int32_t(a.bones.size()));
  for (const auto& bone : a.bones) {
    b.nameRef(bone.first);
    w.u32(0);
    w.i32(bone.second);
  }
  compactIndex(w, int32_t(a.sequences.size()));
  for (const UpkWriteAnimation::Sequence& s : a.sequences) {
    w.pad(12);  // RootSpeed3D
    w.f32(s.trackTime);
    w.i32(0);            // StartBone
    w.u32(0);            // Flags
    compactIndex(w, 0);  // BoneIndices
    compactIndex(w, int32_t(s.tracks.size()));
    for (const auto& k : s.tracks) writeAnalogTrack(b, k);
    writeAnalogTrack(b, UpkWriteAnimation::BoneKeys());  // RootTrack
  }
  std::vector<UpkWriteSequence> seqs;
  for (const UpkWriteAnimation::Sequence& s : a.sequences) {
    UpkWriteSequence q;
    q.name = s.name;
    q.numFrames = s.numFrames;
    q.rate = s.rate;
    q.notifies = s.notifies;
    seqs.push_back(q);
  }
  writeSequences(b, seqs);
}

// RefSkeleton, BoneWeightIdx (each bone's run), BoneWeights grouped by bone.
void writeSkeletalBones(Builder& b, const UpkWriteSkeletalMesh& m) {
  ByteWriter& w = b.w;
  compactIndex(w, int32_t(m.bones.size()));
  for (size_t i = 0; i < m.bones.size(); ++i) {
    const UpkWriteBone& bone = m.bones[i];
    b.nameRef(bone.name);
    w.u32(0);
    for (float v : bone.orientation) w.f32(v);
    for (float v : bone.position) w.f32(v);
    w.f32(0);
    for (int k = 0; k < 3; ++k) w.f32(0);
    int32_t children = 0;
    for (size_t c = 1; c < m.bones.size(); ++c) children += m.bones[c].parent == int32_t(i) && c != i;
    w.i32(children);
    w.i32(bone.parent);
  }
  // BoneWeights grouped by bone; BoneWeightIdx gives each bone its run.
  std::vector<UpkWriteSkeletalMesh::Weight> sorted = m.weights;
  std::stable_sort(
      sorted.begin(), sorted.end(),
      [](const UpkWriteSkeletalMesh::Weight& x, const UpkWriteSkeletalMesh::Weight& y) { return x.bone < y.bone; });
  compactIndex(w, int32_t(m.bones.size()));
  size_t run = 0;
  for (size_t bone = 0; bone < m.bones.size(); ++bone) {
    size_t n = 0;
    while (run + n < sorted.size() && sorted[run + n].bone == bone) ++n;
    w.u16(uint16_t(run));
    w.u16(uint16_t(n));
    w.u16(0);
    w.u16(0);
    run += n;
  }
  compactIndex(w, int32_t(sorted.size()));
  for (const auto& wt : sorted) {
    w.u16(wt.point);
    w.u16(uint16_t(std::lround(double(wt.weight) * 65535.0)));
  }
}

void writeSkeletalData(Builder& b, const UpkWriteSkeletalMesh& m, UpkLayout::Object& lo) {
  ByteWriter& w = b.w;
  b.nameRef("None");
  MeshFields f;
  f.frameVerts = uint32_t(m.points.size() / 3);
  UpkWriteSequence all;
  all.name = "All";
  all.numFrames = 0;
  f.sequences.push_back(all);
  for (const std::string& t : m.textures) f.textures.push_back(b.textureRef(t));
  for (size_t i = 0; i < m.points.size(); ++i) {
    float& lo3 = f.boxLo[i % 3];
    float& hi3 = f.boxHi[i % 3];
    if (i < 3 || m.points[i] < lo3) lo3 = m.points[i];
    if (i < 3 || m.points[i] > hi3) hi3 = m.points[i];
  }
  writeMeshFields(b, f, lo);
  LodFields l;
  l.modelVerts = f.frameVerts;
  for (const auto& wd : m.wedges) l.wedges.emplace_back(wd.point, uint16_t(wd.u | (wd.v << 8)));
  l.faces = m.faces;
  l.materials = m.materials;
  writeLodFields(b, l);
  compactIndex(w, 0);  // ExtWedges
  compactIndex(w, int32_t(m.points.size() / 3));
  for (float v : m.points) w.f32(v);
  writeSkeletalBones(b, m);
  compactIndex(w, 0);  // LocalPoints
  w.i32(1);            // SkeletalDepth
  compactIndex(w, 0);  // DefaultAnimation
  w.i32(-1);           // WeaponBoneIndex
  w.pad(48);           // WeaponAdjust
}

/** What an export holds, so its data is written by the right writer once every export is declared. */
enum class ExportKind { Palette, Texture, VertexMesh, SkeletalMesh, Animation };

struct PendingExport {
  int32_t ref;
  ExportKind kind;
  size_t item;  // index into the package's list of that kind
};

/**
 * Declares every export (references between objects need their indices before any data is
 * written), in the order their data follows: each texture after its palette, then the meshes,
 * skeletal meshes and animations. `paletteOf` gets each texture's palette reference (0: none).
 */
std::vector<PendingExport> declareExports(Builder& b, const UpkWritePackage& p, std::vector<int32_t>& paletteOf) {
  std::vector<PendingExport> pending;
  paletteOf.assign(p.textures.size(), 0);
  for (size_t i = 0; i < p.textures.size(); ++i) {
    const UpkWriteTexture& t = p.textures[i];
    const int32_t g = b.group(t.group);
    if (!t.palette.empty()) {
      paletteOf[i] = b.exportRef(t.name + "Pal", "Palette", g, kPaletteFlags);
      pending.push_back({paletteOf[i], ExportKind::Palette, i});
    }
    pending.push_back({b.exportRef(t.name, t.className, g, kObjectFlags), ExportKind::Texture, i});
  }
  for (size_t i = 0; i < p.meshes.size(); ++i) {
    const UpkWriteVertexMesh& m = p.meshes[i];
    pending.push_back(
        {b.exportRef(m.name, m.lod ? "LodMesh" : "Mesh", b.group(m.group), kObjectFlags), ExportKind::VertexMesh, i});
  }
  for (size_t i = 0; i < p.skeletalMeshes.size(); ++i) {
    const UpkWriteSkeletalMesh& m = p.skeletalMeshes[i];
    pending.push_back(
        {b.exportRef(m.name, "SkeletalMesh", b.group(m.group), kObjectFlags), ExportKind::SkeletalMesh, i});
  }
  for (size_t i = 0; i < p.animations.size(); ++i) {
    const UpkWriteAnimation& a = p.animations[i];
    pending.push_back({b.exportRef(a.name, "Animation", b.group(a.group), kObjectFlags), ExportKind::Animation, i});
  }
  return pending;
}

/** A Mesh or LodMesh: its properties (none), the Mesh fields, and a LodMesh's own fields after them. */
void writeVertexMeshData(Builder& b, const UpkWriteVertexMesh& m, UpkLayout::Object& lo) {
  b.nameRef("None");
  MeshFields f;
  f.xyz = m.xyz.data();
  f.frameVerts = m.frameVerts;
  f.frames = m.frameVerts ? uint32_t(m.xyz.size() / 3 / m.frameVerts) : 0;
  f.dx16 = m.dx16;
  f.tris = m.lod ? nullptr : &m.triangles;
  f.sequences = m.sequences;
  for (const std::string& t : m.textures) f.textures.push_back(b.textureRef(t));
  std::copy(m.scale, m.scale + 3, f.scale);
  std::copy(m.origin, m.origin + 3, f.origin);
  std::copy(m.rotOrigin, m.rotOrigin + 3, f.rot);
  writeMeshFields(b, f, lo);
  if (m.lod) writeLodFields(b, lodOf(m));
}

/** One export's data at the writer's end; its offset and size go into the export and the layout. */
UpkLayout::Object writeExportData(Builder& b, const UpkWritePackage& p, const PendingExport& pe,
                                  const std::vector<int32_t>& paletteOf) {
  Export& ex = b.exports_[size_t(pe.ref - 1)];
  UpkLayout::Object lo;
  lo.exportIndex = uint32_t(pe.ref - 1);
  lo.name = ex.name;
  ex.offset = b.w.size();
  switch (pe.kind) {
    case ExportKind::Palette:
      lo.className = "Palette";
      writePaletteData(b, p.textures[pe.item].palette);
      break;
    case ExportKind::Texture:
      lo.className = p.textures[pe.item].className;
      writeTextureData(b, p.textures[pe.item], paletteOf[pe.item]);
      break;
    case ExportKind::VertexMesh:
      lo.className = p.meshes[pe.item].lod ? "LodMesh" : "Mesh";
      writeVertexMeshData(b, p.meshes[pe.item], lo);
      break;
    case ExportKind::SkeletalMesh:
      lo.className = "SkeletalMesh";
      writeSkeletalData(b, p.skeletalMeshes[pe.item], lo);
      break;
    case ExportKind::Animation:
      lo.className = "Animation";
      writeAnimationData(b, p.animations[pe.item]);
      break;
  }
  ex.size = b.w.size() - ex.offset;
  lo.offset = ex.offset;
  lo.size = ex.size;
  return lo;
}

/** The name, import and export tables after the objects' data, as the engine writes them. */
void writeTables(Builder& b, uint16_t version, UpkLayout& lay) {
  ByteWriter& w = b.w;
  lay.nameOffset = w.size();
  for (const std::string& n : b.names_) {
    if (version >= 64) compactIndex(w, int32_t(n.size() + 1));  // before v64: NUL-terminated only
    w.raw(n.data(), n.size());
    w.u8(0);
    w.u32(0x00070010u);
  }
  lay.importOffset = w.size();
  for (const Import& im : b.imports_) {
    compactIndex(w, b.name(im.classPackage));
    compactIndex(w, b.name(im.className));
    lay.importOuterAt.push_back(w.size());
    w.i32(im.outer);
    compactIndex(w, b.name(im.name));
  }
  lay.exportOffset = w.size();
  for (size_t i = 0; i < b.exports_.size(); ++i) {
    const Export& ex = b.exports_[i];
    compactIndex(w, ex.classRef);
    compactIndex(w, 0);
    w.i32(ex.outer);
    compactIndex(w, b.name(ex.name));
    w.u32(ex.flags);
    for (UpkLayout::Object& o : lay.objects)
      if (o.exportIndex == i) o.serialSizeAt = w.size();
    compactIndex(w, int32_t(ex.size));
    if (ex.size) compactIndex(w, int32_t(ex.offset));
  }
}

/** The package header over the space kept for it at the start: tables' counts and offsets, and from v68 the GUID and
 * generation. */
void writeHeader(Builder& b, uint16_t version, const UpkLayout& lay) {
  ByteWriter h;
  h.u32(0x9E2A83C1u);
  h.u16(version);
  h.u16(0);
  h.u32(1);
  h.u32(uint32_t(b.names_.size()));
  h.u32(uint32_t(lay.nameOffset));
  h.u32(uint32_t(b.exports_.size()));
  h.u32(uint32_t(lay.exportOffset));
  h.u32(uint32_t(b.imports_.size()));
  h.u32(uint32_t(lay.importOffset));
  if (version >= 68) {
    for (int k = 0; k < 16; ++k) h.u8(uint8_t(0x11 * k));
    h.u32(1);
    h.u32(uint32_t(b.exports_.size()));
    h.u32(uint32_t(b.names_.size()));
  }
  std::copy(h.bytes.begin(), h.bytes.end(), b.w.bytes.begin());
}

}  // namespace

std::vector<uint8_t> writeUpackage(const UpkWritePackage& p, UpkLayout* layout) {
  Builder b(p.version);
  b.w.pad(p.version >= 68 ? 64 : 36);  // the header, written last
  UpkLayout lay;
  std::vector<int32_t> paletteOf;
  for (const PendingExport& pe : declareExports(b, p, paletteOf))
    lay.objects.push_back(writeExportData(b, p, pe, paletteOf));
  writeTables(b, p.version, lay);
  writeHeader(b, p.version, lay);
  if (layout) *layout = std::move(lay);
  return std::move(b.w.bytes);
}

}  // namespace rs
