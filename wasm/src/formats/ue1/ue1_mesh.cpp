// UE1 vertex mesh: _d.3d triangles + _a.3d frames (+ .uc settings) -> vertex-animated mesh.
// Spec: shared/specs/unreal-vertex-3d.md (section numbers below refer to it).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "convert/chunks.h"
#include "convert/math.h"
#include "convert/simd.h"
#include "formats/ue1/ue1.h"
#include "io/ascii.h"
#include "io/byte_reader.h"
#include "io/bytes.h"

namespace rs {
namespace {

constexpr size_t kDataHeader = 48;
constexpr size_t kTriangleSize = 16;
constexpr size_t kAnimHeader = 4;
// Frames and normals are stored per render vertex for every frame: refuse beyond this (bytes).
constexpr uint64_t kMaxFrameBytes = 512ull << 20;
// Per-frame normal rebuilding: frames x drawn triangle corners (see where it is checked).
constexpr uint64_t kMaxNormalUpdates = 1ull << 26;
constexpr size_t kMaxImportCandidates = 16;

enum RenderType : uint8_t {
  kNormal = 0,
  kTwoSided = 1,
  kTranslucent = 2,
  kMasked = 3,
  kModulated = 4,
  kAlphaBlend = 5,
  kWeapon = 8
};

const char* typeName(uint8_t t) {
  switch (t) {
    case kTwoSided: return "twosided";
    case kTranslucent: return "translucent";
    case kMasked: return "masked";
    case kModulated: return "modulated";
    case kAlphaBlend: return "alphablend";
    case kWeapon: return "weapon";
    default: return "normal";
  }
}

// A Type byte in words for the info panel (§2.3): render type, then its flag bits, "+"-joined.
std::string typeWords(uint8_t type) {
  static const char* const kRenderType[16] = {"normal",      "two-sided", "translucent", "masked", "modulated",
                                              "alpha blend", nullptr,     nullptr,       "weapon"};
  static const std::pair<uint8_t, const char*> kFlags[] = {
      {0x10, "unlit"}, {0x20, "flat"}, {0x40, "environment"}, {0x80, "no smooth"}};
  const char* name = kRenderType[type & 15];
  std::string words = name ? name : format("type %d (drawn as normal)", type & 15);
  for (const auto& f : kFlags)
    if (type & f.first) words += std::string("+") + f.second;
  return words;
}

struct Tri {
  uint16_t v[3];
  uint8_t uv[3][2];
  uint16_t key;  // (TextureNum << 8) | material type: render type | flag bits 0x70
};

std::string lastComponent(const std::string& ref) {
  size_t dot = ref.find_last_of('.');
  return dot == std::string::npos ? ref : ref.substr(dot + 1);
}

// Candidates for a texture reference: the imports' file stems (last import first), then the
// name itself (short name first, then the full Package.Group.Name reference).
// At most kMaxImportCandidates import names: a script importing one texture name thousands of times
// must not hand every material thousands of names (nor compare each with all the others).
void textureCandidates(const UcScript& script, const std::string& ref, std::vector<std::string>& out, bool& masked) {
  std::string shortName = lastComponent(ref);
  for (size_t i = script.textureImports.size(); i-- > 0;) {
    const UcTextureImport& t = script.textureImports[i];
    if (!equalsNoCase(t.name, ref) && !equalsNoCase(t.name, shortName)) continue;
    if (out.size() < kMaxImportCandidates) addUniqueNoCase(out, ucBaseName(t.file, true));
    if (t.flags & 2) masked = true;
  }
  addUniqueNoCase(out, shortName);
  addUniqueNoCase(out, ref);
}

// Standard UE rotation matrix (§7.1), rows = the rotated X/Y/Z axes; angles in 1/256 turns.
void rotationAxes(const double rot[3], double axes[3][3]) {
  const double k = 2.0 * 3.14159265358979323846 / 256.0;
  double p = rot[0] * k, y = rot[1] * k, r = rot[2] * k;
  double cp = std::cos(p), sp = std::sin(p), cy = std::cos(y), sy = std::sin(y), cr = std::cos(r), sr = std::sin(r);
  double m[3][3] = {{cp * cy, cp * sy, sp},
                    {sr * sp * cy - cr * sy, sr * sp * sy + cr * cy, -sr * cp},
                    {-(cr * sp * cy + sr * sy), cy * sr - cr * sp * sy, cr * cp}};
  std::memcpy(axes, m, sizeof m);
}

// Rotation matrix (columns c0, c1, c2) to a unit quaternion (x, y, z, w).
void matrixToQuat(const float c0[3], const float c1[3], const float c2[3], float q[4]) {
  float m00 = c0[0], m10 = c0[1], m20 = c0[2];
  float m01 = c1[0], m11 = c1[1], m21 = c1[2];
  float m02 = c2[0], m12 = c2[1], m22 = c2[2];
  float tr = m00 + m11 + m22;
  if (tr > 0) {
    float s = std::sqrt(tr + 1.0f) * 2;
    q[3] = 0.25f * s;
    q[0] = (m21 - m12) / s;
    q[1] = (m02 - m20) / s;
    q[2] = (m10 - m01) / s;
  } else if (m00 > m11 && m00 > m22) {
    float s = std::sqrt(1.0f + m00 - m11 - m22) * 2;
    q[3] = (m21 - m12) / s;
    q[0] = 0.25f * s;
    q[1] = (m01 + m10) / s;
    q[2] = (m02 + m20) / s;
  } else if (m11 > m22) {
    float s = std::sqrt(1.0f + m11 - m00 - m22) * 2;
    q[3] = (m02 - m20) / s;
    q[0] = (m01 + m10) / s;
    q[1] = 0.25f * s;
    q[2] = (m12 + m21) / s;
  } else {
    float s = std::sqrt(1.0f + m22 - m00 - m11) * 2;
    q[3] = (m10 - m01) / s;
    q[0] = (m02 + m20) / s;
    q[1] = (m12 + m21) / s;
    q[2] = 0.25f * s;
  }
  normalizeQuat(q);
}

inline void cross(const float a[3], const float b[3], float o[3]) {
  o[0] = a[1] * b[2] - a[2] * b[1];
  o[1] = a[2] * b[0] - a[0] * b[2];
  o[2] = a[0] * b[1] - a[1] * b[0];
}

inline bool normalize3(float v[3]) {
  float l = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (!(l > 1e-12f) || !std::isfinite(l)) return false;
  v[0] /= l, v[1] /= l, v[2] /= l;
  return true;
}

// ---- the decoder's steps, in the spec's order ----------------------------------------------------

// What every step shares: the three file names for messages and the model it fills.
struct Files {
  const std::string& data;
  const std::string& anim;
  const std::string& uc;
  Model& out;
  void warn(std::string w) { out.warnings.push_back(std::move(w)); }
};

// _d.3d header (§2.1, §2.5).
struct DataHeader {
  uint32_t numPolys = 0;
  uint32_t numVertices = 0;
};

RS_STEP Status readDataHeader(Files& f, const uint8_t* data, size_t dataSize, DataHeader& h) {
  if (!data || dataSize < kDataHeader)
    return fail("UE1", f.data, 0, "data file is %zu bytes, shorter than its 48-byte header", dataSize);
  h.numPolys = load_u16le(data);
  h.numVertices = load_u16le(data + 2);
  if (h.numPolys == 0) return fail("UE1", f.data, 0, "NumPolys is 0");
  if (h.numVertices < 3) return fail("UE1", f.data, 2, "NumVertices is %u, a mesh needs at least 3", h.numVertices);
  ByteReader dr(data, dataSize);
  dr.seek(kDataHeader);
  if (!dr.has(h.numPolys, kTriangleSize))
    return fail("UE1", f.data, 0,
                "NumPolys declares %u triangle%s of 16 bytes after the 48-byte header, %zu bytes remain", h.numPolys,
                h.numPolys == 1 ? "" : "s", dr.remaining());
  if (dr.remaining() > size_t(h.numPolys) * kTriangleSize)
    f.warn(format("%s: %zu trailing bytes after the triangles ignored", f.data.c_str(),
                  dr.remaining() - size_t(h.numPolys) * kTriangleSize));
  return Status();
}

// _a.3d header and vertex encoding (§3.1, §3.4): packed 11:11:10 (4 bytes) or Deus Ex 16-bit
// (8 bytes), told apart by FrameSize against NumVertices.
struct AnimHeader {
  uint32_t numFrames = 0;  // clamped to the whole frames the file holds
  uint32_t frameSize = 0;
  bool dx16 = false;
  uint32_t pad = 0;  // bytes per frame after the vertices
};

Status readFrameEncoding(Files& f, uint32_t numVertices, AnimHeader& h) {
  const uint32_t packedBytes = 4 * numVertices, dxBytes = 8 * numVertices;
  const uint32_t frameSize = h.frameSize;
  if (frameSize == packedBytes) return Status();
  if (frameSize == dxBytes) {
    h.dx16 = true;
  } else if (frameSize > packedBytes && frameSize < dxBytes) {
    h.pad = frameSize - packedBytes;
    f.warn(
        format("%s: FrameSize %u is not 4 or 8 bytes per vertex for the %u vertices of %s; read as packed with %u pad "
               "bytes per frame (if the files do not belong together, their vertex counts disagree)",
               f.anim.c_str(), frameSize, numVertices, f.data.c_str(), h.pad));
  } else if (frameSize > dxBytes) {
    h.dx16 = frameSize - dxBytes < 8;
    h.pad = frameSize - (h.dx16 ? dxBytes : packedBytes);
    f.warn(format("%s: FrameSize %u is ambiguous for the %u vertices of %s; read as %s with %u pad bytes per frame",
                  f.anim.c_str(), frameSize, numVertices, f.data.c_str(), h.dx16 ? "Deus Ex 16-bit" : "packed", h.pad));
  } else {
    return fail("UE1", f.anim, 2,
                "vertex count mismatch: %s declares %u vertices, but frames of %s are %u bytes (%u packed or "
                "%u Deus Ex vertices)",
                f.data.c_str(), numVertices, f.anim.c_str(), frameSize, frameSize / 4, frameSize / 8);
  }
  return Status();
}

RS_STEP Status readAnimHeader(Files& f, const uint8_t* anim, size_t animSize, uint32_t numVertices, AnimHeader& h) {
  if (!anim || animSize < kAnimHeader)
    return fail("UE1", f.anim, 0, "anim file is %zu bytes, shorter than its 4-byte header", animSize);
  h.numFrames = load_u16le(anim);
  h.frameSize = load_u16le(anim + 2);
  if (h.numFrames == 0) return fail("UE1", f.anim, 0, "NumFrames is 0");
  Status s = readFrameEncoding(f, numVertices, h);
  if (!s.ok()) return s;
  // §3.4: a file short of its declared frames plays the whole frames it holds; one that cannot hold
  // a single frame has nothing to show.
  const uint64_t available = (uint64_t(animSize) - kAnimHeader) / h.frameSize;
  if (available == 0)
    return fail("UE1", f.anim, 0, "NumFrames declares %u frame%s of %u bytes, %zu bytes remain", h.numFrames,
                h.numFrames == 1 ? "" : "s", h.frameSize, animSize - kAnimHeader);
  if (available < h.numFrames) {
    f.warn(format("%s: NumFrames declares %u frames of %u bytes but the file holds %u; clamped", f.anim.c_str(),
                  h.numFrames, h.frameSize, unsigned(available)));
    h.numFrames = uint32_t(available);
  } else if (uint64_t(animSize) > kAnimHeader + uint64_t(h.numFrames) * h.frameSize) {
    f.warn(format("%s: %llu trailing bytes after the frames ignored", f.anim.c_str(),
                  (unsigned long long)(animSize - kAnimHeader - uint64_t(h.numFrames) * h.frameSize)));
  }
  return Status();
}

// The .uc's MESH lines for this mesh (§8): the one whose IMPORT names the files, else the only
// imported mesh; null when the script has none (or several that do not match).
RS_STEP const UcMesh* findMeshSettings(Files& f, const UcScript& script) {
  for (const std::string& w : script.warnings) f.warn(f.uc + ": " + w);
  const int found = findUcMesh(script, f.data, f.anim);
  if (found >= 0) return &script.meshes[size_t(found)];
  int imports = 0, last = -1;
  for (size_t i = 0; i < script.meshes.size(); ++i)
    if (script.meshes[i].imported) ++imports, last = int(i);
  if (imports == 1) {
    const UcMesh* m = &script.meshes[size_t(last)];
    f.warn(format("%s: no MESH IMPORT names %s/%s; using its only mesh '%s'", f.uc.c_str(), f.data.c_str(),
                  f.anim.c_str(), m->name.c_str()));
    return m;
  }
  if (imports > 1) {
    f.warn(format("%s: none of its %d MESH IMPORTs names %s/%s; mesh settings not applied", f.uc.c_str(), imports,
                  f.data.c_str(), f.anim.c_str()));
  }
  return nullptr;
}

// MESH ORIGIN, MESHMAP SCALE and the unmirror/texture flags (§7), folded into one linear map from
// raw vertex units to three space: three = L · raw + T.
struct Placement {
  bool unmirror = false;
  int32_t unmirrorTex = -1;
  bool zeroTex = false;
  double scale[3] = {1, 1, 1};
  double origin[3] = {0, 0, 0};
  double rot[3] = {0, 0, 0};
  float L[3][3] = {};
  float T[3] = {};
};

// Parsed numbers are finite, but 1e300 would still overflow the float positions.
void keepInRange(Files& f, double* v, double limit, const char* what, double fallback) {
  for (int k = 0; k < 3; ++k) {
    if (std::fabs(v[k]) <= limit) continue;
    f.warn(format("%s: %s %c=%g is out of range; using %g", f.uc.c_str(), what, "XYZ"[k], v[k], fallback));
    v[k] = fallback;
  }
}

// Raw (x, y, z) -> three: unmirror, −Origin, ⊙Scale, RotOrigin, then (−Y, Z, X). All linear, so
// L and T are derived by pushing the basis through the steps.
void placementMatrix(Placement& pl) {
  double axes[3][3];
  rotationAxes(pl.rot, axes);
  auto pipeline = [&](const double raw[3], bool withOrigin, double o3[3]) {
    const double v[3] = {raw[0] * (pl.unmirror ? -1.0 : 1.0), raw[1], raw[2]};
    double s[3];
    for (int k = 0; k < 3; ++k) s[k] = (v[k] - (withOrigin ? pl.origin[k] : 0.0)) * pl.scale[k];
    double p[3];
    for (int k = 0; k < 3; ++k) p[k] = s[0] * axes[0][k] + s[1] * axes[1][k] + s[2] * axes[2][k];
    o3[0] = -p[1];
    o3[1] = p[2];
    o3[2] = p[0];
  };
  const double zero[3] = {0, 0, 0};
  double t[3];
  pipeline(zero, true, t);
  for (int k = 0; k < 3; ++k) pl.T[k] = float(t[k]);
  for (int c = 0; c < 3; ++c) {
    double e[3] = {0, 0, 0}, col[3];
    e[c] = 1;
    pipeline(e, false, col);
    for (int r = 0; r < 3; ++r) pl.L[r][c] = float(col[r]);
  }
}

RS_STEP Placement readPlacement(Files& f, const UcMesh* ucMesh, bool dx16) {
  Placement pl;
  pl.unmirror = ucMesh && ucMesh->unmirror;
  pl.unmirrorTex = ucMesh ? ucMesh->unmirrorTex : -1;
  pl.zeroTex = ucMesh && ucMesh->zeroTex;
  pl.scale[2] = dx16 ? 1.0 : 2.0;
  if (ucMesh && ucMesh->hasScale) {
    for (int k = 0; k < 3; ++k) pl.scale[k] = ucMesh->scale[k];
  } else {
    f.warn(format("no MESHMAP SCALE: using (1, 1, %g), a guess for %s vertices", pl.scale[2],
                  dx16 ? "Deus Ex 16-bit" : "packed"));
  }
  if (ucMesh)
    for (int k = 0; k < 3; ++k) pl.origin[k] = ucMesh->origin[k], pl.rot[k] = ucMesh->rotation[k];
  keepInRange(f, pl.origin, 1e6, "MESH ORIGIN", 0);
  keepInRange(f, pl.rot, 1e6, "MESH ORIGIN angle", 0);
  keepInRange(f, pl.scale, 1e6, "MESHMAP SCALE", 1);
  placementMatrix(pl);
  return pl;
}

// The _d.3d triangles that index real vertices (§2.2–§2.5), already unmirrored, each with its
// material key; what the info panel reports about all of them.
struct Triangles {
  std::vector<Tri> list;
  std::vector<uint16_t> keys;  // distinct material keys, sorted: material m has key keys[m]
  uint32_t typeHistogram[256] = {};
  bool texUsed[256] = {};
  uint32_t firstWeapon = UINT32_MAX;  // index into list
  uint32_t materialOf(uint16_t key) const {
    return uint32_t(std::lower_bound(keys.begin(), keys.end(), key) - keys.begin());
  }
};

// The _d.3d triangle records (16 bytes): corners, Type, UVs, TextureNum.
RS_STEP std::vector<Ue1Triangle> readTriangleRecords(const uint8_t* data, const DataHeader& h, const Placement& pl) {
  std::vector<Ue1Triangle> raw(h.numPolys);
  const uint8_t* tp = data + kDataHeader;
  for (uint32_t i = 0; i < h.numPolys; ++i, tp += kTriangleSize) {
    Ue1Triangle& t = raw[i];
    t.v[0] = load_u16le(tp);
    t.v[1] = load_u16le(tp + 2);
    t.v[2] = load_u16le(tp + 4);
    t.type = tp[6];
    for (int k = 0; k < 3; ++k) t.uv[k][0] = tp[8 + 2 * k], t.uv[k][1] = tp[9 + 2 * k];
    t.texNum = pl.zeroTex ? 0 : tp[14];
  }
  return raw;
}

// §6: negate X (in the transform) and swap corners 1/2 with their UVs.
void unmirrorTriangle(Tri& t, uint8_t texNum, const Placement& pl) {
  std::swap(t.v[1], t.v[2]);
  std::swap(t.uv[1][0], t.uv[2][0]);
  std::swap(t.uv[1][1], t.uv[2][1]);
  if (int32_t(texNum) == pl.unmirrorTex)
    for (int k = 0; k < 3; ++k) t.uv[k][0] = uint8_t(255 - t.uv[k][0]);
}

// Triangles that index real vertices, unmirrored, each with its material key.
RS_STEP Status readTriangles(Files& f, const std::vector<Ue1Triangle>& raw, const DataHeader& h, const Placement& pl,
                             Triangles& tr) {
  tr.list.reserve(raw.size());
  tr.keys.reserve(raw.size());
  uint32_t badIndex = 0, weaponTris = 0;
  for (uint32_t i = 0; i < uint32_t(raw.size()); ++i) {
    const uint8_t type = raw[i].type, texNum = raw[i].texNum;
    Tri t;
    std::memcpy(t.v, raw[i].v, sizeof t.v);
    std::memcpy(t.uv, raw[i].uv, sizeof t.uv);
    tr.typeHistogram[type]++;
    if (t.v[0] >= h.numVertices || t.v[1] >= h.numVertices || t.v[2] >= h.numVertices) {
      if (badIndex++ == 0)
        f.warn(format("%s: triangle %u uses vertex %u of %u; skipped", f.data.c_str(), i,
                      unsigned(std::max(t.v[0], std::max(t.v[1], t.v[2]))), h.numVertices));
      continue;
    }
    tr.texUsed[texNum] = true;
    if (pl.unmirror) unmirrorTriangle(t, texNum, pl);
    uint8_t rt = type & 15;
    if (rt > kAlphaBlend && rt != kWeapon) rt = kNormal;  // Epic: no match -> visible, one-sided
    if (rt == kWeapon) {
      ++weaponTris;
      if (tr.firstWeapon == UINT32_MAX) tr.firstWeapon = uint32_t(tr.list.size());
      t.key = uint16_t((texNum << 8) | kWeapon);
    } else {
      t.key = uint16_t((texNum << 8) | rt | (type & 0x70));
    }
    tr.keys.push_back(t.key);
    tr.list.push_back(t);
  }
  if (badIndex > 1)
    f.warn(format("%s: %u triangles with out-of-range vertex indices skipped", f.data.c_str(), badIndex));
  if (tr.list.empty()) return fail("UE1", f.data, kDataHeader, "no triangle has valid vertex indices");
  if (weaponTris > 1) f.warn(format("%u weapon triangles; the attachment uses the first", weaponTris));
  // Materials are the keys present (not all 65536), sorted by texture then type (Epic's appSort).
  std::sort(tr.keys.begin(), tr.keys.end());
  tr.keys.erase(std::unique(tr.keys.begin(), tr.keys.end()), tr.keys.end());
  return Status();
}

// A material from its key: the weapon placeholder, or render type and flag bits (§2.3).
Material materialOfKey(uint16_t k) {
  const uint8_t texNum = uint8_t(k >> 8), mt = uint8_t(k & 0xFF), rt = mt & 15;
  Material m;
  if (rt == kWeapon) {
    m.name = "weapon";
    m.hidden = true;
    m.twoSided = true;
    return m;
  }
  m.name = format("tex%u_%s%s%s%s", texNum, typeName(rt), (mt & 0x10) ? "_unlit" : "", (mt & 0x20) ? "_flat" : "",
                  (mt & 0x40) ? "_env" : "");
  m.twoSided = rt != kNormal;
  m.blend = rt == kTranslucent                     ? Blend::Translucent
            : rt == kModulated                     ? Blend::Modulated
            : (rt == kMasked || rt == kAlphaBlend) ? Blend::Masked
                                                   : Blend::Opaque;
  m.unlit = (mt & 0x10) != 0;
  m.flat = (mt & 0x20) != 0;
  m.environment = (mt & 0x40) != 0;
  return m;
}

// The texture a slot draws with (§8): MESHMAP SETTEXTURE, then MultiSkins(n), then Skin; or null.
const std::string* slotTexture(const UcScript& script, const UcMesh* ucMesh, uint8_t texNum) {
  const std::string* ref = nullptr;
  if (ucMesh)
    for (const auto& e : ucMesh->textures)
      if (e.first == texNum) ref = &e.second;
  if (!ref)
    for (const auto& e : script.multiSkins)
      if (e.first == texNum) ref = &e.second;
  if (!ref && !script.skin.empty()) ref = &script.skin;
  return ref;
}

// Texture names per reference, found once: a few hundred slots at most share them.
using CandidateCache = std::unordered_map<const std::string*, std::pair<std::vector<std::string>, bool>>;

void nameTextures(const UcScript& script, const UcMesh* ucMesh, uint8_t texNum, CandidateCache& cache, Material& m) {
  bool masked = false;
  if (const std::string* ref = slotTexture(script, ucMesh, texNum)) {
    auto known = cache.find(ref);
    if (known == cache.end()) {
      std::pair<std::vector<std::string>, bool> found;
      textureCandidates(script, *ref, found.first, found.second);
      known = cache.emplace(ref, std::move(found)).first;
    }
    m.textureNames.insert(m.textureNames.end(), known->second.first.begin(), known->second.first.end());
    masked = known->second.second;
  }
  // §2.3: a texture imported with FLAGS=2 makes its opaque triangles masked.
  if (masked && m.blend == Blend::Opaque && !m.hidden) m.blend = Blend::Masked;
}

// Texture names of the slots when the container names them itself (a package's Textures array).
struct SlotNames {
  const std::vector<std::vector<std::string>>* names = nullptr;  // by TextureNum, best first
  const std::vector<uint8_t>* masked = nullptr;                  // by TextureNum
};

void nameSlot(const SlotNames& slots, uint8_t texNum, Material& m) {
  if (texNum < slots.names->size()) {
    const std::vector<std::string>& names = (*slots.names)[texNum];
    m.textureNames.insert(m.textureNames.end(), names.begin(), names.end());
  }
  const bool masked = slots.masked && texNum < slots.masked->size() && (*slots.masked)[texNum];
  if (masked && m.blend == Blend::Opaque && !m.hidden) m.blend = Blend::Masked;
}

RS_STEP void buildMaterials(Files& f, const Triangles& tr, const UcScript* script, const UcMesh* ucMesh,
                            const SlotNames& slots) {
  CandidateCache cache;
  bool alphaBlend = false;
  for (const uint16_t k : tr.keys) {
    Material m = materialOfKey(k);
    if (slots.names)
      nameSlot(slots, uint8_t(k >> 8), m);
    else if (script)
      nameTextures(*script, ucMesh, uint8_t(k >> 8), cache, m);
    f.out.materials.push_back(std::move(m));
    alphaBlend |= (k & 15) == kAlphaBlend;
  }
  if (alphaBlend) f.warn("render type 5 (Unreal 227 alpha blend) shown as masked");
}

// Render vertices: one per distinct (vertex, U, V) corner, in material order.
struct Wedges {
  std::vector<uint32_t> vertex;        // original vertex of each render vertex
  std::vector<uint16_t> uv;            // U | V << 8
  std::vector<uint32_t> drawnCorners;  // original vertices of the visible triangles, for normals
};

// Triangles in material order (counting sort): order[groupStart[m] .. groupStart[m + 1]).
RS_STEP void sortByMaterial(const Triangles& tr, std::vector<uint32_t>& groupStart, std::vector<uint32_t>& order) {
  const uint32_t numMaterials = uint32_t(tr.keys.size());
  groupStart.assign(numMaterials + 1, 0);
  for (const Tri& t : tr.list) groupStart[tr.materialOf(t.key) + 1]++;
  for (uint32_t m = 0; m < numMaterials; ++m) groupStart[m + 1] += groupStart[m];
  order.resize(tr.list.size());
  std::vector<uint32_t> cursor(groupStart.begin(), groupStart.end() - 1);
  for (uint32_t i = 0; i < tr.list.size(); ++i) order[cursor[tr.materialOf(tr.list[i].key)]++] = i;
}

// Wedges (vertex, U, V) -> render vertex through an open-addressing table: keys are 32 bits
// (vertex << 16 | V << 8 | U), sized from the validated corner count. A per-vertex chain would be
// quadratic when one vertex carries thousands of UVs (hostile files).
class WedgeTable {
 public:
  explicit WedgeTable(size_t corners) {
    while (size_ < corners * 2) size_ <<= 1;
    key_.assign(size_, UINT32_MAX);
    value_.resize(size_);
  }
  uint32_t find(uint32_t v, uint16_t uv, Wedges& w) {
    const uint32_t key = (v << 16) | uv;  // v < 65535, so never UINT32_MAX
    size_t h = (key * 2654435761u) & (size_ - 1);
    while (key_[h] != UINT32_MAX && key_[h] != key) h = (h + 1) & (size_ - 1);
    if (key_[h] == UINT32_MAX) {
      key_[h] = key;
      value_[h] = uint32_t(w.uv.size());
      w.uv.push_back(uv);
      w.vertex.push_back(v);
    }
    return value_[h];
  }

 private:
  size_t size_ = 16;
  std::vector<uint32_t> key_, value_;
};

RS_STEP Wedges buildWedges(const Triangles& tr, const std::vector<Material>& materials, uint32_t numVertices,
                           Mesh& mesh) {
  std::vector<uint32_t> groupStart, order;
  sortByMaterial(tr, groupStart, order);
  Wedges w;
  mesh.indices.reserve(tr.list.size() * 3);
  w.drawnCorners.reserve(tr.list.size() * 3);
  w.vertex.reserve(std::min<size_t>(tr.list.size() * 3, size_t(numVertices) * 2));
  w.uv.reserve(w.vertex.capacity());
  WedgeTable table(tr.list.size() * 3);
  static const int kCorner[3] = {0, 2, 1};  // det −1 axis map: swap corners 1 and 2
  for (uint32_t m = 0; m + 1 < groupStart.size(); ++m) {
    Group g;
    g.start = uint32_t(mesh.indices.size());
    g.material = m;
    const bool hidden = materials[m].hidden;
    for (uint32_t o = groupStart[m]; o < groupStart[m + 1]; ++o) {
      const Tri& t = tr.list[order[o]];
      for (int c = 0; c < 3; ++c) {
        const int k = kCorner[c];
        const uint32_t v = t.v[k];
        mesh.indices.push_back(table.find(v, uint16_t(t.uv[k][0] | (t.uv[k][1] << 8)), w));
        if (!hidden) w.drawnCorners.push_back(v);
      }
    }
    g.count = uint32_t(mesh.indices.size()) - g.start;
    mesh.groups.push_back(g);
  }
  return w;
}

// Frames and normals are stored per render vertex for every frame, and normals are rebuilt from
// every drawn corner in every frame. Frames come from one file and triangles from the other, so
// their product is not bounded by either: a short _d.3d repeating one triangle 65,535 times would
// cost billions of updates. Real meshes stay far below the limits (the benchmark's 3,906 triangles
// x 800 frames are 9.4 M updates).
RS_STEP Status checkFrameWork(Files& f, uint32_t numFrames, const Wedges& w) {
  const size_t renderCount = w.uv.size();
  const uint64_t frameFloats = uint64_t(renderCount) * 3;
  if (uint64_t(numFrames) * frameFloats * 4 * 2 > kMaxFrameBytes)
    return fail("UE1", f.anim, 0,
                "%u frames x %zu render vertices need %llu MB of frames and normals, more than the %llu MB limit",
                numFrames, renderCount, (unsigned long long)(uint64_t(numFrames) * frameFloats * 8 >> 20),
                (unsigned long long)(kMaxFrameBytes >> 20));
  if (uint64_t(numFrames) * w.drawnCorners.size() > kMaxNormalUpdates)
    return fail("UE1", f.anim, 0,
                "NumFrames %u x %zu drawn triangle corners need %llu normal updates, more than the %llu limit",
                numFrames, w.drawnCorners.size(), (unsigned long long)numFrames * w.drawnCorners.size(),
                (unsigned long long)kMaxNormalUpdates);
  return Status();
}

// UVs are texel coordinates of a 256-wide page: (U/256, 1 − V/256).
RS_STEP void writeUvs(const Wedges& w, Mesh& mesh) {
  std::vector<float>& uv0 = (mesh.uvs.emplace_back(), mesh.uvs.back());
  const size_t renderCount = w.uv.size();
  uv0.resize(renderCount * 2);
  for (size_t r = 0; r < renderCount; ++r) {
    uv0[r * 2] = float(w.uv[r] & 0xFF) / 256.0f;
    uv0[r * 2 + 1] = 1.0f - float(w.uv[r] >> 8) / 256.0f;
  }
}

#if RS_SIMD
// Four packed 11:11:10 vertices at a time: unpacked with shifts, then placed (the plain loop's
// multiplies and adds in its order). Returns how many vertices were done.
uint32_t readPackedFour(const uint8_t* fp, uint32_t numVertices, const Placement& pl, float* pp) {
  const float(&L)[3][3] = pl.L;
  uint32_t v = 0;
  for (; v + 4 <= numVertices; v += 4, fp += 16, pp += 12) {
    const v128_t w = wasm_v128_load(fp);
    const v128_t x = wasm_f32x4_convert_i32x4(wasm_i32x4_shr(wasm_i32x4_shl(w, 21), 21));
    const v128_t y = wasm_f32x4_convert_i32x4(wasm_i32x4_shr(wasm_i32x4_shl(w, 10), 21));
    const v128_t z = wasm_f32x4_convert_i32x4(wasm_i32x4_shr(w, 22));
    v128_t out[3];
    for (int r = 0; r < 3; ++r) {
      const v128_t sum = wasm_f32x4_add(
          wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_splat(L[r][0]), x), wasm_f32x4_mul(wasm_f32x4_splat(L[r][1]), y)),
          wasm_f32x4_mul(wasm_f32x4_splat(L[r][2]), z));
      out[r] = wasm_f32x4_add(sum, wasm_f32x4_splat(pl.T[r]));
    }
    storeXyz(pp, out[0], out[1], out[2]);
  }
  return v;
}
#endif

// One frame's vertices (§3.2, §3.3) through the placement: packed 11:11:10 signed (X low) or
// Deus Ex 16-bit (x, y, z, pad). Never inlined: called once per frame, it is optimised after
// the first frames (see convert/chunks.h).
__attribute__((noinline)) void readFrameVertices(const uint8_t* fp, uint32_t numVertices, bool dx16,
                                                 const Placement& pl, float* pp) {
  const float(&L)[3][3] = pl.L;
  const float* T = pl.T;
  if (dx16) {
    for (uint32_t v = 0; v < numVertices; ++v, fp += 8, pp += 3) {
      const float x = float(int16_t(load_u16le(fp))), y = float(int16_t(load_u16le(fp + 2))),
                  z = float(int16_t(load_u16le(fp + 4)));
      for (int r = 0; r < 3; ++r) pp[r] = L[r][0] * x + L[r][1] * y + L[r][2] * z + T[r];
    }
    return;
  }
  uint32_t v = 0;
#if RS_SIMD
  v = readPackedFour(fp, numVertices, pl, pp);
  fp += size_t(v) * 4;
  pp += size_t(v) * 3;
#endif
  for (; v < numVertices; ++v, fp += 4, pp += 3) {
    const uint32_t w = load_u32le(fp);
    const float x = float(int32_t(w << 21) >> 21), y = float(int32_t(w << 10) >> 21), z = float(int32_t(w) >> 22);
    for (int r = 0; r < 3; ++r) pp[r] = L[r][0] * x + L[r][1] * y + L[r][2] * z + T[r];
  }
}

// §2.4 in Unreal space: M = (v0+v2)/2, X = v1−M, Y = X × (v0−v2), Z = Y × X. Under the det −1 map
// P a cross product changes sign: P(a×b) = −(Pa × Pb). So in three space Y = −(X × (v0−v2)) and
// Z = X × Y; the rotation's columns are P·X, P·Y, P·Z.
void weaponAttachment(Files& f, const Tri& t, const std::vector<float>& pos) {
  const float* a = pos.data() + size_t(t.v[0]) * 3;
  const float* b = pos.data() + size_t(t.v[1]) * 3;
  const float* c = pos.data() + size_t(t.v[2]) * 3;
  Attachment at;
  at.name = "weapon";
  float X[3], Y[3], Z[3], d[3];
  for (int k = 0; k < 3; ++k) {
    at.translation[k] = (a[k] + c[k]) * 0.5f;
    X[k] = b[k] - at.translation[k];
    d[k] = c[k] - a[k];  // −(v0 − v2)
  }
  cross(X, d, Y);
  const bool ok = normalize3(X) && normalize3(Y);
  if (ok) {
    cross(X, Y, Z);
    matrixToQuat(X, Y, Z, at.rotation);
  } else {
    f.warn("weapon triangle is degenerate in frame 0; attachment rotation left at identity");
  }
  f.out.attachments.push_back(at);
}

// One frame's positions and normals copied to its render vertices. Never inlined: called once per
// frame, it is optimised after the first frames (see convert/chunks.h).
__attribute__((noinline)) void scatterFrame(const std::vector<float>& pos, const std::vector<float>& nrm,
                                            const Wedges& w, float* dst, float* dstN) {
  const size_t renderCount = w.uv.size();
  for (size_t r = 0; r < renderCount; ++r) {
    const float* s = pos.data() + size_t(w.vertex[r]) * 3;
    const float* n = nrm.data() + size_t(w.vertex[r]) * 3;
    dst[r * 3] = s[0], dst[r * 3 + 1] = s[1], dst[r * 3 + 2] = s[2];
    dstN[r * 3] = n[0], dstN[r * 3 + 1] = n[1], dstN[r * 3 + 2] = n[2];
  }
}

// Every frame: decode, transform, per-vertex normals, scatter to the render vertices.
RS_STEP void readFrames(Files& f, const uint8_t* firstFrame, const AnimHeader& ah, uint32_t numVertices,
                        const Placement& pl, const Triangles& tr, const Wedges& w) {
  VertexAnimation& va = f.out.vertexAnimation;
  const size_t renderCount = w.uv.size();
  const size_t frameFloats = renderCount * 3;
  va.frameCount = ah.numFrames;
  va.vertexCount = uint32_t(renderCount);
  va.frames.resize(size_t(ah.numFrames) * frameFloats);
  va.normals.resize(size_t(ah.numFrames) * frameFloats);
  std::vector<float> pos(size_t(numVertices) * 3), nrm(size_t(numVertices) * 3);
  for (uint32_t fr = 0; fr < ah.numFrames; ++fr) {
    readFrameVertices(firstFrame + size_t(fr) * ah.frameSize, numVertices, ah.dx16, pl, pos.data());
    std::fill(nrm.begin(), nrm.end(), 0.0f);
    accumulateFaceNormals(pos.data(), w.drawnCorners.data(), w.drawnCorners.size(), nrm.data());
    normalizeNormals(nrm.data(), numVertices);
    scatterFrame(pos, nrm, w, va.frames.data() + size_t(fr) * frameFloats,
                 va.normals.data() + size_t(fr) * frameFloats);
    if (fr == 0 && tr.firstWeapon != UINT32_MAX) weaponAttachment(f, tr.list[tr.firstWeapon], pos);
  }
}

// One MESH SEQUENCE (§8.2, §9), its frames validated and clamped; false when nothing is left.
bool readSequence(Files& f, const UcSequence& s, uint32_t numFrames, VertexSequence& vs) {
  vs.name = s.name;
  vs.group = s.group;
  double start = std::floor(s.startFrame), count = std::floor(s.numFrames);
  if (start < 0) {
    f.warn(format("sequence '%s': STARTFRAME %g is negative; starts at 0", s.name.c_str(), start));
    count += start;
    start = 0;
  }
  if (start >= numFrames) {
    f.warn(format("sequence '%s' starts at frame %g, past the %u frames of %s; dropped", s.name.c_str(), start,
                  numFrames, f.anim.c_str()));
    return false;
  }
  if (count < 1) {
    f.warn(format("sequence '%s' has NUMFRAMES %g; dropped", s.name.c_str(), s.numFrames));
    return false;
  }
  if (start + count > numFrames) {
    f.warn(format("sequence '%s' declares frames %g..%g but %s holds %u; clamped", s.name.c_str(), start,
                  start + count - 1, f.anim.c_str(), numFrames));
    count = numFrames - start;
  }
  vs.startFrame = uint32_t(start);
  vs.frameCount = uint32_t(count);
  vs.rate = s.rate;
  if (!(s.rate > 0) || !std::isfinite(s.rate) || s.rate > 1e6) {
    f.warn(format("sequence '%s' has RATE %g; using 30", s.name.c_str(), s.rate));
    vs.rate = 30;
  }
  // TIME is a fraction of the sequence as it plays: seconds = TIME * frames / rate.
  for (const UcNotify& n : s.notifies) vs.notifies.push_back(Notify{n.time * vs.frameCount / vs.rate, n.function});
  std::stable_sort(vs.notifies.begin(), vs.notifies.end(),
                   [](const Notify& x, const Notify& y) { return x.time < y.time; });
  return true;
}

RS_STEP void readSequences(Files& f, const UcMesh* ucMesh, bool haveScript, uint32_t numFrames) {
  VertexAnimation& va = f.out.vertexAnimation;
  if (ucMesh)
    for (const UcSequence& s : ucMesh->sequences) {
      VertexSequence vs;
      if (readSequence(f, s, numFrames, vs)) va.sequences.push_back(vs);
    }
  if (va.sequences.empty()) {
    if (haveScript) f.warn("no usable MESH SEQUENCE: one 'All' sequence spans every frame");
    VertexSequence all;
    all.name = "All";
    all.frameCount = numFrames;
    va.sequences.push_back(all);
  }
}

// Counts and facts for the CLI and info panel.
RS_STEP void recordFacts(Files& f, const DataHeader& dh, const AnimHeader& ah, const Placement& pl,
                         const UcMesh* ucMesh, bool scripted, const Triangles& tr, const Mesh& mesh,
                         size_t renderCount) {
  Model& out = f.out;
  out.count("polygons", dh.numPolys);
  out.count("vertices", dh.numVertices);
  out.count("renderVertices", double(renderCount));
  const size_t triangles = mesh.indices.size() / 3;
  out.count("triangles", double(triangles));
  out.count("frames", ah.numFrames);
  out.count("bones", 0);
  out.info.emplace_back("encoding", ah.dx16 ? "dx16" : "packed");
  std::string types, texNums;
  for (int t = 0; t < 256; ++t)
    if (tr.typeHistogram[t])
      types += format("%s%s ×%u", types.empty() ? "" : ", ", typeWords(uint8_t(t)).c_str(), tr.typeHistogram[t]);
  int maxTex = -1;
  for (int t = 0; t < 256; ++t)
    if (tr.texUsed[t]) texNums += format("%s%d", texNums.empty() ? "" : ",", t), maxTex = t;
  out.info.emplace_back("types", types);
  out.info.emplace_back("textureNumbers", texNums);
  out.info.emplace_back("scale", format("%g %g %g", pl.scale[0], pl.scale[1], pl.scale[2]));
  if (ucMesh) {
    if (scripted) out.info.emplace_back("ucMesh", ucMesh->name);
    out.info.emplace_back("origin", format("%g %g %g", pl.origin[0], pl.origin[1], pl.origin[2]));
    if (pl.unmirror) out.info.emplace_back("unmirror", "1");
  }
  if (ah.pad) out.info.emplace_back("framePadding", format("%u", ah.pad));
  if (maxTex > 15) f.warn(format("TextureNum %d is above 15, the engine's limit", maxTex));
}

// The steps after the headers, shared by the loose files and a package's Mesh/LodMesh: `raw` are the
// triangles as the _d.3d stores them, frames start at `firstFrame` (ah.numFrames of ah.frameSize).
Status buildModel(Files& f, const std::vector<Ue1Triangle>& raw, const DataHeader& dh, const AnimHeader& ah,
                  const uint8_t* firstFrame, const Placement& pl, const UcScript* script, const UcMesh* ucMesh,
                  bool scripted, const SlotNames& slots, const std::string& name, Ue1Details* details) {
  Model& out = f.out;
  Triangles tr;
  Status s = readTriangles(f, raw, dh, pl, tr);
  if (!s.ok()) return s;
  buildMaterials(f, tr, script, ucMesh, slots);
  Mesh mesh;
  mesh.name = name;
  Wedges w = buildWedges(tr, out.materials, dh.numVertices, mesh);
  s = checkFrameWork(f, ah.numFrames, w);
  if (!s.ok()) return s;
  writeUvs(w, mesh);
  readFrames(f, firstFrame, ah, dh.numVertices, pl, tr, w);
  const size_t frameFloats = w.uv.size() * 3;
  mesh.positions.assign(out.vertexAnimation.frames.begin(),
                        out.vertexAnimation.frames.begin() + std::ptrdiff_t(frameFloats));
  mesh.normals.assign(out.vertexAnimation.normals.begin(),
                      out.vertexAnimation.normals.begin() + std::ptrdiff_t(frameFloats));
  readSequences(f, ucMesh, scripted, ah.numFrames);
  out.hasVertexAnimation = true;
  out.name = mesh.name;
  recordFacts(f, dh, ah, pl, ucMesh, scripted, tr, mesh, w.uv.size());
  if (details) {
    details->renderToVertex = w.vertex;
    details->dx16 = ah.dx16;
    details->frameBytesSkipped = ah.pad;
  }
  out.meshes.push_back(std::move(mesh));
  return Status{};
}

}  // namespace

Status decodeUe1(const uint8_t* data, size_t dataSize, const std::string& dataFile, const uint8_t* anim,
                 size_t animSize, const std::string& animFile, const std::string& uc, const std::string& ucFile,
                 Model& out) {
  return decodeUe1(data, dataSize, dataFile, anim, animSize, animFile, uc, ucFile, out, nullptr);
}

Status decodeUe1(const uint8_t* data, size_t dataSize, const std::string& dataFile, const uint8_t* anim,
                 size_t animSize, const std::string& animFile, const std::string& uc, const std::string& ucFile,
                 Model& out, Ue1Details* details) {
  out.format = "ue1";
  out.bindBy = "script";  // the frames are the _a.3d, the sequences its .uc: both travel with the mesh
  Files f{dataFile, animFile, ucFile, out};
  DataHeader dh;
  Status s = readDataHeader(f, data, dataSize, dh);
  if (!s.ok()) return s;
  AnimHeader ah;
  s = readAnimHeader(f, anim, animSize, dh.numVertices, ah);
  if (!s.ok()) return s;
  UcScript script;
  const UcMesh* ucMesh = nullptr;
  if (!uc.empty()) {
    script = parseUc(uc);
    ucMesh = findMeshSettings(f, script);
  }
  const Placement pl = readPlacement(f, ucMesh, ah.dx16);
  const std::vector<Ue1Triangle> raw = readTriangleRecords(data, dh, pl);
  const std::string name = ucMesh ? ucMesh->name : ucBaseName(dataFile, true);
  return buildModel(f, raw, dh, ah, anim + kAnimHeader, pl, uc.empty() ? nullptr : &script, ucMesh, !uc.empty(),
                    SlotNames(), name, details);
}

Status buildUe1Mesh(const Ue1MeshParts& parts, Model& out, Ue1Details* details) {
  out.format = "ue1";
  out.bindBy = "script";  // the frames and sequences travel with the mesh
  Files f{parts.file, parts.file, parts.file, out};
  const uint32_t vertexBytes = parts.dx16 ? 8 : 4;
  if (parts.numVertices == 0 || parts.numVertices > 0xFFFF)
    return fail("UE1", parts.file, 0, "mesh %s has %u vertices per frame, 1..65535 supported", parts.name.c_str(),
                parts.numVertices);
  if (parts.numFrames == 0 || !parts.frames)
    return fail("UE1", parts.file, 0, "mesh %s has no animation frame", parts.name.c_str());
  if (parts.triangles.empty()) return fail("UE1", parts.file, 0, "mesh %s has no triangle", parts.name.c_str());
  DataHeader dh;
  dh.numPolys = uint32_t(parts.triangles.size());
  dh.numVertices = parts.numVertices;
  AnimHeader ah;
  ah.numFrames = parts.numFrames;
  ah.frameSize = parts.numVertices * vertexBytes;
  ah.dx16 = parts.dx16;
  // The container's settings in the .uc's words: MESHMAP SCALE, MESH ORIGIN, the sequences.
  UcMesh settings;
  settings.name = parts.name;
  settings.hasScale = true;
  for (int k = 0; k < 3; ++k) {
    settings.scale[k] = parts.scale[k];
    settings.origin[k] = parts.origin[k];
    settings.rotation[k] = parts.rotation[k];
  }
  settings.sequences = parts.sequences;
  const Placement pl = readPlacement(f, &settings, parts.dx16);
  SlotNames slots;
  slots.names = &parts.slotTextures;
  slots.masked = &parts.slotMasked;
  return buildModel(f, parts.triangles, dh, ah, parts.frames, pl, nullptr, &settings, false, slots, parts.name,
                    details);
}

void ucTextureCandidates(const UcScript& script, const std::string& ref, std::vector<std::string>& out, bool& masked) {
  textureCandidates(script, ref, out, masked);
}

void ue1RotationAxes(const double rot[3], double axes[3][3]) { rotationAxes(rot, axes); }

void ue1MatrixToQuat(const float c0[3], const float c1[3], const float c2[3], float q[4]) {
  matrixToQuat(c0, c1, c2, q);
}

}  // namespace rs
