// Mesh, LodMesh (§7, §8) -> the UE1 vertex model of formats/ue1; SkeletalMesh (§9) -> the PSK
// model of formats/psk. The native data is read here; the conversion to three space (axes, UVs,
// winding, materials, normals, skinning) is the loose formats' own code, so a package mesh and its
// loose source files give the same model.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "convert/chunks.h"
#include "formats/psk/psk.h"
#include "formats/ue1/ue1.h"
#include "formats/upackage/upackage_internal.h"
#include "io/bytes.h"

namespace rs {
namespace upkg {
namespace {

constexpr size_t kBox = 25;         // FBox: 2 FVector + BYTE IsValid
constexpr size_t kMeshTri = 20;     // FMeshTri
constexpr size_t kFace = 8;         // FMeshFace
constexpr size_t kWedge = 4;        // FMeshWedge
constexpr size_t kMaterial = 8;     // FMeshMaterial
constexpr size_t kMinAnimSeq = 15;  // Name, Group, StartFrame, NumFrames, Notifys count, Rate
constexpr size_t kMinNotify = 5;    // Time, Function
constexpr size_t kMinBone = 57;     // FMeshBone with a 1-byte name index
constexpr size_t kExtWedge = 12;

struct Box {
  float min[3] = {0, 0, 0}, max[3] = {0, 0, 0};
};

Box readBox(Reader& r, const char* field) {
  Box b;
  for (float& v : b.min) v = r.f32(field);
  for (float& v : b.max) v = r.f32(field);
  r.u8(field);
  return b;
}

size_t sphereBytes(const Package& pkg) { return pkg.version <= 61 ? 12 : 16; }

// The fields every UMesh has (§7), in order.
struct MeshData {
  Box box;
  const uint8_t* verts = nullptr;
  uint32_t vertCount = 0;
  uint32_t vertBytes = 4;
  size_t vertsAt = 0;
  const uint8_t* tris = nullptr;
  uint32_t triCount = 0;
  size_t trisAt = 0;
  std::vector<UcSequence> sequences;
  std::vector<int32_t> textures;  // object references
  std::vector<Box> frameBoxes;
  int32_t frameVerts = 0, animFrames = 0;
  float scale[3] = {1, 1, 1}, origin[3] = {0, 0, 0};
  int32_t rotOrigin[3] = {0, 0, 0};
  size_t countsAt = 0;  // FrameVerts, for messages
};

struct LodData {
  const uint8_t* faces = nullptr;
  uint32_t faceCount = 0;
  size_t facesAt = 0;
  const uint8_t* wedges = nullptr;
  uint32_t wedgeCount = 0;
  const uint8_t* materials = nullptr;
  uint32_t materialCount = 0;
  const uint8_t* specialFaces = nullptr;
  uint32_t specialFaceCount = 0;
  int32_t modelVerts = 0, specialVerts = 0;
  uint32_t remapCount = 0;
};

struct SkelBone {
  std::string name;
  uint32_t flags = 0;
  float q[4] = {0, 0, 0, 1}, pos[3] = {0, 0, 0}, length = 0, size[3] = {0, 0, 0};
  int32_t children = 0, parent = 0;
};

struct SkelData {
  const uint8_t* points = nullptr;
  uint32_t pointCount = 0;
  std::vector<SkelBone> bones;
  const uint8_t* weightIdx = nullptr;
  uint32_t weightIdxCount = 0;
  const uint8_t* weights = nullptr;
  uint32_t weightCount = 0;
  int32_t defaultAnimation = 0;
  int32_t weaponBone = -1;
};

// TArray of fixed-size items: count, then the items (pointer returned).
const uint8_t* fixedArray(Reader& r, size_t itemBytes, const char* field, uint32_t& count, size_t* at = nullptr) {
  if (at) *at = r.pos();
  count = r.count(field, itemBytes);
  return r.take(size_t(count) * itemBytes, field);
}

void skipFixedArray(Reader& r, size_t itemBytes, const char* field) {
  uint32_t n = 0;
  fixedArray(r, itemBytes, field, n);
}

// TLazyArray (§2): SkipPos, then a TArray; SkipPos must point just past it.
const uint8_t* lazyArray(Reader& r, size_t itemBytes, const char* field, uint32_t& count, size_t* at = nullptr) {
  const uint32_t skip = r.skipPos(field);
  const uint8_t* p = fixedArray(r, itemBytes, field, count, at);
  r.checkSkip(skip, field);
  return p;
}

// Verts (§7.1): the element size is what SkipPos says, 4 (packed) or 8 (Deus Ex).
RS_STEP void readVerts(Reader& r, MeshData& m) {
  const uint32_t skip = r.skipPos("Verts SkipPos");
  m.vertsAt = r.pos();
  m.vertCount = r.count("Verts", 4);
  if (r.failed()) return;
  m.vertBytes = 4;
  if (r.package().version > 61 && m.vertCount > 0) {
    const uint64_t span = skip >= r.pos() ? uint64_t(skip) - r.pos() : UINT64_MAX;
    if (span == uint64_t(m.vertCount) * 4) {
      m.vertBytes = 4;
    } else if (span == uint64_t(m.vertCount) * 8) {
      m.vertBytes = 8;
    } else {
      r.fail(m.vertsAt, "Verts SkipPos %u leaves %lld bytes for %u vertices: neither 4 nor 8 bytes each", skip,
             span == UINT64_MAX ? -1LL : (long long)span, m.vertCount);
      return;
    }
  }
  m.verts = r.take(size_t(m.vertCount) * m.vertBytes, "Verts");
  r.checkSkip(skip, "Verts");
}

RS_STEP void readSequences(Reader& r, std::vector<UcSequence>& out) {
  const uint32_t n = r.count("AnimSeqs", kMinAnimSeq);
  for (uint32_t i = 0; i < n && !r.failed(); ++i) {
    UcSequence s;
    s.name = r.name("AnimSeqs Name");
    s.group = r.name("AnimSeqs Group");
    if (equalsNoCase(s.group, "None")) s.group.clear();
    s.startFrame = r.i32("AnimSeqs StartFrame");
    s.numFrames = r.i32("AnimSeqs NumFrames");
    const uint32_t notifies = r.count("AnimSeqs Notifys", kMinNotify);
    for (uint32_t k = 0; k < notifies && !r.failed(); ++k) {
      UcNotify nt;
      nt.time = r.f32("Notify Time");
      nt.function = r.name("Notify Function");
      if (!std::isfinite(nt.time)) nt.time = 0;
      s.notifies.push_back(std::move(nt));
    }
    const float rate = r.f32("AnimSeqs Rate");
    s.rate = std::isfinite(rate) ? rate : 0;
    out.push_back(std::move(s));
  }
}

RS_STEP void readMesh(Reader& r, MeshData& m) {
  const Package& pkg = r.package();
  m.box = readBox(r, "BoundingBox");
  r.skip(sphereBytes(pkg), "BoundingSphere");
  readVerts(r, m);
  m.tris = lazyArray(r, kMeshTri, "Tris", m.triCount, &m.trisAt);
  readSequences(r, m.sequences);
  uint32_t n = 0;
  lazyArray(r, 8, "Connects", n);
  readBox(r, "BoundingBox");
  r.skip(sphereBytes(pkg), "BoundingSphere");
  lazyArray(r, 4, "VertLinks", n);
  n = r.count("Textures", 1);
  for (uint32_t i = 0; i < n && !r.failed(); ++i) m.textures.push_back(r.object("Textures"));
  n = r.count("BoundingBoxes", kBox);
  for (uint32_t i = 0; i < n && !r.failed(); ++i) m.frameBoxes.push_back(readBox(r, "BoundingBoxes"));
  skipFixedArray(r, sphereBytes(pkg), "BoundingSpheres");
  m.countsAt = r.pos();
  m.frameVerts = r.i32("FrameVerts");
  m.animFrames = r.i32("AnimFrames");
  r.u32("AndFlags");
  r.u32("OrFlags");
  for (float& v : m.scale) v = r.f32("Scale");
  for (float& v : m.origin) v = r.f32("Origin");
  for (int32_t& v : m.rotOrigin) v = r.i32("RotOrigin");
  r.i32("CurPoly");
  r.i32("CurVertex");
  if (pkg.version == 65) {
    r.f32("TextureLOD");
  } else if (pkg.version >= 66) {
    skipFixedArray(r, 4, "TextureLOD");
  }
}

RS_STEP void readLod(Reader& r, LodData& l) {
  skipFixedArray(r, 2, "CollapsePointThus");
  skipFixedArray(r, 2, "FaceLevel");
  l.faces = fixedArray(r, kFace, "Faces", l.faceCount, &l.facesAt);
  skipFixedArray(r, 2, "CollapseWedgeThus");
  l.wedges = fixedArray(r, kWedge, "Wedges", l.wedgeCount);
  l.materials = fixedArray(r, kMaterial, "Materials", l.materialCount);
  l.specialFaces = fixedArray(r, kFace, "SpecialFaces", l.specialFaceCount);
  l.modelVerts = r.i32("ModelVerts");
  l.specialVerts = r.i32("SpecialVerts");
  r.f32("MeshScaleMax");
  r.f32("LODHysteresis");
  r.f32("LODStrength");
  r.i32("LODMinVerts");
  r.f32("LODMorph");
  r.f32("LODZDisplace");
  fixedArray(r, 2, "RemapAnimVerts", l.remapCount);
  r.i32("OldFrameVerts");
}

RS_STEP void readSkeletal(Reader& r, SkelData& s) {
  skipFixedArray(r, kExtWedge, "ExtWedges");
  s.points = fixedArray(r, 12, "Points", s.pointCount);
  const uint32_t n = r.count("RefSkeleton", kMinBone);
  s.bones.reserve(n);
  for (uint32_t i = 0; i < n && !r.failed(); ++i) {
    SkelBone b;
    b.name = r.name("RefSkeleton Name");
    b.flags = r.u32("RefSkeleton Flags");
    for (float& v : b.q) v = r.f32("RefSkeleton Orientation");
    for (float& v : b.pos) v = r.f32("RefSkeleton Position");
    b.length = r.f32("RefSkeleton Length");
    for (float& v : b.size) v = r.f32("RefSkeleton Size");
    b.children = r.i32("RefSkeleton NumChildren");
    b.parent = r.i32("RefSkeleton ParentIndex");
    s.bones.push_back(std::move(b));
  }
  s.weightIdx = fixedArray(r, 8, "BoneWeightIdx", s.weightIdxCount);
  s.weights = fixedArray(r, 4, "BoneWeights", s.weightCount);
  skipFixedArray(r, 12, "LocalPoints");
  r.i32("SkeletalDepth");
  s.defaultAnimation = r.object("DefaultAnimation");
  s.weaponBone = r.i32("WeaponBoneIndex");
  r.skip(48, "WeaponAdjust");
}

// PolyFlags (§11.4) in the _d.3d Type byte's words (§7.2 shows how the importer maps one to the
// other), so materials come out as the loose mesh's: render type in the low nibble, then 0x10
// unlit, 0x20 flat, 0x40 environment, 0x80 no smoothing. An invisible face is a weapon triangle.
uint8_t typeOfPolyFlags(uint32_t f) {
  uint8_t t = 0;
  if (f & 0x1) return 8;
  if (f & 0x4)
    t = 2;
  else if (f & 0x40)
    t = 4;
  else if (f & 0x2)
    t = 3;
  else if (f & 0x100)
    t = 1;
  if (f & 0x400000) t |= 0x10;
  if (f & 0x4000) t |= 0x20;
  if (f & 0x10) t |= 0x40;
  if (f & 0x800) t |= 0x80;
  return t;
}

// Texture slots (§11.5): Package.Group.Name first, then the name alone (a loose texture file of
// that name also matches); masked when the slot's texture is a masked texture of this package.
RS_STEP void slotTextures(const Package& pkg, const uint8_t* data, const std::vector<int32_t>& textures,
                          std::vector<std::vector<std::string>>& names, std::vector<uint8_t>& masked) {
  // TextureIndex is a byte for the triangles: slots past 255 are never drawn.
  const size_t slots = std::min<size_t>(textures.size(), 256);
  names.resize(slots);
  masked.resize(slots);
  // Each texture read once: thousands of slots naming one large texture must not read it each time.
  std::unordered_map<int32_t, size_t> seen;
  for (size_t i = 0; i < slots; ++i) {
    const int32_t ref = textures[i];
    if (ref == 0) continue;
    const auto known = seen.find(ref);
    if (known != seen.end()) {
      names[i] = names[known->second];
      masked[i] = masked[known->second];
      continue;
    }
    seen.emplace(ref, i);
    const std::string path = packageObjectPath(pkg, ref);
    names[i].push_back(path);
    const size_t dot = path.find_last_of('.');
    if (dot != std::string::npos) names[i].push_back(path.substr(dot + 1));
    masked[i] = textureMasked(pkg, data, ref) ? 1 : 0;
  }
}

// Stored boxes (§7 items 1, 10) against the decoded raw vertices: they match exactly on every real
// mesh, so a difference says the vertices were read wrongly.
RS_STEP void checkBoxes(const MeshData& m, const std::string& what, Model& out) {
  const size_t perFrame = size_t(m.frameVerts);
  size_t badFrames = 0;
  for (size_t f = 0; f < m.frameBoxes.size() && f < size_t(m.animFrames); ++f) {
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t v = 0; v < perFrame; ++v) {
      const uint8_t* p = m.verts + (f * perFrame + v) * m.vertBytes;
      float xyz[3];
      if (m.vertBytes == 8) {
        for (int k = 0; k < 3; ++k) xyz[k] = float(int16_t(load_u16le(p + 2 * k)));
      } else {
        const uint32_t w = load_u32le(p);
        xyz[0] = float(int32_t(w << 21) >> 21), xyz[1] = float(int32_t(w << 10) >> 21),
        xyz[2] = float(int32_t(w) >> 22);
      }
      for (int k = 0; k < 3; ++k) lo[k] = std::fmin(lo[k], xyz[k]), hi[k] = std::fmax(hi[k], xyz[k]);
    }
    const Box& b = m.frameBoxes[f];
    for (int k = 0; k < 3; ++k)
      if (lo[k] != b.min[k] || hi[k] != b.max[k]) {
        ++badFrames;
        break;
      }
  }
  if (badFrames)
    out.warnings.push_back(format("%s: %zu frame%s differ from their stored BoundingBoxes (vertices read as %u bytes)",
                                  what.c_str(), badFrames, badFrames == 1 ? "" : "s", m.vertBytes));
}

RS_STEP Status readMeshObject(const Package& pkg, const uint8_t* data, uint32_t exportIndex, bool lod, bool skeletal,
                              MeshData& m, LodData& l, SkelData& s, std::string& what) {
  size_t begin = 0, end = 0;
  Status st = objectRange(pkg, exportIndex, begin, end);
  if (!st.ok()) return st;
  what = describeExport(pkg, exportIndex);
  Reader r(pkg, data, begin, end, what);
  Properties props;
  readProperties(r, pkg.exports[exportIndex].flags, props);
  readMesh(r, m);
  if (lod) readLod(r, l);
  if (skeletal) readSkeletal(r, s);
  r.expectEnd(skeletal ? "SkeletalMesh data" : lod ? "LodMesh data" : "Mesh data");
  if (r.failed()) return r.status();
  if (m.frameVerts < 0 || m.animFrames < 0 || uint64_t(m.frameVerts) * uint64_t(m.animFrames) != m.vertCount)
    return fail("UPACKAGE", pkg.file, m.countsAt, "%s: FrameVerts %d x AnimFrames %d is not the %u Verts", what.c_str(),
                m.frameVerts, m.animFrames, m.vertCount);
  return Status();
}

}  // namespace

namespace {

// What the triangle readers share: the object for messages, the vertex count per frame.
struct TriangleContext {
  const Package& pkg;
  const std::string& what;
  uint32_t vertices;
  Status badTexture(size_t at, const char* field, int32_t t) const {
    return fail("UPACKAGE", pkg.file, at, "%s: %s TextureIndex %d is outside 0..255", what.c_str(), field, t);
  }
};

// Mesh: Tris hold vertex indices, UV bytes, PolyFlags and the slot (§7.2).
RS_STEP Status meshTriangles(const TriangleContext& c, const MeshData& m, std::vector<Ue1Triangle>& out) {
  out.resize(m.triCount);
  for (uint32_t i = 0; i < m.triCount; ++i) {
    const uint8_t* p = m.tris + size_t(i) * kMeshTri;
    const size_t at = m.trisAt + 1 + size_t(i) * kMeshTri;
    Ue1Triangle& t = out[i];
    for (int k = 0; k < 3; ++k) {
      t.v[k] = load_u16le(p + 2 * k);
      if (t.v[k] >= c.vertices)
        return fail("UPACKAGE", c.pkg.file, at, "%s: Tris[%u] uses vertex %u of %u", c.what.c_str(), i, t.v[k],
                    c.vertices);
      t.uv[k][0] = p[6 + 2 * k];
      t.uv[k][1] = p[7 + 2 * k];
    }
    t.type = typeOfPolyFlags(load_u32le(p + 12));
    const int32_t tex = load_i32le(p + 16);
    if (tex < 0 || tex > 255) return c.badTexture(at, "Tris", tex);
    t.texNum = uint8_t(tex);
  }
  return Status();
}

// LodMesh: Faces -> Wedges -> vertex + SpecialVerts, Materials for flags and slot (§8); the
// SpecialFaces are weapon triangles whose corners are vertex indices.
RS_STEP Status lodTriangles(const TriangleContext& c, const LodData& l, std::vector<Ue1Triangle>& out) {
  out.reserve(size_t(l.faceCount) + l.specialFaceCount);
  for (uint32_t i = 0; i < l.faceCount; ++i) {
    const uint8_t* f = l.faces + size_t(i) * kFace;
    const size_t at = l.facesAt + size_t(i) * kFace;
    const uint16_t mat = load_u16le(f + 6);
    if (mat >= l.materialCount)
      return fail("UPACKAGE", c.pkg.file, at, "%s: Faces[%u] MaterialIndex %u of %u materials", c.what.c_str(), i, mat,
                  l.materialCount);
    Ue1Triangle t;
    for (int k = 0; k < 3; ++k) {
      const uint16_t w = load_u16le(f + 2 * k);
      if (w >= l.wedgeCount)
        return fail("UPACKAGE", c.pkg.file, at, "%s: Faces[%u] uses wedge %u of %u", c.what.c_str(), i, w,
                    l.wedgeCount);
      const uint8_t* wp = l.wedges + size_t(w) * kWedge;
      const uint32_t v = uint32_t(load_u16le(wp)) + uint32_t(l.specialVerts);
      if (v >= c.vertices)
        return fail("UPACKAGE", c.pkg.file, at, "%s: Faces[%u] wedge %u points to vertex %u of %u", c.what.c_str(), i,
                    w, v, c.vertices);
      t.v[k] = uint16_t(v);
      t.uv[k][0] = wp[2];
      t.uv[k][1] = wp[3];
    }
    const uint8_t* mp = l.materials + size_t(mat) * kMaterial;
    t.type = typeOfPolyFlags(load_u32le(mp));
    const int32_t tex = load_i32le(mp + 4);
    if (tex < 0 || tex > 255) return c.badTexture(at, "Materials", tex);
    t.texNum = uint8_t(tex);
    out.push_back(t);
  }
  for (uint32_t i = 0; i < l.specialFaceCount; ++i) {
    const uint8_t* f = l.specialFaces + size_t(i) * kFace;
    Ue1Triangle t;
    t.type = 8;
    for (int k = 0; k < 3; ++k) {
      t.v[k] = load_u16le(f + 2 * k);
      if (t.v[k] >= c.vertices)
        return fail("UPACKAGE", c.pkg.file, l.facesAt, "%s: SpecialFaces[%u] uses vertex %u of %u", c.what.c_str(), i,
                    t.v[k], c.vertices);
    }
    out.push_back(t);
  }
  return Status();
}

// The UMesh fields in the loose decoder's words: frames, MESHMAP SCALE, MESH ORIGIN, sequences.
void partsOf(const Package& pkg, const PackageExport& ex, const MeshData& m, Ue1MeshParts& parts) {
  parts.name = ex.name;
  parts.file = pkg.name + "." + ex.name;
  parts.numVertices = uint32_t(m.frameVerts);
  parts.frames = m.verts;
  parts.numFrames = uint32_t(m.animFrames);
  parts.dx16 = m.vertBytes == 8;
  for (int k = 0; k < 3; ++k) {
    parts.scale[k] = m.scale[k];
    parts.origin[k] = m.origin[k];
    parts.rotation[k] = m.rotOrigin[k] / 256.0;  // 65536 a turn -> the .uc's 256
  }
  parts.sequences = m.sequences;
}

RS_STEP void recordVertexFacts(const MeshData& m, const LodData& l, bool lod, Model& out) {
  out.info.emplace_back("vertexBytes", format("%u", m.vertBytes));
  out.info.emplace_back("rotOrigin", format("%d %d %d", m.rotOrigin[0], m.rotOrigin[1], m.rotOrigin[2]));
  out.count("frameVerts", m.frameVerts);
  out.count("textureSlots", double(m.textures.size()));
  if (lod) {
    out.count("wedges", l.wedgeCount);
    out.count("specialVerts", l.specialVerts);
    out.count("specialFaces", l.specialFaceCount);
  }
}

}  // namespace

Status decodeVertexMesh(const Package& pkg, const uint8_t* data, uint32_t exportIndex, Model& out) {
  const PackageExport& ex = pkg.exports[exportIndex];
  const bool lod = equalsNoCase(ex.className, "LodMesh");
  MeshData m;
  LodData l;
  SkelData unusedSkel;
  std::string what;
  Status st = readMeshObject(pkg, data, exportIndex, lod, false, m, l, unusedSkel, what);
  if (!st.ok()) return st;
  if (m.frameVerts == 0 || m.animFrames == 0 || m.frameVerts > 0xFFFF)
    return fail("UPACKAGE", pkg.file, m.countsAt,
                "%s: FrameVerts %d, AnimFrames %d (1..65535 vertices, 1 frame or more)", what.c_str(), m.frameVerts,
                m.animFrames);
  if (lod && (l.specialVerts < 0 || l.modelVerts < 0 || int64_t(l.specialVerts) + l.modelVerts != m.frameVerts))
    return fail("UPACKAGE", pkg.file, m.countsAt, "%s: SpecialVerts %d + ModelVerts %d is not FrameVerts %d",
                what.c_str(), l.specialVerts, l.modelVerts, m.frameVerts);
  Ue1MeshParts parts;
  partsOf(pkg, ex, m, parts);
  const TriangleContext c{pkg, what, parts.numVertices};
  st = lod ? lodTriangles(c, l, parts.triangles) : meshTriangles(c, m, parts.triangles);
  if (!st.ok()) return st;
  if (parts.triangles.empty())
    return fail("UPACKAGE", pkg.file, lod ? l.facesAt : m.trisAt, "%s: no triangles", what.c_str());
  if (lod && l.remapCount)
    out.warnings.push_back(format("%s: RemapAnimVerts (%u entries) ignored", what.c_str(), l.remapCount));
  slotTextures(pkg, data, m.textures, parts.slotTextures, parts.slotMasked);
  checkBoxes(m, what, out);
  st = buildUe1Mesh(parts, out);
  if (!st.ok()) return st;
  recordVertexFacts(m, l, lod, out);
  return Status();
}

// ---- SkeletalMesh: written as the PSK chunks it was imported from, then read by decodePsk -------

namespace {

struct PskOut {
  std::vector<uint8_t> b;
  void u8(uint8_t v) { b.push_back(v); }
  void u16(uint16_t v) { u8(uint8_t(v)), u8(uint8_t(v >> 8)); }
  void u32(uint32_t v) { u16(uint16_t(v)), u16(uint16_t(v >> 16)); }
  void f32(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    u32(u);
  }
  void name(const std::string& s, size_t width) {
    for (size_t i = 0; i < width; ++i) u8(i + 1 < width && i < s.size() ? uint8_t(s[i]) : 0);
  }
  void chunk(const char* id, uint32_t size, uint32_t count) {
    name(id, 20);
    u32(20100422);
    u32(size);
    u32(count);
  }
};

}  // namespace

namespace {

// PNTS0000, VTXW0000 (wedge point = iVertex + SpecialVerts, UV = byte / 256), FACE0000.
RS_STEP Status pskGeometry(const Package& pkg, const std::string& what, const LodData& l, const SkelData& s,
                           PskOut& o) {
  const uint32_t P = s.pointCount, W = l.wedgeCount;
  o.chunk("PNTS0000", 12, P);
  o.b.insert(o.b.end(), s.points, s.points + size_t(P) * 12);
  o.chunk("VTXW0000", 16, W);
  for (uint32_t i = 0; i < W; ++i) {
    const uint8_t* wp = l.wedges + size_t(i) * kWedge;
    const uint32_t point = uint32_t(load_u16le(wp)) + uint32_t(l.specialVerts);
    if (point >= P)
      return fail("UPACKAGE", pkg.file, l.facesAt, "%s: Wedges[%u] points to point %u of %u", what.c_str(), i, point,
                  P);
    o.u32(point);
    o.f32(wp[2] / 256.0f);  // §9: the importer stored floor(u * 256)
    o.f32(wp[3] / 256.0f);
    o.u32(0);
  }
  o.chunk("FACE0000", 12, l.faceCount);
  for (uint32_t i = 0; i < l.faceCount; ++i) {
    const uint8_t* f = l.faces + size_t(i) * kFace;
    const size_t at = l.facesAt + size_t(i) * kFace;
    for (int k = 0; k < 3; ++k) {
      const uint16_t w = load_u16le(f + 2 * k);
      if (w >= W) return fail("UPACKAGE", pkg.file, at, "%s: Faces[%u] uses wedge %u of %u", what.c_str(), i, w, W);
      o.u16(w);
    }
    const uint16_t mat = load_u16le(f + 6);
    if (mat >= l.materialCount)
      return fail("UPACKAGE", pkg.file, at, "%s: Faces[%u] MaterialIndex %u of %u", what.c_str(), i, mat,
                  l.materialCount);
    o.u8(uint8_t(mat));
    o.u8(0);
    o.u32(0);
  }
  // Materials carry the PolyFlags in the Type byte's words, which PSK material flags share.
  o.chunk("MATT0000", 88, l.materialCount);
  for (uint32_t i = 0; i < l.materialCount; ++i) {
    const uint8_t* mp = l.materials + size_t(i) * kMaterial;
    o.name(format("material%u", i), 64);
    o.u32(uint32_t(load_i32le(mp + 4)));
    o.u32(typeOfPolyFlags(load_u32le(mp)));
    for (int k = 0; k < 4; ++k) o.u32(0);
  }
  return Status();
}

// REFSKELT as stored, RAWWEIGHTS from each bone's run of BoneWeights (§9).
RS_STEP Status pskSkeleton(const Package& pkg, const std::string& what, size_t at, const SkelData& s, PskOut& o) {
  const uint32_t B = uint32_t(s.bones.size());
  o.chunk("REFSKELT", 120, B);
  for (const SkelBone& b : s.bones) {
    o.name(b.name, 64);
    o.u32(b.flags);
    o.u32(uint32_t(b.children));
    o.u32(uint32_t(b.parent));
    for (float v : b.q) o.f32(v);
    for (float v : b.pos) o.f32(v);
    o.f32(b.length);
    for (float v : b.size) o.f32(v);
  }
  PskOut weights;
  uint32_t influences = 0;
  for (uint32_t bone = 0; bone < s.weightIdxCount && bone < B; ++bone) {
    const uint8_t* ip = s.weightIdx + size_t(bone) * 8;
    const uint32_t first = load_u16le(ip), number = load_u16le(ip + 2);
    if (uint64_t(first) + number > s.weightCount)
      return fail("UPACKAGE", pkg.file, at, "%s: BoneWeightIdx[%u] runs %u..%u past the %u BoneWeights", what.c_str(),
                  bone, first, first + number, s.weightCount);
    for (uint32_t k = 0; k < number; ++k) {
      const uint8_t* wp = s.weights + size_t(first + k) * 4;
      weights.f32(load_u16le(wp + 2) / 65535.0f);
      weights.u32(load_u16le(wp));
      weights.u32(bone);
      ++influences;
    }
  }
  o.chunk("RAWWEIGHTS", 12, influences);
  o.b.insert(o.b.end(), weights.b.begin(), weights.b.end());
  return Status();
}

// Materials named by their texture slots, as the vertex meshes name them.
RS_STEP void nameSkeletalMaterials(const Package& pkg, const uint8_t* data, const MeshData& m, const LodData& l,
                                   Model& out) {
  std::vector<std::vector<std::string>> names;
  std::vector<uint8_t> masked;
  slotTextures(pkg, data, m.textures, names, masked);
  for (uint32_t i = 0; i < l.materialCount && i < out.materials.size(); ++i) {
    const int32_t slot = load_i32le(l.materials + size_t(i) * kMaterial + 4);
    Material& mat = out.materials[i];
    mat.textureNames.clear();
    if (slot >= 0 && size_t(slot) < names.size()) {
      mat.textureNames = names[size_t(slot)];
      if (masked[size_t(slot)] && mat.blend == Blend::Opaque && !mat.hidden) mat.blend = Blend::Masked;
    }
    mat.name = format("slot%d", slot);
  }
}

}  // namespace

// The UT importer copied the .psk's points, wedges, faces, bones and weights: written back as
// PSK chunks, they go through the PSK decoder (axes, winding, skinning) like the loose file.
Status decodeSkeletalMesh(const Package& pkg, const uint8_t* data, uint32_t exportIndex, Model& out) {
  MeshData m;
  LodData l;
  SkelData s;
  std::string what;
  Status st = readMeshObject(pkg, data, exportIndex, true, true, m, l, s, what);
  if (!st.ok()) return st;
  if (l.specialVerts < 0)
    return fail("UPACKAGE", pkg.file, m.countsAt, "%s: SpecialVerts %d", what.c_str(), l.specialVerts);
  if (s.bones.size() > 65535)
    return fail("UPACKAGE", pkg.file, m.countsAt, "%s: %zu bones, at most 65535", what.c_str(), s.bones.size());
  if (l.materialCount > 255)
    return fail("UPACKAGE", pkg.file, l.facesAt, "%s: %u materials, at most 255", what.c_str(), l.materialCount);
  PskOut o;
  o.b.reserve(32 * 8 + size_t(s.pointCount) * 12 + size_t(l.wedgeCount) * 16 + size_t(l.faceCount) * 12 +
              s.bones.size() * 120 + size_t(s.weightCount) * 12 + size_t(l.materialCount) * 88);
  o.chunk("ACTRHEAD", 0, 0);
  st = pskGeometry(pkg, what, l, s, o);
  if (st.ok()) st = pskSkeleton(pkg, what, m.countsAt, s, o);
  if (!st.ok()) return st;
  const std::string& name = pkg.exports[exportIndex].name;
  st = decodePsk(o.b.data(), o.b.size(), name, out);
  if (!st.ok())
    return fail("UPACKAGE", pkg.file, pkg.exports[exportIndex].serialOffset, "%s: %s", what.c_str(), st.error.c_str());
  out.name = name;
  if (!out.meshes.empty()) out.meshes[0].name = name;
  // Facts of the .psk it went through, which no file has: left out.
  out.info.erase(std::remove_if(out.info.begin(), out.info.end(),
                                [](const std::pair<std::string, std::string>& i) {
                                  return i.first == "typeFlag" || i.first == "faceChunk";
                                }),
                 out.info.end());
  nameSkeletalMaterials(pkg, data, m, l, out);
  // Shown where the engine shows it (§11.2), as the loose .psk with its script is.
  SkeletalPlacement pl;
  for (int k = 0; k < 3; ++k) {
    pl.origin[k] = m.origin[k];
    pl.scale[k] = m.scale[k];
    pl.rotation[k] = m.rotOrigin[k] / 256.0;  // 65536 a turn -> the .uc's 256
  }
  placeSkeletalModel(out, pl, what);
  if (s.defaultAnimation) out.info.emplace_back("defaultAnimation", packageObjectPath(pkg, s.defaultAnimation));
  out.info.emplace_back("rotOrigin", format("%d %d %d", m.rotOrigin[0], m.rotOrigin[1], m.rotOrigin[2]));
  out.count("textureSlots", double(m.textures.size()));
  out.count("sequences", double(m.sequences.size()));
  return Status();
}

}  // namespace upkg
}  // namespace rs
