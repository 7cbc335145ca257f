// A skeletal mesh (.psk) a .uc script imports (#exec MESH MODELIMPORT, UE2-era engines and UT v436),
// placed and textured as the engine shows it: the vertex meshes' MESH ORIGIN / MESHMAP SCALE /
// MESHMAP SETTEXTURE (spec unreal-vertex-3d.md §7, §8; ue1-package.md §9, §11.2) applied to the
// PSK decoder's model. A UE1 package's SkeletalMesh goes through the same placement.
#include <cmath>
#include <cstring>

#include "formats/psk/psk.h"
#include "formats/ue1/ue1.h"
#include "io/ascii.h"
#include "io/byte_reader.h"

namespace rs {
namespace {

constexpr double kLimit = 1e6;

// The PSK decoder's axes (formats/psk): Unreal (x, y, z) -> three (x, z, −y), and back.
void toThree(const double u[3], double t[3]) { t[0] = u[0], t[1] = u[2], t[2] = -u[1]; }
void toUnreal(const double t[3], double u[3]) { u[0] = t[0], u[1] = -t[2], u[2] = t[1]; }

// The placement in three space: three' = Rot · D · three + T, with D diagonal (the scale along
// three's axes) and Rot a rotation, the order of a bone's T · R · S.
struct Affine {
  double rot[3][3];  // rot[row][col]
  double d[3];
  double t[3];
  double lin(int r, int c) const { return rot[r][c] * d[c]; }
};

Affine placementInThree(const SkeletalPlacement& pl) {
  double axes[3][3];
  ue1RotationAxes(pl.rotation, axes);
  // p = axesᵀ · s (rows of `axes` are the rotated X/Y/Z axes).
  auto rotate = [&](const double s[3], double p[3]) {
    for (int k = 0; k < 3; ++k) p[k] = s[0] * axes[0][k] + s[1] * axes[1][k] + s[2] * axes[2][k];
  };
  Affine a;
  for (int c = 0; c < 3; ++c) {
    double e[3] = {0, 0, 0}, u[3], p[3], col[3];
    e[c] = 1;
    toUnreal(e, u);
    rotate(u, p);
    toThree(p, col);
    for (int r = 0; r < 3; ++r) a.rot[r][c] = col[r];
  }
  const double s[3] = {pl.scale[0], pl.scale[1], pl.scale[2]};
  toThree(s, a.d);
  a.d[2] = -a.d[2];  // a scale along Unreal Y is one along three's Z: its size, not its direction
  double o[3] = {-pl.origin[0] * pl.scale[0], -pl.origin[1] * pl.scale[1], -pl.origin[2] * pl.scale[2]}, p[3];
  rotate(o, p);
  toThree(p, a.t);
  return a;
}

bool isIdentity(const SkeletalPlacement& pl) {
  for (int k = 0; k < 3; ++k)
    if (pl.origin[k] != 0 || pl.rotation[k] != 0 || pl.scale[k] != 1) return false;
  return true;
}

void keepInRange(Model& m, const std::string& what, double* v, const char* name, double fallback, bool nonZero) {
  for (int k = 0; k < 3; ++k) {
    if (std::fabs(v[k]) <= kLimit && !(nonZero && v[k] == 0)) continue;
    m.warnings.push_back(
        format("%s: %s %c=%g is out of range; using %g", what.c_str(), name, "XYZ"[k], v[k], fallback));
    v[k] = fallback;
  }
}

void movePoints(std::vector<float>& xyz, const Affine& a, bool translate) {
  for (size_t i = 0; i + 2 < xyz.size(); i += 3) {
    const double v[3] = {xyz[i], xyz[i + 1], xyz[i + 2]};
    for (int r = 0; r < 3; ++r)
      xyz[i + r] = float(a.lin(r, 0) * v[0] + a.lin(r, 1) * v[1] + a.lin(r, 2) * v[2] + (translate ? a.t[r] : 0.0));
  }
}

// Normals go through the inverse transpose: Rot · D⁻¹, then are normalized again.
void moveNormals(std::vector<float>& xyz, const Affine& a) {
  for (size_t i = 0; i + 2 < xyz.size(); i += 3) {
    const double v[3] = {xyz[i] / a.d[0], xyz[i + 1] / a.d[1], xyz[i + 2] / a.d[2]};
    double n[3];
    for (int r = 0; r < 3; ++r) n[r] = a.rot[r][0] * v[0] + a.rot[r][1] * v[1] + a.rot[r][2] * v[2];
    const double l = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int r = 0; r < 3; ++r) xyz[i + r] = float(l > 0 ? n[r] / l : 0.0);
  }
}

// The placement as one more bone, parent of every root: skinning and bone-name animations play
// under it as they did.
void addPlacementBone(Model& m, const Affine& a) {
  Skeleton& s = m.skeleton;
  const size_t n = s.names.size();
  if (n >= 65535) {
    m.warnings.push_back(format("%zu bones: no room for the MESH ORIGIN bone; the skeleton is not placed", n));
    return;
  }
  for (size_t i = 0; i < n; ++i)
    if (s.parents[i] < 0 || size_t(s.parents[i]) >= n) s.parents[i] = int32_t(n);
  // No joint of the mesh: the scene does not take the old roots for limbs below it.
  if (s.helper < 0) s.helper = int32_t(n);
  s.names.push_back("MESH ORIGIN");
  s.parents.push_back(-1);
  for (int k = 0; k < 3; ++k) s.restTranslation.push_back(float(a.t[k]));
  float c[3][3];
  for (int col = 0; col < 3; ++col)
    for (int r = 0; r < 3; ++r) c[col][r] = float(a.rot[r][col]);
  float q[4];
  ue1MatrixToQuat(c[0], c[1], c[2], q);
  for (float v : q) s.restRotation.push_back(v);
  const bool scaled = a.d[0] != 1 || a.d[1] != 1 || a.d[2] != 1;
  if (scaled && s.restScale.empty()) s.restScale.assign(n * 3, 1.0f);
  if (!s.restScale.empty())
    for (int k = 0; k < 3; ++k) s.restScale.push_back(float(a.d[k]));
}

// A slot's texture names: a loose TEXTURE IMPORT's file stems first; else the reference as written
// when it names its package, then `Package.Name` for each package the script loads that it may
// mean (the package family finds it by name inside; `PACKAGE=Into` loads the file's objects into
// `Into`, so `Into.Group.Name` means the file's Name), then the short name.
std::vector<std::string> slotNames(const UcScript& script, const std::string& ref, bool& masked) {
  std::vector<std::string> out;
  const size_t dot = ref.find('.'), last = ref.find_last_of('.');
  const std::string shortName = last == std::string::npos ? ref : ref.substr(last + 1);
  for (const UcTextureImport& t : script.textureImports)
    if (equalsNoCase(t.name, ref) || equalsNoCase(t.name, shortName)) {
      ucTextureCandidates(script, ref, out, masked);
      return out;
    }
  const std::string first = dot == std::string::npos ? "" : ref.substr(0, dot);
  if (!first.empty()) addUniqueNoCase(out, ref);
  for (const UcObjLoad& o : script.objLoads) {
    const std::string into = o.into.substr(0, o.into.find('.'));
    if (first.empty() || equalsNoCase(first, o.package) || (!into.empty() && equalsNoCase(first, into)))
      addUniqueNoCase(out, o.package + "." + shortName);
  }
  addUniqueNoCase(out, shortName);
  return out;
}

void nameSlots(const UcScript& script, const UcMesh& mesh, Model& m) {
  for (size_t i = 0; i < m.materials.size(); ++i) {
    Material& mat = m.materials[i];
    const std::string* ref = nullptr;
    for (const auto& e : mesh.textures)
      if (e.first == i) ref = &e.second;
    if (!ref) continue;
    bool masked = false;
    mat.textureNames = slotNames(script, *ref, masked);
    if (masked && mat.blend == Blend::Opaque && !mat.hidden) mat.blend = Blend::Masked;
  }
  for (const auto& e : mesh.textures)
    if (e.first >= m.materials.size())
      m.warnings.push_back(format("MESHMAP SETTEXTURE NUM=%u names a slot past the mesh's %zu materials; ignored",
                                  e.first, m.materials.size()));
}

}  // namespace

void placeSkeletalModel(Model& m, SkeletalPlacement pl, const std::string& what) {
  keepInRange(m, what, pl.origin, "MESH ORIGIN", 0, false);
  keepInRange(m, what, pl.rotation, "MESH ORIGIN angle", 0, false);
  keepInRange(m, what, pl.scale, "MESHMAP SCALE", 1, true);
  if (isIdentity(pl)) return;
  const Affine a = placementInThree(pl);
  for (Mesh& mesh : m.meshes) {
    movePoints(mesh.positions, a, true);
    moveNormals(mesh.normals, a);
    for (Morph& morph : mesh.morphs) {
      movePoints(morph.positions, a, false);
      movePoints(morph.normals, a, false);
    }
  }
  if (m.hasSkeleton && !m.skeleton.names.empty()) addPlacementBone(m, a);
  // A mirroring scale turns the triangles inside out: their winding follows.
  if (a.d[0] * a.d[1] * a.d[2] < 0)
    for (Mesh& mesh : m.meshes)
      for (size_t i = 0; i + 2 < mesh.indices.size(); i += 3) std::swap(mesh.indices[i + 1], mesh.indices[i + 2]);
}

Status decodeScriptedPsk(const uint8_t* data, size_t size, const std::string& file, const std::string& uc,
                         const std::string& ucFile, Model& out) {
  Status st = decodePsk(data, size, file, out);
  if (!st.ok()) return st;
  const UcScript script = parseUc(uc);
  for (const std::string& w : script.warnings) out.warnings.push_back(ucFile + ": " + w);
  const int found = findUcModel(script, file);
  if (found < 0) {
    out.warnings.push_back(
        format("%s: no MESH MODELIMPORT names %s; not placed", ucFile.c_str(), ucBaseName(file, false).c_str()));
    return Status();
  }
  const UcMesh& mesh = script.meshes[size_t(found)];
  SkeletalPlacement pl;
  for (int k = 0; k < 3; ++k) {
    pl.origin[k] = mesh.origin[k];
    pl.rotation[k] = mesh.rotation[k];
    if (mesh.hasScale) pl.scale[k] = mesh.scale[k];
  }
  placeSkeletalModel(out, pl, ucFile);
  nameSlots(script, mesh, out);
  out.info.emplace_back("script", ucBaseName(ucFile, false));
  out.info.emplace_back("mesh", mesh.name);
  out.info.emplace_back("origin", format("%g %g %g", pl.origin[0], pl.origin[1], pl.origin[2]));
  out.info.emplace_back("rotation", format("%g %g %g", pl.rotation[0], pl.rotation[1], pl.rotation[2]));
  out.info.emplace_back("scale", format("%g %g %g", pl.scale[0], pl.scale[1], pl.scale[2]));
  if (!mesh.defaultAnim.empty()) out.info.emplace_back("defaultAnim", mesh.defaultAnim);
  std::string loads;
  for (const UcObjLoad& o : script.objLoads) loads += (loads.empty() ? "" : "; ") + ucBaseName(o.file, false);
  if (!loads.empty()) out.info.emplace_back("objLoad", loads);
  return Status();
}

}  // namespace rs
