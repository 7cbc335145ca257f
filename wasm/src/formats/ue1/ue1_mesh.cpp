// UE1 vertex mesh: _d.3d triangles + _a.3d frames (+ .uc settings) -> vertex-animated mesh.
// Spec: shared/specs/unreal-vertex-3d.md (section numbers below refer to it).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "convert/math.h"
#include "formats/ue1/ue1.h"
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

enum RenderType : uint8_t { kNormal = 0, kTwoSided = 1, kTranslucent = 2, kMasked = 3, kModulated = 4,
                            kAlphaBlend = 5, kWeapon = 8 };

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
  static const char* const kRenderType[16] = {"normal", "two-sided", "translucent", "masked", "modulated",
                                              "alpha blend", nullptr, nullptr, "weapon"};
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

bool equalsNoCase(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = char(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = char(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

std::string lastComponent(const std::string& ref) {
  size_t dot = ref.find_last_of('.');
  return dot == std::string::npos ? ref : ref.substr(dot + 1);
}

void addUnique(std::vector<std::string>& list, const std::string& s) {
  if (s.empty()) return;
  for (const std::string& e : list)
    if (equalsNoCase(e, s)) return;
  list.push_back(s);
}

// Candidates for a texture reference: the imports' file stems (last import first), then the
// name itself (short name first, then the full Package.Group.Name reference).
// At most kMaxImportCandidates import names: a script importing one texture name thousands of times
// must not hand every material thousands of names (nor compare each with all the others).
void textureCandidates(const UcScript& script, const std::string& ref, std::vector<std::string>& out,
                       bool& masked) {
  std::string shortName = lastComponent(ref);
  for (size_t i = script.textureImports.size(); i-- > 0;) {
    const UcTextureImport& t = script.textureImports[i];
    if (!equalsNoCase(t.name, ref) && !equalsNoCase(t.name, shortName)) continue;
    if (out.size() < kMaxImportCandidates) addUnique(out, ucBaseName(t.file, true));
    if (t.flags & 2) masked = true;
  }
  addUnique(out, shortName);
  addUnique(out, ref);
}

// Standard UE rotation matrix (§7.1), rows = the rotated X/Y/Z axes; angles in 1/256 turns.
void rotationAxes(const double rot[3], double axes[3][3]) {
  const double k = 2.0 * 3.14159265358979323846 / 256.0;
  double p = rot[0] * k, y = rot[1] * k, r = rot[2] * k;
  double cp = std::cos(p), sp = std::sin(p), cy = std::cos(y), sy = std::sin(y), cr = std::cos(r),
         sr = std::sin(r);
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

}  // namespace

Status decodeUe1(const uint8_t* data, size_t dataSize, const std::string& dataFile, const uint8_t* anim,
                 size_t animSize, const std::string& animFile, const std::string& uc,
                 const std::string& ucFile, Model& out) {
  return decodeUe1(data, dataSize, dataFile, anim, animSize, animFile, uc, ucFile, out, nullptr);
}

Status decodeUe1(const uint8_t* data, size_t dataSize, const std::string& dataFile, const uint8_t* anim,
                 size_t animSize, const std::string& animFile, const std::string& uc,
                 const std::string& ucFile, Model& out, Ue1Details* details) {
  out.format = "ue1";
  out.bindBy = "script";  // the frames are the _a.3d, the sequences its .uc: both travel with the mesh
  // ---- data file header (§2.1, §2.5) ----
  if (!data || dataSize < kDataHeader)
    return fail("UE1", dataFile, 0, "data file is %zu bytes, shorter than its 48-byte header", dataSize);
  const uint32_t numPolys = load_u16le(data);
  const uint32_t numVertices = load_u16le(data + 2);
  if (numPolys == 0) return fail("UE1", dataFile, 0, "NumPolys is 0");
  if (numVertices < 3) return fail("UE1", dataFile, 2, "NumVertices is %u, a mesh needs at least 3", numVertices);
  ByteReader dr(data, dataSize);
  dr.seek(kDataHeader);
  if (!dr.has(numPolys, kTriangleSize))
    return fail("UE1", dataFile, 0,
                "NumPolys declares %u triangle%s of 16 bytes after the 48-byte header, %zu bytes remain", numPolys,
                numPolys == 1 ? "" : "s", dr.remaining());
  if (dr.remaining() > size_t(numPolys) * kTriangleSize)
    out.warnings.push_back(format("%s: %zu trailing bytes after the triangles ignored", dataFile.c_str(),
                                  dr.remaining() - size_t(numPolys) * kTriangleSize));

  // ---- anim file header and encoding (§3.1, §3.4) ----
  if (!anim || animSize < kAnimHeader)
    return fail("UE1", animFile, 0, "anim file is %zu bytes, shorter than its 4-byte header", animSize);
  uint32_t numFrames = load_u16le(anim);
  const uint32_t frameSize = load_u16le(anim + 2);
  if (numFrames == 0) return fail("UE1", animFile, 0, "NumFrames is 0");
  bool dx16 = false;
  uint32_t pad = 0;
  const uint32_t packedBytes = 4 * numVertices, dxBytes = 8 * numVertices;
  if (frameSize == packedBytes) {
  } else if (frameSize == dxBytes) {
    dx16 = true;
  } else if (frameSize > packedBytes && frameSize < dxBytes) {
    pad = frameSize - packedBytes;
    out.warnings.push_back(format(
        "%s: FrameSize %u is not 4 or 8 bytes per vertex for the %u vertices of %s; read as packed with %u pad "
        "bytes per frame (if the files do not belong together, their vertex counts disagree)",
        animFile.c_str(), frameSize, numVertices, dataFile.c_str(), pad));
  } else if (frameSize > dxBytes) {
    dx16 = frameSize - dxBytes < 8;
    pad = frameSize - (dx16 ? dxBytes : packedBytes);
    out.warnings.push_back(format(
        "%s: FrameSize %u is ambiguous for the %u vertices of %s; read as %s with %u pad bytes per frame",
        animFile.c_str(), frameSize, numVertices, dataFile.c_str(), dx16 ? "Deus Ex 16-bit" : "packed", pad));
  } else {
    return fail("UE1", animFile, 2,
                "vertex count mismatch: %s declares %u vertices, but frames of %s are %u bytes (%u packed or "
                "%u Deus Ex vertices)",
                dataFile.c_str(), numVertices, animFile.c_str(), frameSize, frameSize / 4, frameSize / 8);
  }
  // §3.4: a file short of its declared frames plays the whole frames it holds; one that cannot hold
  // a single frame has nothing to show.
  const uint64_t available = (uint64_t(animSize) - kAnimHeader) / frameSize;
  if (available == 0)
    return fail("UE1", animFile, 0, "NumFrames declares %u frame%s of %u bytes, %zu bytes remain", numFrames,
                numFrames == 1 ? "" : "s", frameSize, animSize - kAnimHeader);
  if (available < numFrames) {
    out.warnings.push_back(format("%s: NumFrames declares %u frames of %u bytes but the file holds %u; clamped",
                                  animFile.c_str(), numFrames, frameSize, unsigned(available)));
    numFrames = uint32_t(available);
  } else if (uint64_t(animSize) > kAnimHeader + uint64_t(numFrames) * frameSize) {
    out.warnings.push_back(format("%s: %llu trailing bytes after the frames ignored", animFile.c_str(),
                                  (unsigned long long)(animSize - kAnimHeader - uint64_t(numFrames) * frameSize)));
  }

  // ---- .uc settings (§7, §8) ----
  UcScript script;
  const UcMesh* ucMesh = nullptr;
  if (!uc.empty()) {
    script = parseUc(uc);
    for (const std::string& w : script.warnings) out.warnings.push_back(ucFile + ": " + w);
    int found = findUcMesh(script, dataFile, animFile);
    if (found >= 0) {
      ucMesh = &script.meshes[size_t(found)];
    } else {
      int imports = 0, last = -1;
      for (size_t i = 0; i < script.meshes.size(); ++i)
        if (script.meshes[i].imported) ++imports, last = int(i);
      if (imports == 1) {
        ucMesh = &script.meshes[size_t(last)];
        out.warnings.push_back(format("%s: no MESH IMPORT names %s/%s; using its only mesh '%s'", ucFile.c_str(),
                                      dataFile.c_str(), animFile.c_str(), ucMesh->name.c_str()));
      } else if (imports > 1) {
        out.warnings.push_back(format("%s: none of its %d MESH IMPORTs names %s/%s; mesh settings not applied",
                                      ucFile.c_str(), imports, dataFile.c_str(), animFile.c_str()));
      }
    }
  }

  const bool unmirror = ucMesh && ucMesh->unmirror;
  const int32_t unmirrorTex = ucMesh ? ucMesh->unmirrorTex : -1;
  const bool zeroTex = ucMesh && ucMesh->zeroTex;
  double scale[3] = {1, 1, dx16 ? 1.0 : 2.0};
  if (ucMesh && ucMesh->hasScale) {
    for (int k = 0; k < 3; ++k) scale[k] = ucMesh->scale[k];
  } else {
    out.warnings.push_back(format("no MESHMAP SCALE: using (1, 1, %g), a guess for %s vertices", scale[2],
                                  dx16 ? "Deus Ex 16-bit" : "packed"));
  }
  double origin[3] = {0, 0, 0}, rot[3] = {0, 0, 0};
  if (ucMesh)
    for (int k = 0; k < 3; ++k) origin[k] = ucMesh->origin[k], rot[k] = ucMesh->rotation[k];
  // Parsed numbers are finite, but 1e300 would still overflow the float positions.
  auto sane = [&](double* v, double limit, const char* what, double fallback) {
    for (int k = 0; k < 3; ++k) {
      if (std::fabs(v[k]) <= limit) continue;
      out.warnings.push_back(format("%s: %s %c=%g is out of range; using %g", ucFile.c_str(), what, "XYZ"[k], v[k],
                                    fallback));
      v[k] = fallback;
    }
  };
  sane(origin, 1e6, "MESH ORIGIN", 0);
  sane(rot, 1e6, "MESH ORIGIN angle", 0);
  sane(scale, 1e6, "MESHMAP SCALE", 1);

  // Raw (x, y, z) -> three: unmirror, −Origin, ⊙Scale, RotOrigin, then (−Y, Z, X). All linear, so
  // one 3×3 matrix L and offset t, derived by pushing the basis through the steps.
  double axes[3][3];
  rotationAxes(rot, axes);
  auto pipeline = [&](const double raw[3], bool withOrigin, double o3[3]) {
    double v[3] = {raw[0] * (unmirror ? -1.0 : 1.0), raw[1], raw[2]};
    double s[3];
    for (int k = 0; k < 3; ++k) s[k] = (v[k] - (withOrigin ? origin[k] : 0.0)) * scale[k];
    double p[3];
    for (int k = 0; k < 3; ++k) p[k] = s[0] * axes[0][k] + s[1] * axes[1][k] + s[2] * axes[2][k];
    o3[0] = -p[1];
    o3[1] = p[2];
    o3[2] = p[0];
  };
  float L[3][3], T[3];  // three = L · raw + T
  {
    const double zero[3] = {0, 0, 0};
    double t[3];
    pipeline(zero, true, t);
    for (int k = 0; k < 3; ++k) T[k] = float(t[k]);
    for (int c = 0; c < 3; ++c) {
      double e[3] = {0, 0, 0}, col[3];
      e[c] = 1;
      pipeline(e, false, col);
      for (int r = 0; r < 3; ++r) L[r][c] = float(col[r]);
    }
  }

  // ---- triangles (§2.2–§2.5) ----
  std::vector<Tri> tris;
  tris.reserve(numPolys);
  uint32_t typeHistogram[256] = {};
  bool texUsed[256] = {};
  std::vector<uint16_t> keys;  // material key of every kept triangle; made distinct and sorted below
  keys.reserve(numPolys);
  uint32_t badIndex = 0, weaponTris = 0;
  uint32_t firstWeapon = UINT32_MAX;
  const uint8_t* tp = data + kDataHeader;
  for (uint32_t i = 0; i < numPolys; ++i, tp += kTriangleSize) {
    Tri t;
    t.v[0] = load_u16le(tp);
    t.v[1] = load_u16le(tp + 2);
    t.v[2] = load_u16le(tp + 4);
    const uint8_t type = tp[6];
    for (int k = 0; k < 3; ++k) t.uv[k][0] = tp[8 + 2 * k], t.uv[k][1] = tp[9 + 2 * k];
    uint8_t texNum = zeroTex ? 0 : tp[14];
    typeHistogram[type]++;
    if (t.v[0] >= numVertices || t.v[1] >= numVertices || t.v[2] >= numVertices) {
      if (badIndex++ == 0)
        out.warnings.push_back(format("%s: triangle %u uses vertex %u of %u; skipped", dataFile.c_str(), i,
                                      unsigned(std::max(t.v[0], std::max(t.v[1], t.v[2]))), numVertices));
      continue;
    }
    texUsed[texNum] = true;
    if (unmirror) {
      // §6: negate X (in the transform) and swap corners 1/2 with their UVs.
      std::swap(t.v[1], t.v[2]);
      std::swap(t.uv[1][0], t.uv[2][0]);
      std::swap(t.uv[1][1], t.uv[2][1]);
      if (int32_t(texNum) == unmirrorTex)
        for (int k = 0; k < 3; ++k) t.uv[k][0] = uint8_t(255 - t.uv[k][0]);
    }
    uint8_t rt = type & 15;
    if (rt > kAlphaBlend && rt != kWeapon) rt = kNormal;  // Epic: no match -> visible, one-sided
    if (rt == kWeapon) {
      ++weaponTris;
      if (firstWeapon == UINT32_MAX) firstWeapon = uint32_t(tris.size());
      t.key = uint16_t((texNum << 8) | kWeapon);
    } else {
      t.key = uint16_t((texNum << 8) | rt | (type & 0x70));
    }
    keys.push_back(t.key);
    tris.push_back(t);
  }
  if (badIndex > 1)
    out.warnings.push_back(format("%s: %u triangles with out-of-range vertex indices skipped", dataFile.c_str(),
                                  badIndex));
  if (tris.empty()) return fail("UE1", dataFile, kDataHeader, "no triangle has valid vertex indices");
  if (weaponTris > 1)
    out.warnings.push_back(format("%u weapon triangles; the attachment uses the first", weaponTris));

  // ---- materials: one per key, sorted by texture then type (Epic's appSort) ----
  // Only the keys present are visited (not all 65536): the work follows the triangles.
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  const uint32_t numMaterials = uint32_t(keys.size());
  const auto matOfKey = [&keys](uint16_t key) {
    return uint32_t(std::lower_bound(keys.begin(), keys.end(), key) - keys.begin());
  };
  std::unordered_map<const std::string*, std::pair<std::vector<std::string>, bool>> candidatesOf;
  for (const uint16_t k : keys) {
    const uint8_t texNum = uint8_t(k >> 8), mt = uint8_t(k & 0xFF), rt = mt & 15;
    Material m;
    if (rt == kWeapon) {
      m.name = "weapon";
      m.hidden = true;
      m.twoSided = true;
    } else {
      m.name = format("tex%u_%s%s%s%s", texNum, typeName(rt), (mt & 0x10) ? "_unlit" : "",
                      (mt & 0x20) ? "_flat" : "", (mt & 0x40) ? "_env" : "");
      m.twoSided = rt != kNormal;
      m.blend = rt == kTranslucent ? Blend::Translucent
                : rt == kModulated ? Blend::Modulated
                : (rt == kMasked || rt == kAlphaBlend) ? Blend::Masked
                                                        : Blend::Opaque;
      m.unlit = (mt & 0x10) != 0;
      m.flat = (mt & 0x20) != 0;
      m.environment = (mt & 0x40) != 0;
    }
    if (!uc.empty()) {
      bool masked = false;
      const std::string* ref = nullptr;
      if (ucMesh)
        for (const auto& e : ucMesh->textures)
          if (e.first == texNum) ref = &e.second;
      if (!ref)
        for (const auto& e : script.multiSkins)
          if (e.first == texNum) ref = &e.second;
      if (!ref && !script.skin.empty()) ref = &script.skin;
      if (ref) {
        // Candidates depend only on the reference, which a few hundred slots at most provide.
        auto known = candidatesOf.find(ref);
        if (known == candidatesOf.end()) {
          std::pair<std::vector<std::string>, bool> found;
          textureCandidates(script, *ref, found.first, found.second);
          known = candidatesOf.emplace(ref, std::move(found)).first;
        }
        m.textureNames.insert(m.textureNames.end(), known->second.first.begin(), known->second.first.end());
        masked = known->second.second;
      }
      // §2.3: a texture imported with FLAGS=2 makes its opaque triangles masked.
      if (masked && m.blend == Blend::Opaque && !m.hidden) m.blend = Blend::Masked;
    }
    out.materials.push_back(std::move(m));
  }
  bool anyWarnedAlpha = false;
  for (const uint16_t k : keys)
    if ((k & 15) == kAlphaBlend) anyWarnedAlpha = true;
  if (anyWarnedAlpha) out.warnings.push_back("render type 5 (Unreal 227 alpha blend) shown as masked");

  // ---- triangle order by material (counting sort), wedges, indices ----
  std::vector<uint32_t> groupStart(numMaterials + 1, 0);
  for (const Tri& t : tris) groupStart[matOfKey(t.key) + 1]++;
  for (uint32_t m = 0; m < numMaterials; ++m) groupStart[m + 1] += groupStart[m];
  std::vector<uint32_t> order(tris.size());
  {
    std::vector<uint32_t> cursor(groupStart.begin(), groupStart.end() - 1);
    for (uint32_t i = 0; i < tris.size(); ++i) order[cursor[matOfKey(tris[i].key)]++] = i;
  }
  Mesh mesh;
  mesh.name = ucMesh ? ucMesh->name : ucBaseName(dataFile, true);
  mesh.indices.reserve(tris.size() * 3);
  std::vector<uint32_t> vertIndices;  // original-vertex indices of the drawn triangles, for normals
  vertIndices.reserve(tris.size() * 3);
  // Wedges (vertex, U, V) -> render vertex through an open-addressing table: keys are 32 bits
  // (vertex << 16 | V << 8 | U), sized from the validated corner count. A per-vertex chain would be
  // quadratic when one vertex carries thousands of UVs (hostile files).
  size_t tableSize = 16;
  while (tableSize < tris.size() * 3 * 2) tableSize <<= 1;
  std::vector<uint32_t> tableKey(tableSize, UINT32_MAX), tableValue(tableSize);
  std::vector<uint32_t> wedgeVertex;
  std::vector<uint16_t> wedgeUV;
  wedgeVertex.reserve(std::min<size_t>(tris.size() * 3, size_t(numVertices) * 2));
  wedgeUV.reserve(wedgeVertex.capacity());
  static const int kCorner[3] = {0, 2, 1};  // det −1 axis map: swap corners 1 and 2
  for (uint32_t m = 0; m < numMaterials; ++m) {
    Group g;
    g.start = uint32_t(mesh.indices.size());
    g.material = m;
    const bool hidden = out.materials[m].hidden;
    for (uint32_t o = groupStart[m]; o < groupStart[m + 1]; ++o) {
      const Tri& t = tris[order[o]];
      for (int c = 0; c < 3; ++c) {
        const int k = kCorner[c];
        const uint32_t v = t.v[k];
        const uint16_t uv = uint16_t(t.uv[k][0] | (t.uv[k][1] << 8));
        const uint32_t key = (v << 16) | uv;  // v < 65535, so never UINT32_MAX
        size_t h = (key * 2654435761u) & (tableSize - 1);
        while (tableKey[h] != UINT32_MAX && tableKey[h] != key) h = (h + 1) & (tableSize - 1);
        if (tableKey[h] == UINT32_MAX) {
          tableKey[h] = key;
          tableValue[h] = uint32_t(wedgeUV.size());
          wedgeUV.push_back(uv);
          wedgeVertex.push_back(v);
        }
        const uint32_t w = tableValue[h];
        mesh.indices.push_back(w);
        if (!hidden) vertIndices.push_back(v);
      }
    }
    g.count = uint32_t(mesh.indices.size()) - g.start;
    mesh.groups.push_back(g);
  }
  const size_t renderCount = wedgeUV.size();
  std::vector<uint32_t>().swap(tableKey);
  std::vector<uint32_t>().swap(tableValue);

  const uint64_t frameFloats = uint64_t(renderCount) * 3;
  if (uint64_t(numFrames) * frameFloats * 4 * 2 > kMaxFrameBytes)
    return fail("UE1", animFile, 0,
                "%u frames x %zu render vertices need %llu MB of frames and normals, more than the %llu MB limit",
                numFrames, renderCount,
                (unsigned long long)(uint64_t(numFrames) * frameFloats * 8 >> 20),
                (unsigned long long)(kMaxFrameBytes >> 20));
  // Normals are rebuilt from every drawn corner in every frame. Frames come from one file and
  // triangles from the other, so their product is not bounded by either: a short _d.3d repeating
  // one triangle 65,535 times would cost billions of updates. Real meshes stay far below the limit
  // (the benchmark's 3,906 triangles x 800 frames are 9.4 M).
  if (uint64_t(numFrames) * vertIndices.size() > kMaxNormalUpdates)
    return fail("UE1", animFile, 0,
                "NumFrames %u x %zu drawn triangle corners need %llu normal updates, more than the %llu limit",
                numFrames, vertIndices.size(), (unsigned long long)(uint64_t(numFrames) * vertIndices.size()),
                (unsigned long long)kMaxNormalUpdates);

  std::vector<float>& uv0 = (mesh.uvs.emplace_back(), mesh.uvs.back());
  uv0.resize(renderCount * 2);
  for (size_t r = 0; r < renderCount; ++r) {
    uv0[r * 2] = float(wedgeUV[r] & 0xFF) / 256.0f;
    uv0[r * 2 + 1] = 1.0f - float(wedgeUV[r] >> 8) / 256.0f;
  }

  // ---- frames: decode, transform, per-vertex normals, scatter to render vertices ----
  VertexAnimation& va = out.vertexAnimation;
  va.frameCount = numFrames;
  va.vertexCount = uint32_t(renderCount);
  va.frames.resize(size_t(numFrames) * frameFloats);
  va.normals.resize(size_t(numFrames) * frameFloats);
  std::vector<float> pos(size_t(numVertices) * 3), nrm(size_t(numVertices) * 3);
  for (uint32_t f = 0; f < numFrames; ++f) {
    const uint8_t* fp = anim + kAnimHeader + size_t(f) * frameSize;
    float* pp = pos.data();
    if (dx16) {
      for (uint32_t v = 0; v < numVertices; ++v, fp += 8, pp += 3) {
        const float x = float(int16_t(load_u16le(fp))), y = float(int16_t(load_u16le(fp + 2))),
                    z = float(int16_t(load_u16le(fp + 4)));
        for (int r = 0; r < 3; ++r) pp[r] = L[r][0] * x + L[r][1] * y + L[r][2] * z + T[r];
      }
    } else {
      for (uint32_t v = 0; v < numVertices; ++v, fp += 4, pp += 3) {
        const uint32_t w = load_u32le(fp);
        const float x = float(int32_t(w << 21) >> 21), y = float(int32_t(w << 10) >> 21),
                    z = float(int32_t(w) >> 22);
        for (int r = 0; r < 3; ++r) pp[r] = L[r][0] * x + L[r][1] * y + L[r][2] * z + T[r];
      }
    }
    std::fill(nrm.begin(), nrm.end(), 0.0f);
    accumulateFaceNormals(pos.data(), vertIndices.data(), vertIndices.size(), nrm.data());
    normalizeNormals(nrm.data(), numVertices);
    float* dst = va.frames.data() + size_t(f) * frameFloats;
    float* dstN = va.normals.data() + size_t(f) * frameFloats;
    for (size_t r = 0; r < renderCount; ++r) {
      const float* s = pos.data() + size_t(wedgeVertex[r]) * 3;
      const float* n = nrm.data() + size_t(wedgeVertex[r]) * 3;
      dst[r * 3] = s[0], dst[r * 3 + 1] = s[1], dst[r * 3 + 2] = s[2];
      dstN[r * 3] = n[0], dstN[r * 3 + 1] = n[1], dstN[r * 3 + 2] = n[2];
    }
    if (f == 0 && firstWeapon != UINT32_MAX) {
      // §2.4 in Unreal space: M = (v0+v2)/2, X = v1−M, Y = X × (v0−v2), Z = Y × X. Under the
      // det −1 map P a cross product changes sign: P(a×b) = −(Pa × Pb). So in three space
      // Y = −(X × (v0−v2)) and Z = X × Y; the rotation's columns are P·X, P·Y, P·Z.
      const Tri& t = tris[firstWeapon];
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
      bool ok = normalize3(X) && normalize3(Y);
      if (ok) {
        cross(X, Y, Z);
        matrixToQuat(X, Y, Z, at.rotation);
      } else {
        out.warnings.push_back("weapon triangle is degenerate in frame 0; attachment rotation left at identity");
      }
      out.attachments.push_back(at);
    }
  }
  mesh.positions.assign(va.frames.begin(), va.frames.begin() + std::ptrdiff_t(frameFloats));
  mesh.normals.assign(va.normals.begin(), va.normals.begin() + std::ptrdiff_t(frameFloats));

  // ---- sequences (§8.2, §9) ----
  if (ucMesh && !ucMesh->sequences.empty()) {
    for (const UcSequence& s : ucMesh->sequences) {
      VertexSequence vs;
      vs.name = s.name;
      vs.group = s.group;
      double start = std::floor(s.startFrame), count = std::floor(s.numFrames);
      if (start < 0) {
        out.warnings.push_back(format("sequence '%s': STARTFRAME %g is negative; starts at 0", s.name.c_str(), start));
        count += start;
        start = 0;
      }
      if (start >= numFrames) {
        out.warnings.push_back(format("sequence '%s' starts at frame %g, past the %u frames of %s; dropped",
                                      s.name.c_str(), start, numFrames, animFile.c_str()));
        continue;
      }
      if (count < 1) {
        out.warnings.push_back(format("sequence '%s' has NUMFRAMES %g; dropped", s.name.c_str(), s.numFrames));
        continue;
      }
      if (start + count > numFrames) {
        out.warnings.push_back(format("sequence '%s' declares frames %g..%g but %s holds %u; clamped",
                                      s.name.c_str(), start, start + count - 1, animFile.c_str(), numFrames));
        count = numFrames - start;
      }
      vs.startFrame = uint32_t(start);
      vs.frameCount = uint32_t(count);
      vs.rate = s.rate;
      if (!(s.rate > 0) || !std::isfinite(s.rate) || s.rate > 1e6) {
        out.warnings.push_back(format("sequence '%s' has RATE %g; using 30", s.name.c_str(), s.rate));
        vs.rate = 30;
      }
      // TIME is a fraction of the sequence as it plays: seconds = TIME * frames / rate.
      for (const UcNotify& n : s.notifies)
        vs.notifies.push_back(Notify{n.time * vs.frameCount / vs.rate, n.function});
      std::stable_sort(vs.notifies.begin(), vs.notifies.end(),
                       [](const Notify& x, const Notify& y) { return x.time < y.time; });
      va.sequences.push_back(vs);
    }
  }
  if (va.sequences.empty()) {
    if (!uc.empty()) out.warnings.push_back("no usable MESH SEQUENCE: one 'All' sequence spans every frame");
    VertexSequence all;
    all.name = "All";
    all.frameCount = numFrames;
    va.sequences.push_back(all);
  }
  out.hasVertexAnimation = true;

  // ---- facts ----
  out.name = mesh.name;
  out.count("polygons", numPolys);
  out.count("vertices", numVertices);
  out.count("renderVertices", double(renderCount));
  out.count("triangles", double(mesh.indices.size() / 3));
  out.count("frames", numFrames);
  out.count("bones", 0);
  out.info.emplace_back("encoding", dx16 ? "dx16" : "packed");
  std::string types, texNums;
  for (int t = 0; t < 256; ++t)
    if (typeHistogram[t])
      types += format("%s%s ×%u", types.empty() ? "" : ", ", typeWords(uint8_t(t)).c_str(), typeHistogram[t]);
  int maxTex = -1;
  for (int t = 0; t < 256; ++t)
    if (texUsed[t]) texNums += format("%s%d", texNums.empty() ? "" : ",", t), maxTex = t;
  out.info.emplace_back("types", types);
  out.info.emplace_back("textureNumbers", texNums);
  out.info.emplace_back("scale", format("%g %g %g", scale[0], scale[1], scale[2]));
  if (ucMesh) {
    out.info.emplace_back("ucMesh", ucMesh->name);
    out.info.emplace_back("origin", format("%g %g %g", origin[0], origin[1], origin[2]));
    if (unmirror) out.info.emplace_back("unmirror", "1");
  }
  if (pad) out.info.emplace_back("framePadding", format("%u", pad));
  if (maxTex > 15) out.warnings.push_back(format("TextureNum %d is above 15, the engine's limit", maxTex));

  if (details) {
    details->renderToVertex = wedgeVertex;
    details->dx16 = dx16;
    details->frameBytesSkipped = pad;
  }
  out.meshes.push_back(std::move(mesh));
  return Status{};
}

}  // namespace rs
