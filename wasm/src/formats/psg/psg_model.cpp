// RenderModelData (bones + mesh table) -> RenderOptiMeshData -> VertexDescriptor / VertexBuffer /
// IndexBuffer / RenderMaterialData (spec §6, §7.3–§7.10, §8).
#include <cinttypes>
#include <cmath>
#include <cstring>

#include "convert/chunks.h"
#include "convert/math.h"
#include "convert/skin.h"
#include "formats/psg/psg_internal.h"

namespace rs {
namespace psg {
namespace {

#define PSG_FAIL(at, ...) ::rs::fail("PSG", ctx.arena.file, size_t(at), __VA_ARGS__)

// RSX vertex types (CELL_GCM_VERTEX_*), spec §7.6.
enum : uint8_t { kS1 = 1, kF = 2, kSF = 3, kUB = 4, kS32K = 5, kCMP = 6, kUB256 = 7 };
// Attribute slots.
enum : uint8_t { kPosition = 0, kBlendWeight = 1, kNormal = 2, kColor0 = 3, kBlendIndices = 7, kTex0 = 8, kTex5 = 13 };

const char* const kSlotNames[16] = {"XYZ",   "BLENDWEIGHT",  "NORMAL",  "COLOR0",  "COLOR1", "FOG",
                                    "PSIZE", "BLENDINDICES", "TEX0",    "TEX1",    "TEX2",   "TEX3",
                                    "TEX4",  "TEX5",         "TANGENT", "BINORMAL"};
const char* const kTypeNames[8] = {"?", "S1", "F32", "SF", "UB", "S32K", "CMP", "UB256"};

struct Element {
  uint8_t type = 0, count = 0, stream = 0, offset = 0, slot = 0;
  uint16_t stride = 0;
};

uint32_t elementBytes(uint8_t type, uint8_t count) {
  switch (type) {
    case kF: return 4u * count;
    case kS1:
    case kSF:
    case kS32K: return 2u * count;
    case kCMP: return 4;
    default: return count;  // UB, UB256
  }
}

float halfToFloat(uint16_t h) {
  const uint32_t e = (h >> 10) & 31, m = h & 1023;
  float v;
  if (e == 0)
    v = std::ldexp(float(m), -24);
  else if (e == 31)
    v = m ? NAN : INFINITY;
  else
    v = std::ldexp(float(m | 1024), int(e) - 25);
  return (h & 0x8000) ? -v : v;
}

// Loads an element's components (CMP yields 3). `rawInts` keeps S1 and UB as plain integers
// (positions are scaled later, palette slots are indices).
inline void loadElement(const Element& e, const uint8_t* p, float* o, bool rawInts) {
  switch (e.type) {
    case kS1:
      for (int c = 0; c < e.count; ++c) {
        float v = float(int16_t(load_u16be(p + 2 * c)));
        o[c] = rawInts ? v : std::fmax(v / 32767.0f, -1.0f);
      }
      break;
    case kF:
      for (int c = 0; c < e.count; ++c) o[c] = load_f32be(p + 4 * c);
      break;
    case kSF:
      for (int c = 0; c < e.count; ++c) o[c] = halfToFloat(load_u16be(p + 2 * c));
      break;
    case kUB:
      for (int c = 0; c < e.count; ++c) o[c] = rawInts ? float(p[c]) : p[c] / 255.0f;
      break;
    case kS32K:
      for (int c = 0; c < e.count; ++c) o[c] = float(int16_t(load_u16be(p + 2 * c)));
      break;
    case kCMP: {
      // RSX CMP = X11 Y11 Z10, signed-normalised, read as one big-endian word (spec §7.6, §9).
      uint32_t w = load_u32be(p);
      o[0] = float(int32_t(w << 21) >> 21) / 1023.0f;
      o[1] = float(int32_t(w << 10) >> 21) / 1023.0f;
      o[2] = float(int32_t(w) >> 22) / 511.0f;
      break;
    }
    default:  // UB256
      for (int c = 0; c < e.count; ++c) o[c] = float(p[c]);
      break;
  }
}

int components(const Element& e) { return e.type == kCMP ? 3 : e.count; }

// ---- affine matrices, column-vector form, three.js element order (column-major) ----
struct Affine {
  double a[3][3];  // a[row][col]
  double t[3];
};

// The file's 16 floats (row-vector Matrix44, translation in row 3) are, in file order, the
// column-major elements of the equivalent column-vector matrix (spec §7.3).
Affine fromFile(const float* f) {
  Affine m;
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) m.a[r][c] = f[4 * c + r];
  for (int r = 0; r < 3; ++r) m.t[r] = f[12 + r];
  return m;
}

double det3(const Affine& m) {
  const double(*a)[3] = m.a;
  return a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
         a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
}

bool invert(const Affine& m, Affine& o) {
  const double d = det3(m);
  if (!(std::fabs(d) > 1e-20) || !std::isfinite(d)) return false;
  const double(*a)[3] = m.a;
  const double id = 1.0 / d;
  o.a[0][0] = (a[1][1] * a[2][2] - a[1][2] * a[2][1]) * id;
  o.a[0][1] = (a[0][2] * a[2][1] - a[0][1] * a[2][2]) * id;
  o.a[0][2] = (a[0][1] * a[1][2] - a[0][2] * a[1][1]) * id;
  o.a[1][0] = (a[1][2] * a[2][0] - a[1][0] * a[2][2]) * id;
  o.a[1][1] = (a[0][0] * a[2][2] - a[0][2] * a[2][0]) * id;
  o.a[1][2] = (a[0][2] * a[1][0] - a[0][0] * a[1][2]) * id;
  o.a[2][0] = (a[1][0] * a[2][1] - a[1][1] * a[2][0]) * id;
  o.a[2][1] = (a[0][1] * a[2][0] - a[0][0] * a[2][1]) * id;
  o.a[2][2] = (a[0][0] * a[1][1] - a[0][1] * a[1][0]) * id;
  for (int r = 0; r < 3; ++r) o.t[r] = -(o.a[r][0] * m.t[0] + o.a[r][1] * m.t[1] + o.a[r][2] * m.t[2]);
  return true;
}

Affine mul(const Affine& p, const Affine& q) {
  Affine o;
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) o.a[r][c] = p.a[r][0] * q.a[0][c] + p.a[r][1] * q.a[1][c] + p.a[r][2] * q.a[2][c];
    o.t[r] = p.a[r][0] * q.t[0] + p.a[r][1] * q.t[1] + p.a[r][2] * q.t[2] + p.t[r];
  }
  return o;
}

// three.js Matrix4.decompose: a negative determinant becomes a negative X scale (the right-hand
// finger IBPs of the skater rig are mirrored, spec §7.4).
void decompose(const Affine& m, float* t, float* q, float* s) {
  double sx = std::sqrt(m.a[0][0] * m.a[0][0] + m.a[1][0] * m.a[1][0] + m.a[2][0] * m.a[2][0]);
  double sy = std::sqrt(m.a[0][1] * m.a[0][1] + m.a[1][1] * m.a[1][1] + m.a[2][1] * m.a[2][1]);
  double sz = std::sqrt(m.a[0][2] * m.a[0][2] + m.a[1][2] * m.a[1][2] + m.a[2][2] * m.a[2][2]);
  if (det3(m) < 0) sx = -sx;
  for (int r = 0; r < 3; ++r) t[r] = float(m.t[r]) + 0.0f;  // no -0 from the inversion
  s[0] = float(sx);
  s[1] = float(sy);
  s[2] = float(sz);
  double r[3][3];
  const double inv[3] = {sx != 0 ? 1 / sx : 0, sy != 0 ? 1 / sy : 0, sz != 0 ? 1 / sz : 0};
  for (int i = 0; i < 3; ++i)
    for (int c = 0; c < 3; ++c) r[i][c] = m.a[i][c] * inv[c];
  const double tr = r[0][0] + r[1][1] + r[2][2];
  double x, y, z, w;
  if (tr > 0) {
    double k = 0.5 / std::sqrt(tr + 1.0);
    w = 0.25 / k;
    x = (r[2][1] - r[1][2]) * k;
    y = (r[0][2] - r[2][0]) * k;
    z = (r[1][0] - r[0][1]) * k;
  } else if (r[0][0] > r[1][1] && r[0][0] > r[2][2]) {
    double k = 2.0 * std::sqrt(1.0 + r[0][0] - r[1][1] - r[2][2]);
    w = (r[2][1] - r[1][2]) / k;
    x = 0.25 * k;
    y = (r[0][1] + r[1][0]) / k;
    z = (r[0][2] + r[2][0]) / k;
  } else if (r[1][1] > r[2][2]) {
    double k = 2.0 * std::sqrt(1.0 + r[1][1] - r[0][0] - r[2][2]);
    w = (r[0][2] - r[2][0]) / k;
    x = (r[0][1] + r[1][0]) / k;
    y = 0.25 * k;
    z = (r[1][2] + r[2][1]) / k;
  } else {
    double k = 2.0 * std::sqrt(1.0 + r[2][2] - r[0][0] - r[1][1]);
    w = (r[1][0] - r[0][1]) / k;
    x = (r[0][2] + r[2][0]) / k;
    y = (r[1][2] + r[2][1]) / k;
    z = 0.25 * k;
  }
  q[0] = float(x);
  q[1] = float(y);
  q[2] = float(z);
  q[3] = float(w);
  normalizeQuat(q);
}

// ---- materials (spec §7.10) ----

// What a material's channels say: its name, its diffuse texture and the info line listing them.
struct Channels {
  std::string name;  // the "Name" channel's stream, or empty
  std::string text;  // "input=value, ..." for the info panel
  bool haveDiffuse = false;
  uint64_t diffuse = 0;     // the "diffuse" channel's GUID, else the first other texture's
  std::string diffuseName;  // its stream name
};

// A material's 32-byte channels: a vector (flags & 2) or a texture GUID with a stream name.
RS_STEP Channels readChannels(const Object& md, uint32_t pChannels, uint32_t numChannels) {
  Channels ch;
  uint64_t fallback = 0;
  std::string fallbackName;
  for (uint32_t c = 0; c < numChannels; ++c) {
    const uint32_t at = pChannels + 32 * c;
    const std::string input = md.cstr(md.u32(at));
    const uint16_t flags = md.u16(at + 4);
    if (!ch.text.empty()) ch.text += ", ";
    if (flags & 2) {
      ch.text +=
          format("%s=(%g %g %g %g)", input.c_str(), md.f32(at + 16), md.f32(at + 20), md.f32(at + 24), md.f32(at + 28));
      continue;
    }
    const uint64_t guid = md.u64(at + 16);
    const std::string stream = md.cstr(md.u32(at + 24));
    ch.text += format("%s=%s %s", input.c_str(), guidHex(guid).c_str(), stream.c_str());
    if (input == "Name") {
      if (!stream.empty()) ch.name = stream;
    } else if (input == "diffuse" && !ch.haveDiffuse) {
      ch.haveDiffuse = true;
      ch.diffuse = guid;
      ch.diffuseName = stream;
    } else if (input != "AttribulatorMaterialName" && guid != 0 && fallback == 0) {
      fallback = guid;
      fallbackName = stream;
    }
  }
  if (!ch.haveDiffuse && fallback != 0) {
    ch.diffuse = fallback;
    ch.diffuseName = fallbackName;
    ch.haveDiffuse = true;
  }
  return ch;
}

// One tRMaterial of a RenderMaterialData, validated against the object.
Status readMaterial(Context& ctx, const Ref& ref, size_t at, Material& mat) {
  const Object md = object(ctx.arena, ref.row);
  if (!md.has(0, 0x14))
    return PSG_FAIL(md.offset, "RenderMaterialData (row %u) is %u bytes, its header needs 20", ref.row, md.size);
  const uint32_t numMaterials = md.u32(0), pMaterials = md.u32(8);
  if (!md.has(pMaterials, uint64_t(numMaterials) * 12))
    return PSG_FAIL(md.offset, "RenderMaterialData declares %u materials of 12 bytes at +0x%X, object is %u bytes",
                    numMaterials, pMaterials, md.size);
  if (ref.inner < pMaterials || (ref.inner - pMaterials) % 12 != 0 || (ref.inner - pMaterials) / 12 >= numMaterials)
    return PSG_FAIL(at, "m_pMaterial points at byte 0x%X of RenderMaterialData, not at one of its %u materials",
                    ref.inner, numMaterials);
  const uint32_t m = ref.inner;
  const uint32_t numChannels = md.u32(m), pChannels = md.u32(m + 8);
  if (!md.has(pChannels, uint64_t(numChannels) * 32))
    return PSG_FAIL(md.offset + m, "material declares %u channels of 32 bytes at +0x%X, RenderMaterialData is %u bytes",
                    numChannels, pChannels, md.size);
  Status spent = ctx.spend(12 + uint64_t(numChannels) * 32, md.offset + m, "a material's channels");
  if (!spent.ok()) return spent;
  const Channels ch = readChannels(md, pChannels, numChannels);
  mat.name = ch.name.empty() ? format("material_%zu", ctx.out.materials.size()) : ch.name;
  if (ch.haveDiffuse && ch.diffuse != 0) {
    mat.guid = guidHex(ch.diffuse);
    // Texture arenas name their TOC entries "0x<guid>.Texture" (Texture.name); CAS texture
    // files are "0x<guid>.psg"; the stream name is the artist's name for the image.
    mat.textureNames.push_back("0x" + mat.guid + ".Texture");
    mat.textureNames.push_back("0x" + mat.guid + ".psg");
    if (!ch.diffuseName.empty()) mat.textureNames.push_back(ch.diffuseName);
  }
  ctx.out.info.emplace_back(format("material %zu", ctx.out.materials.size()), ch.text);
  return Status();
}

// The Model material of an optimesh's m_pMaterial, made once per (row, material).
Status materialIndex(Context& ctx, const Ref& ref, size_t at, uint32_t& index) {
  const uint64_t key = ref.null ? ~0ull : (uint64_t(ref.row) << 32) | ref.inner;
  const auto known = ctx.materialOfKey.find(key);
  if (known != ctx.materialOfKey.end()) {
    index = known->second;
    return Status();
  }
  Material mat;
  if (ref.null) {
    mat.name = "default";
  } else {
    Status s = readMaterial(ctx, ref, at, mat);
    if (!s.ok()) return s;
  }
  index = uint32_t(ctx.out.materials.size());
  ctx.out.materials.push_back(std::move(mat));
  ctx.materialOfKey.emplace(key, index);
  return Status();
}

// ---- RenderOptiMeshData (spec §7.5–§7.9, §8) ----

struct MeshJob {
  uint32_t boneBase = 0;
  uint32_t numBones = 0;
  std::string name;
};

// The optimesh header: bounds, references, islands (draw params) and the bone palette.
struct OptiMesh {
  Object o;
  float bbMin[3], bbMax[3];
  Ref material, descriptor, helper, indexBuffer, vertexBuffer;
  uint32_t numIslands = 0, pDraw = 0, numRemap = 0, pRemap = 0;
};

RS_STEP Status readOptiMeshHeader(Context& ctx, uint32_t row, const MeshJob& job, OptiMesh& m) {
  const Arena& a = ctx.arena;
  const Object& o = m.o = object(a, row);
  if (!o.has(0, 0x60))
    return PSG_FAIL(o.offset, "RenderOptiMeshData (row %u) is %u bytes, its header needs 96", row, o.size);
  for (int k = 0; k < 3; ++k) {
    m.bbMin[k] = o.f32(4 * k);
    m.bbMax[k] = o.f32(0x10 + 4 * k);
  }
  const struct {
    uint32_t at;
    const char* what;
    uint32_t type;
    bool nullable;
    Ref& ref;
  } refs[] = {
      {0x24, "RenderOptiMeshData.m_pMaterial", kRenderMaterialData, true, m.material},
      {0x28, "RenderOptiMeshData.m_pVertexDescriptor", kVertexDescriptor, false, m.descriptor},
      {0x2C, "RenderOptiMeshData.m_pMeshHelper", kMeshHelper, true, m.helper},
      {0x30, "RenderOptiMeshData.m_pIndexBuffer", kIndexBuffer, false, m.indexBuffer},
      {0x34, "RenderOptiMeshData.m_pVertexBuffer", kVertexBuffer, false, m.vertexBuffer},
  };
  for (const auto& r : refs) {
    Status s = a.expect(o.u32(r.at), o.offset + r.at, r.what, r.type, r.nullable, r.ref);
    if (!s.ok()) return s;
  }
  m.numIslands = o.u32(0x38), m.pDraw = o.u32(0x44);
  m.numRemap = o.u32(0x48), m.pRemap = o.u32(0x4C);
  if (!o.has(m.pDraw, uint64_t(m.numIslands) * 12))
    return PSG_FAIL(o.offset + 0x38, "RenderOptiMeshData declares %u islands of 12 bytes at +0x%X, object is %u bytes",
                    m.numIslands, m.pDraw, o.size);
  if (!o.has(m.pRemap, uint64_t(m.numRemap) * 2))
    return PSG_FAIL(o.offset + 0x48, "RenderOptiMeshData declares %u remap indices at +0x%X, object is %u bytes",
                    m.numRemap, m.pRemap, o.size);
  if (o.u32(0x50) != 0)
    ctx.out.warnings.push_back(
        format("%s: %u blend shapes (morph targets) are not decoded", job.name.c_str(), o.u32(0x50)));
  return Status();
}

// VertexDescriptor (§7.6): the stream-0 elements the decoder uses, by attribute slot.
struct Layout {
  Element el[16];
  int pos = -1, nrm = -1, wgt = -1, idx = -1, col = -1;
  int uvEl[6] = {};
  int numUv = 0;
  uint32_t stride = 0;
  std::string text;  // for the info panel
};

// Validates one 8-byte element (type, count, slot) and appends it to the layout text.
Status readElement(Context& ctx, const Object& vd, uint32_t i, Element& e, std::string& text) {
  const uint32_t at = 16 + 8 * i;
  e.type = vd.p[at];
  e.count = vd.p[at + 1];
  e.stream = vd.p[at + 2];
  e.offset = vd.p[at + 3];
  e.stride = vd.u16(at + 4);
  e.slot = vd.p[at + 6];
  if (e.type < kS1 || e.type > kUB256)
    return PSG_FAIL(vd.offset + at, "vertex element %u has unknown vertex type %u", i, e.type);
  if (e.count < 1 || e.count > 4)
    return PSG_FAIL(vd.offset + at + 1, "vertex element %u has %u components (1 to 4 allowed)", i, e.count);
  if (e.slot > 15)
    return PSG_FAIL(vd.offset + at + 6, "vertex element %u has attribute slot %u (0 to 15 allowed)", i, e.slot);
  if (!text.empty()) text += ", ";
  if (e.type == kCMP)
    text += format("%s CMP @%u", kSlotNames[e.slot], e.offset);
  else
    text += format("%s %s\xC3\x97%u @%u", kSlotNames[e.slot], kTypeNames[e.type], e.count, e.offset);
  return Status();
}

// The first element of each slot is the one decoded; TEX0..TEX5 with two components are UV sets.
void assignSlot(Layout& l, const Element& e, uint32_t i) {
  switch (e.slot) {
    case kPosition:
      if (l.pos < 0) l.pos = int(i);
      break;
    case kNormal:
      if (l.nrm < 0) l.nrm = int(i);
      break;
    case kBlendWeight:
      if (l.wgt < 0) l.wgt = int(i);
      break;
    case kBlendIndices:
      if (l.idx < 0) l.idx = int(i);
      break;
    case kColor0:
      if (l.col < 0) l.col = int(i);
      break;
    default:
      if (e.slot >= kTex0 && e.slot <= kTex5 && e.count >= 2) l.uvEl[l.numUv++] = int(i);
      break;
  }
}

RS_STEP Status readVertexDescriptor(Context& ctx, const Ref& ref, const MeshJob& job, Layout& l) {
  const Object vd = object(ctx.arena, ref.row);
  if (!vd.has(0, 16))
    return PSG_FAIL(vd.offset, "VertexDescriptor (row %u) is %u bytes, its header needs 16", ref.row, vd.size);
  const uint32_t numElements = vd.u16(0x0A);
  if (numElements == 0 || numElements > 16)
    return PSG_FAIL(vd.offset + 0x0A, "VertexDescriptor declares %u elements (1 to 16 allowed)", numElements);
  if (!vd.has(16, uint64_t(numElements) * 8))
    return PSG_FAIL(vd.offset + 0x0A, "VertexDescriptor declares %u elements of 8 bytes, object is %u bytes",
                    numElements, vd.size);
  for (uint32_t i = 0; i < numElements; ++i) {
    Element& e = l.el[i];
    Status s = readElement(ctx, vd, i, e, l.text);
    if (!s.ok()) return s;
    const uint32_t at = 16 + 8 * i;
    if (e.stream != 0) {
      ctx.out.warnings.push_back(format("%s: vertex element %s in stream %u ignored (only stream 0 is decoded)",
                                        job.name.c_str(), kSlotNames[e.slot], e.stream));
      continue;
    }
    if (l.stride == 0) l.stride = e.stride;
    if (e.stride != l.stride || l.stride == 0)
      return PSG_FAIL(vd.offset + at + 4, "vertex element %u has stride %u, stream 0 stride is %u", i, e.stride,
                      l.stride);
    if (uint32_t(e.offset) + elementBytes(e.type, e.count) > l.stride)
      return PSG_FAIL(vd.offset + at + 3, "vertex element %u (%u bytes at %u) overruns the %u-byte vertex", i,
                      elementBytes(e.type, e.count), e.offset, l.stride);
    assignSlot(l, e, i);
  }
  if (l.pos < 0) return PSG_FAIL(vd.offset, "VertexDescriptor has no stream-0 position (XYZ) element");
  // UV sets in slot order (TEX0 first).
  for (int i = 1; i < l.numUv; ++i)
    for (int j = i; j > 0 && l.el[l.uvEl[j]].slot < l.el[l.uvEl[j - 1]].slot; --j) std::swap(l.uvEl[j], l.uvEl[j - 1]);
  return Status();
}

// VertexBuffer and IndexBuffer (§7.7, §7.8): their bytes in their BaseResources.
struct Buffers {
  const uint8_t* vb = nullptr;
  const uint8_t* ib = nullptr;
  uint32_t vbBytes = 0, vertexCount = 0, numIndices = 0, indexSize = 0;
};

RS_STEP Status readBuffers(Context& ctx, const OptiMesh& m, const Layout& l, const MeshJob& job, Buffers& b) {
  const Arena& a = ctx.arena;
  const Object vbo = object(a, m.vertexBuffer.row), ibo = object(a, m.indexBuffer.row);
  if (!vbo.has(0, 16))
    return PSG_FAIL(vbo.offset, "VertexBuffer (row %u) is %u bytes, needs 16", m.vertexBuffer.row, vbo.size);
  if (!ibo.has(0, 20))
    return PSG_FAIL(ibo.offset, "IndexBuffer (row %u) is %u bytes, needs 20", m.indexBuffer.row, ibo.size);
  Ref vbRes, ibRes;
  Status s = a.expectResource(vbo.u32(0), vbo.offset, "VertexBuffer.baseResource", vbRes);
  if (!s.ok()) return s;
  if (!(s = a.expectResource(ibo.u32(0), ibo.offset, "IndexBuffer.baseResource", ibRes)).ok()) return s;
  b.vbBytes = vbo.u32(8);
  if (b.vbBytes > a.rows[vbRes.row].size)
    return PSG_FAIL(vbo.offset + 8, "VertexBuffer declares %u bytes, its BaseResource (row %u) holds %u", b.vbBytes,
                    vbRes.row, a.rows[vbRes.row].size);
  b.numIndices = ibo.u32(8), b.indexSize = ibo.u32(12);
  if (b.indexSize != 2 && b.indexSize != 4)
    return PSG_FAIL(ibo.offset + 12, "IndexBuffer index size is %u bytes (2 or 4 expected)", b.indexSize);
  if (uint64_t(b.numIndices) * b.indexSize > a.rows[ibRes.row].size)
    return PSG_FAIL(ibo.offset + 8,
                    "IndexBuffer declares %u indices of %u bytes, its BaseResource (row %u) holds %u bytes",
                    b.numIndices, b.indexSize, ibRes.row, a.rows[ibRes.row].size);
  if (!(s = ctx.spend(uint64_t(m.o.size) + b.vbBytes + uint64_t(b.numIndices) * b.indexSize, m.o.offset,
                      "RenderOptiMeshData with its vertex and index buffers"))
           .ok())
    return s;
  b.vertexCount = b.vbBytes / l.stride;
  if (b.vbBytes % l.stride != 0)
    ctx.out.warnings.push_back(
        format("%s: vertex buffer of %u bytes is not a multiple of the %u-byte stride; %u trailing bytes ignored",
               job.name.c_str(), b.vbBytes, l.stride, b.vbBytes % l.stride));
  b.vb = a.data + a.rows[vbRes.row].offset;
  b.ib = a.data + a.rows[ibRes.row].offset;
  return Status();
}

// Islands (draw params, §7.9): triangle lists inside the index buffer. Returns the indices they
// draw in `islandIndices`.
RS_STEP Status checkIslands(Context& ctx, const OptiMesh& m, const Buffers& b, const MeshJob& job,
                            uint64_t& islandIndices) {
  const Object& o = m.o;
  islandIndices = 0;
  for (uint32_t i = 0; i < m.numIslands; ++i) {
    const uint32_t d = m.pDraw + 12 * i;
    const uint32_t start = o.u32(d), count = o.u32(d + 4);
    const uint8_t prim = o.p[d + 8];
    if (prim != 5)
      return PSG_FAIL(o.offset + d + 8, "island %u primitive type is %u; only triangle lists (5) occur in Skate arenas",
                      i, prim);
    if (uint64_t(start) + count > b.numIndices)
      return PSG_FAIL(o.offset + d, "island %u draws indices %u..%" PRIu64 ", the index buffer has %u", i, start,
                      uint64_t(start) + count, b.numIndices);
    islandIndices += count;
  }
  if (islandIndices > uint64_t(b.numIndices) * 4)
    return PSG_FAIL(o.offset + 0x38, "%u islands draw %" PRIu64 " indices from a %u-index buffer", m.numIslands,
                    islandIndices, b.numIndices);
  if (m.numIslands > 0 && islandIndices != b.numIndices)
    ctx.out.warnings.push_back(format("%s: islands draw %" PRIu64 " indices, the index buffer has %u", job.name.c_str(),
                                      islandIndices, b.numIndices));
  return Status();
}

// Palette: local slot -> global bone (spec §7.5, §8.5); -1 for a bone the model lacks.
struct Palette {
  int32_t bone[256];
  uint32_t size = 0;
};

RS_STEP Palette readPalette(Context& ctx, const OptiMesh& m, const MeshJob& job) {
  Palette pal;
  pal.size = m.numRemap < 256 ? m.numRemap : 256;
  uint32_t bad = 0;
  for (uint32_t i = 0; i < pal.size; ++i) {
    const uint16_t b = m.o.u16(m.pRemap + 2 * i);
    if (b < job.numBones) {
      pal.bone[i] = int32_t(job.boneBase + b);
    } else {
      pal.bone[i] = -1;
      ++bad;
    }
  }
  if (bad)
    ctx.out.warnings.push_back(
        format("%s: %u palette entries name bones beyond the %u in RenderModelData; their weights are dropped",
               job.name.c_str(), bad, job.numBones));
  return pal;
}

// A normal element, renormalised; (0, 1, 0) when it has no length.
void readNormal(const Element& e, const uint8_t* vert, float* N) {
  float q[4] = {0, 0, 0, 0};
  loadElement(e, vert + e.offset, q, false);
  const float len = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
  const float inv = len > 1e-12f && std::isfinite(len) ? 1.0f / len : 0.0f;
  if (inv == 0.0f) {
    N[0] = 0, N[1] = 1, N[2] = 0;
  } else {
    N[0] = q[0] * inv, N[1] = q[1] * inv, N[2] = q[2] * inv;
  }
}

// COLOR0 as RGBA8: bytes as they are, other types clamped to 0..1 (missing components opaque white).
void readColor(const Element& e, const uint8_t* vert, uint8_t* C) {
  if (e.type == kUB || e.type == kUB256) {
    for (int k = 0; k < 4; ++k) C[k] = k < e.count ? vert[e.offset + k] : 255;
    return;
  }
  float q[4] = {1, 1, 1, 1};
  loadElement(e, vert + e.offset, q, false);
  for (int k = 0; k < 4; ++k) {
    float x = k < components(e) ? q[k] : 1.0f;
    x = x < 0 ? 0 : (x > 1 ? 1 : x);
    C[k] = uint8_t(std::lround(x * 255.0f));
  }
}

// BLENDWEIGHT and BLENDINDICES through the palette; returns the influences dropped.
uint32_t readInfluences(const Layout& l, const uint8_t* vert, const Palette& pal, size_t v, SkinBuilder& skin) {
  float w[4] = {1, 0, 0, 0}, slot[4] = {0, 1, 2, 3};
  int count = 4;
  if (l.wgt >= 0) {
    w[0] = 0;
    loadElement(l.el[l.wgt], vert + l.el[l.wgt].offset, w, false);
    count = components(l.el[l.wgt]);
  } else if (l.idx >= 0) {
    count = 1;
  }
  if (l.idx >= 0) loadElement(l.el[l.idx], vert + l.el[l.idx].offset, slot, true);
  uint32_t dropped = 0;
  for (int k = 0; k < count; ++k) {
    if (!(w[k] > 0.0f)) continue;
    const float sl = slot[k];
    if (!(sl >= 0.0f) || sl >= float(pal.size) || pal.bone[uint32_t(sl)] < 0) {
      ++dropped;
      continue;
    }
    skin.add(v, uint16_t(pal.bone[uint32_t(sl)]), w[k]);
  }
  return dropped;
}

// Raw position extent, for the 16-bit position scale.
struct RawBounds {
  float min[3] = {INFINITY, INFINITY, INFINITY}, max[3] = {-INFINITY, -INFINITY, -INFINITY};
};

// Every vertex of the buffer: positions (raw), normals, UVs, colours and influences.
RS_STEP uint32_t readVertices(const Layout& l, const Buffers& b, const Palette& pal, bool skinned, Mesh& mesh,
                              SkinBuilder& skin, RawBounds& raw) {
  const Element& ep = l.el[l.pos];
  const bool intPositions = ep.type == kS1 || ep.type == kS32K;
  uint32_t droppedInfluences = 0;
  forChunks(b.vertexCount, [&](size_t begin, size_t end) {
    for (size_t v = begin; v < end; ++v) {
      const uint8_t* vert = b.vb + v * l.stride;
      float c[4] = {0, 0, 0, 0};
      loadElement(ep, vert + ep.offset, c, true);
      float* P = &mesh.positions[v * 3];
      P[0] = c[0];
      P[1] = c[1];
      P[2] = c[2];
      if (intPositions)
        for (int k = 0; k < 3; ++k) {
          raw.min[k] = std::fmin(raw.min[k], c[k]);
          raw.max[k] = std::fmax(raw.max[k], c[k]);
        }
      if (l.nrm >= 0) readNormal(l.el[l.nrm], vert, &mesh.normals[v * 3]);
      for (int u = 0; u < l.numUv; ++u) {
        const Element& e = l.el[l.uvEl[u]];
        float q[4];
        loadElement(e, vert + e.offset, q, false);
        float* T = &mesh.uvs[size_t(u)][v * 2];
        T[0] = q[0];
        T[1] = 1.0f - q[1];  // the PS3 samples top-down images with v down
      }
      if (l.col >= 0) readColor(l.el[l.col], vert, &mesh.colors[v * 4]);
      if (skinned) droppedInfluences += readInfluences(l, vert, pal, v, skin);
    }
  });
  return droppedInfluences;
}

// 16-bit positions: scale from the optimesh AABB (spec §8.2), snapped to a power of two; then no
// non-finite component survives.
RS_STEP void scalePositions(Context& ctx, const OptiMesh& m, const MeshJob& job, bool intPositions,
                            const RawBounds& raw, Mesh& mesh) {
  if (intPositions && !mesh.positions.empty()) {
    double best = 0, ratio = 0;
    for (int k = 0; k < 3; ++k) {
      const double r = double(raw.max[k]) - double(raw.min[k]);
      const double ext = double(m.bbMax[k]) - double(m.bbMin[k]);
      if (r > best && ext > 0 && std::isfinite(ext)) {
        best = r;
        ratio = ext / r;
      }
    }
    double scale = 1.0 / 256.0;
    if (ratio > 0) {
      scale = std::exp2(std::round(std::log2(ratio)));
      ctx.out.info.emplace_back(job.name + " position scale",
                                format("%g (AABB extent / raw extent = %g, snapped to a power of two)", scale, ratio));
    } else {
      ctx.out.warnings.push_back(
          format("%s: 16-bit positions but the mesh AABB is empty; assuming raw/256", job.name.c_str()));
    }
    const float k = float(scale);
    for (float& x : mesh.positions) x *= k;
  }
  size_t nonFinite = 0;
  for (float& x : mesh.positions)
    if (!std::isfinite(x)) {
      x = 0;
      ++nonFinite;
    }
  if (nonFinite)
    ctx.out.warnings.push_back(format("%s: %zu non-finite position components set to 0", job.name.c_str(), nonFinite));
}

// Four strongest influences per vertex; unweighted vertices go to the palette's first bone.
RS_STEP void finishSkin(Context& ctx, const MeshJob& job, const Palette& pal, uint32_t numRemap,
                        uint32_t droppedInfluences, SkinBuilder& skin, Mesh& mesh) {
  const uint16_t fallback = uint16_t(pal.size > 0 && pal.bone[0] >= 0 ? pal.bone[0] : int32_t(job.boneBase));
  const SkinStats st = skin.finish(fallback);
  Model& out = ctx.out;
  if (droppedInfluences)
    out.warnings.push_back(format("%s: %u influences name palette slots outside the %u-entry palette; dropped",
                                  job.name.c_str(), droppedInfluences, numRemap));
  if (st.unweighted)
    out.warnings.push_back(
        format("%s: %zu vertices without weight bound to bone %u", job.name.c_str(), st.unweighted, fallback));
  if (st.renormalised)
    out.warnings.push_back(
        format("%s: %zu vertices had weights not summing to 1; renormalised", job.name.c_str(), st.renormalised));
  mesh.skinIndex = std::move(skin.index);
  mesh.skinWeight = std::move(skin.weight);
}

// Indices: islands are triangle lists, counter-clockwise front faces like three (verified on the
// sky-dome: its triangles face the inside of the dome), so they are copied as they are; one group
// per island, triangles naming a vertex past the buffer dropped.
RS_STEP void readIslands(Context& ctx, const OptiMesh& m, const Buffers& b, const MeshJob& job, uint32_t material,
                         uint64_t islandIndices, Mesh& mesh) {
  mesh.indices.reserve(size_t(m.numIslands ? islandIndices : b.numIndices));
  uint32_t dropped = 0;
  auto emit = [&](uint32_t start, uint32_t count) {
    Group g;
    g.start = uint32_t(mesh.indices.size());
    g.material = material;
    const uint32_t tris = count / 3;
    forChunks(tris, [&](size_t begin, size_t end) {
      for (size_t t = begin; t < end; ++t) {
        uint32_t i3[3];
        for (int k = 0; k < 3; ++k) {
          const size_t at = size_t(start) + 3 * t + size_t(k);
          i3[k] = b.indexSize == 2 ? load_u16be(b.ib + 2 * at) : load_u32be(b.ib + 4 * at);
        }
        if (i3[0] >= b.vertexCount || i3[1] >= b.vertexCount || i3[2] >= b.vertexCount) {
          ++dropped;
          continue;
        }
        mesh.indices.insert(mesh.indices.end(), i3, i3 + 3);
      }
    });
    g.count = uint32_t(mesh.indices.size()) - g.start;
    mesh.groups.push_back(g);
    if (count % 3)
      ctx.out.warnings.push_back(
          format("%s: island of %u indices is not a whole number of triangles", job.name.c_str(), count));
  };
  if (m.numIslands == 0) {
    ctx.out.warnings.push_back(format("%s: no islands; drawing the whole index buffer", job.name.c_str()));
    emit(0, b.numIndices);
  }
  for (uint32_t i = 0; i < m.numIslands; ++i) emit(m.o.u32(m.pDraw + 12 * i), m.o.u32(m.pDraw + 12 * i + 4));
  if (dropped)
    ctx.out.warnings.push_back(format("%s: %u triangles with indices beyond the %u vertices dropped", job.name.c_str(),
                                      dropped, b.vertexCount));
}

// The arrays a mesh's layout calls for, sized for its vertices.
RS_STEP void allocateMesh(const Layout& l, size_t n, Mesh& mesh) {
  mesh.positions.resize(n * 3);
  if (l.nrm >= 0) mesh.normals.resize(n * 3);
  mesh.uvs.resize(size_t(l.numUv));
  for (int u = 0; u < l.numUv; ++u) mesh.uvs[size_t(u)].resize(n * 2);
  if (l.col >= 0) mesh.colors.resize(n * 4);
}

RS_STEP Status decodeOptiMesh(Context& ctx, uint32_t row, const MeshJob& job) {
  OptiMesh m;
  Status s = readOptiMeshHeader(ctx, row, job, m);
  if (!s.ok()) return s;
  Layout l;
  if (!(s = readVertexDescriptor(ctx, m.descriptor, job, l)).ok()) return s;
  Buffers b;
  if (!(s = readBuffers(ctx, m, l, job, b)).ok()) return s;
  uint64_t islandIndices = 0;
  if (!(s = checkIslands(ctx, m, b, job, islandIndices)).ok()) return s;
  uint32_t material = 0;
  if (!(s = materialIndex(ctx, m.material, m.o.offset + 0x24, material)).ok()) return s;
  const Palette pal = readPalette(ctx, m, job);

  ctx.out.meshes.emplace_back();
  Mesh& mesh = ctx.out.meshes.back();
  mesh.name = job.name;
  allocateMesh(l, b.vertexCount, mesh);
  const bool skinned = (l.wgt >= 0 || l.idx >= 0) && job.numBones > 0 && m.numRemap > 0;
  if ((l.wgt >= 0 || l.idx >= 0) && !skinned)
    ctx.out.warnings.push_back(
        format("%s: skin elements present but no bones/palette; drawn unskinned", job.name.c_str()));
  SkinBuilder skin(skinned ? b.vertexCount : 0);
  RawBounds raw;
  const uint32_t droppedInfluences = readVertices(l, b, pal, skinned, mesh, skin, raw);
  const bool intPositions = l.el[l.pos].type == kS1 || l.el[l.pos].type == kS32K;
  scalePositions(ctx, m, job, intPositions, raw, mesh);
  if (skinned) finishSkin(ctx, job, pal, m.numRemap, droppedInfluences, skin, mesh);
  readIslands(ctx, m, b, job, material, islandIndices, mesh);

  ctx.out.info.emplace_back(job.name + " layout", l.text);
  ctx.vertices += b.vertexCount;
  ctx.indices += mesh.indices.size();
  ctx.triangles += mesh.indices.size() / 3;
  ctx.islands += m.numIslands;
  return Status();
}

// ---- RenderModelData (spec §7.3, §7.4) ----

struct ModelHeader {
  Object o;
  uint32_t pIBP = 0, pMeshTable = 0, pNameTable = 0, numMeshes = 0, numBones = 0;
};

RS_STEP Status readModelHeader(Context& ctx, uint32_t row, ModelHeader& h) {
  const Object& m = h.o = object(ctx.arena, row);
  if (!m.has(0, 0x40))
    return PSG_FAIL(m.offset, "RenderModelData (row %u) is %u bytes, its header needs 64", row, m.size);
  Status spent = ctx.spend(m.size, m.offset, "RenderModelData");
  if (!spent.ok()) return spent;
  h.pIBP = m.u32(0x20), h.pMeshTable = m.u32(0x24), h.pNameTable = m.u32(0x28);
  h.numMeshes = m.u16(0x32), h.numBones = m.u16(0x34);
  if (!m.has(h.pIBP, uint64_t(h.numBones) * 64))
    return PSG_FAIL(m.offset + 0x34,
                    "RenderModelData declares %u bones (64-byte matrices at +0x%X), object is %u bytes", h.numBones,
                    h.pIBP, m.size);
  if (!m.has(h.pNameTable, uint64_t(h.numBones) * 4))
    return PSG_FAIL(m.offset + 0x28,
                    "RenderModelData bone name table (%u entries at +0x%X) overruns the %u-byte object", h.numBones,
                    h.pNameTable, m.size);
  if (!m.has(h.pMeshTable, uint64_t(h.numMeshes) * 8))
    return PSG_FAIL(m.offset + 0x32, "RenderModelData declares %u meshes (8-byte rows at +0x%X), object is %u bytes",
                    h.numMeshes, h.pMeshTable, m.size);
  return Status();
}

// The TOC entry's name; else a static model's single "bone", which is the model/root name
// (spec §7.3); else the file name without its extension.
std::string modelNameOf(Context& ctx, uint32_t row, const ModelHeader& h) {
  const Object& m = h.o;
  const TocEntry* toc = ctx.tocFor(row);
  if (toc && !toc->name.empty()) return toc->name;
  if (h.numBones == 1 && m.u32(h.pNameTable) < m.size && !m.cstr(m.u32(h.pNameTable)).empty())
    return m.cstr(m.u32(h.pNameTable));
  const std::string& file = ctx.arena.file;
  std::string name = file.substr(file.find_last_of("/\\") + 1);
  name = name.substr(0, name.find_last_of('.'));
  if (name.empty()) name = format("model%u", row);
  return name;
}

RS_STEP Status readBoneNames(Context& ctx, const ModelHeader& h, std::vector<std::string>& names) {
  const Object& m = h.o;
  names.resize(h.numBones);
  for (uint32_t b = 0; b < h.numBones; ++b) {
    const uint32_t at = m.u32(h.pNameTable + 4 * b);
    if (at >= m.size)
      return PSG_FAIL(m.offset + h.pNameTable + 4 * b,
                      "bone %u name offset 0x%X is outside the %u-byte RenderModelData", b, at, m.size);
    names[b] = m.cstr(at);
  }
  return Status();
}

// The arena stores no hierarchy: parents come from the skater rig table (§7.4).
RS_STEP std::vector<int32_t> rigParents(Context& ctx, const std::string& modelName,
                                        const std::vector<std::string>& names) {
  std::vector<int32_t> parents;
  std::vector<std::string> unmatched;
  const size_t found = skaterParents(names, parents, unmatched);
  const size_t numBones = names.size();
  if (numBones > 1 && found == 0) {
    ctx.out.warnings.push_back(format(
        "%s: bone names are not the Skate 3 skater rig and the arena stores no hierarchy; the %zu bones are flat",
        modelName.c_str(), numBones));
  } else if (numBones > 1 && !unmatched.empty()) {
    std::string list;
    for (size_t i = 0; i < unmatched.size() && i < 5; ++i) list += (i ? ", " : "") + unmatched[i];
    if (unmatched.size() > 5) list += ", ...";
    ctx.out.warnings.push_back(format("%s: %zu bones are not in the Skate 3 skater rig table and became roots: %s",
                                      modelName.c_str(), unmatched.size(), list.c_str()));
  }
  return parents;
}

// Rest pose from the inverse bind matrices: world = IBP⁻¹, local = IBP(parent) · world.
RS_STEP void readBindPose(Context& ctx, const ModelHeader& h, const std::string& modelName,
                          const std::vector<std::string>& names, const std::vector<int32_t>& parents) {
  Skeleton& sk = ctx.out.skeleton;
  const uint32_t numBones = h.numBones, boneBase = uint32_t(sk.names.size());
  std::vector<Affine> ibp(numBones);
  for (uint32_t b = 0; b < numBones; ++b) {
    float f[16];
    for (int k = 0; k < 16; ++k) f[k] = h.o.f32(h.pIBP + 64 * b + 4 * k);
    ibp[b] = fromFile(f);
  }
  sk.names.reserve(boneBase + numBones);
  sk.parents.reserve(boneBase + numBones);
  sk.restTranslation.reserve(3 * (boneBase + numBones));
  sk.restRotation.reserve(4 * (boneBase + numBones));
  sk.restScale.reserve(3 * (boneBase + numBones));
  uint32_t singular = 0;
  for (uint32_t b = 0; b < numBones; ++b) {
    Affine world;
    if (!invert(ibp[b], world)) {
      ++singular;
      world = Affine{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, {0, 0, 0}};
    }
    const Affine local = parents[b] >= 0 ? mul(ibp[uint32_t(parents[b])], world) : world;
    float t[3], q[4], sc[3];
    decompose(local, t, q, sc);
    sk.names.push_back(names[b]);
    sk.parents.push_back(parents[b] >= 0 ? int32_t(boneBase) + parents[b] : -1);
    sk.restTranslation.insert(sk.restTranslation.end(), t, t + 3);
    sk.restRotation.insert(sk.restRotation.end(), q, q + 4);
    sk.restScale.insert(sk.restScale.end(), sc, sc + 3);
  }
  if (singular)
    ctx.out.warnings.push_back(format("%s: %u inverse bind matrices are singular; those bones rest at the origin",
                                      modelName.c_str(), singular));
}

// The mesh table: one RenderOptiMeshData per entry.
RS_STEP Status readMeshTable(Context& ctx, const ModelHeader& h, const std::string& modelName, uint32_t boneBase) {
  for (uint32_t k = 0; k < h.numMeshes; ++k) {
    const uint32_t at = h.pMeshTable + 8 * k;
    Ref opti;
    Status s = ctx.arena.expect(h.o.u32(at), h.o.offset + at, "RenderModelData mesh table entry", kRenderOptiMeshData,
                                false, opti);
    if (!s.ok()) return s;
    MeshJob job;
    job.boneBase = boneBase;
    job.numBones = h.numBones;
    job.name = h.numMeshes == 1 ? modelName : format("%s_%u", modelName.c_str(), k);
    if (!(s = decodeOptiMesh(ctx, opti.row, job)).ok()) return s;
  }
  return Status();
}

}  // namespace

Status decodeModelData(Context& ctx, uint32_t row) {
  ModelHeader h;
  Status s = readModelHeader(ctx, row, h);
  if (!s.ok()) return s;
  const std::string modelName = modelNameOf(ctx, row, h);
  if (ctx.out.name.empty()) ctx.out.name = modelName;
  const uint32_t boneBase = uint32_t(ctx.out.skeleton.names.size());
  std::vector<std::string> names;
  if (!(s = readBoneNames(ctx, h, names)).ok()) return s;
  const std::vector<int32_t> parents = rigParents(ctx, modelName, names);
  readBindPose(ctx, h, modelName, names, parents);
  if (h.numBones > 0) ctx.out.hasSkeleton = true;
  return readMeshTable(ctx, h, modelName, boneBase);
}

}  // namespace psg
}  // namespace rs
