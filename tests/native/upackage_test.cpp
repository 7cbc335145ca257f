// UE1 packages: writer round trips (a package's vertex mesh equals the same data as loose
// _d.3d/_a.3d + .uc), the facts of every sample package (spec §14, samples README), package meshes
// against their loose sources, and hostile packages refused with the object, field and byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "formats/psk/psk.h"
#include "formats/ue1/ue1.h"
#include "formats/upackage/upackage.h"
#include "test_support.h"
#include "writers/ue1_writer.h"
#include "writers/upackage_examples.h"
#include "writers/upackage_writer.h"

using namespace rs;
using rs::test::countOf;
using rs::test::infoOf;

namespace {

// Small packages come from the writer (writers/upackage_examples.h): exampleQuad, exampleTexture,
// examplePackage.

// The same data as loose files: _d.3d (Type bytes as the importer reads them back), _a.3d, .uc.
// `maskedSlots`: slots whose texture is masked (imported with FLAGS=2 in the loose script).
Status decodeLoose(const UpkWriteVertexMesh& m, Model& out, const std::vector<bool>& maskedSlots = {}) {
  std::vector<Ue1WriteTriangle> tris;
  for (const UpkWriteTriangle& t : m.triangles) {
    Ue1WriteTriangle w;
    std::copy(t.v, t.v + 3, w.v);
    for (int k = 0; k < 3; ++k) w.uv[k][0] = t.uv[k][0], w.uv[k][1] = t.uv[k][1];
    w.type = t.polyFlags & 0x100 ? 1 : 0;
    w.textureNum = uint8_t(t.textureIndex);
    tris.push_back(w);
  }
  const std::vector<uint8_t> d = writeUe1Data(tris, uint16_t(m.frameVerts));
  const std::vector<uint8_t> a =
      writeUe1Anim(m.xyz, uint16_t(m.frameVerts), m.dx16 ? Ue1Encoding::Dx16 : Ue1Encoding::Packed);
  UcBuilder uc;
  uc.meshImport(m.name, m.name + "_a.3d", m.name + "_d.3d")
      .origin(m.name, m.origin[0], m.origin[1], m.origin[2], m.rotOrigin[0] / 256.0, m.rotOrigin[1] / 256.0,
              m.rotOrigin[2] / 256.0)
      .scale(m.name, m.scale[0], m.scale[1], m.scale[2]);
  for (size_t i = 0; i < m.textures.size(); ++i) {
    if (m.textures[i].empty() || m.textures[i].find('.') != std::string::npos) continue;
    const bool masked = i < maskedSlots.size() && maskedSlots[i];
    uc.textureImport(m.textures[i], m.textures[i] + ".pcx", masked ? 2 : -1).setTexture(m.name, int(i), m.textures[i]);
  }
  for (const UpkWriteSequence& s : m.sequences) {
    uc.sequence(m.name, s.name, s.startFrame, s.numFrames, s.rate, s.group);
    for (const auto& n : s.notifies) uc.notify(m.name, s.name, n.first, n.second);
  }
  return decodeUe1(d.data(), d.size(), m.name + "_d.3d", a.data(), a.size(), m.name + "_a.3d", uc.str(), "Quad.uc",
                   out);
}

const PackageEntry* findEntry(const std::vector<PackageEntry>& list, const std::string& name) {
  for (const PackageEntry& e : list)
    if (e.name == name) return &e;
  return nullptr;
}

Status decodeNamed(const std::vector<uint8_t>& bytes, const std::string& file, const std::string& name, Model& out) {
  PackageListing l;
  Status s = listPackage(bytes.data(), bytes.size(), file, l);
  if (!s.ok()) return s;
  for (uint32_t i = 0; i < l.package.exports.size(); ++i)
    if (l.package.exports[i].name == name &&
        (isPackageMeshClass(l.package.exports[i].className) || isPackageTextureClass(l.package.exports[i].className) ||
         l.package.exports[i].className == "Animation"))
      return decodePackageObject(l.package, bytes.data(), i, out);
  s.error = "no export " + name;
  return s;
}

void expectSameVertexModel(const Model& pkg, const Model& loose) {
  ASSERT_EQ(pkg.meshes.size(), 1u);
  ASSERT_EQ(loose.meshes.size(), 1u);
  EXPECT_EQ(pkg.meshes[0].positions, loose.meshes[0].positions);
  EXPECT_EQ(pkg.meshes[0].normals, loose.meshes[0].normals);
  EXPECT_EQ(pkg.meshes[0].uvs, loose.meshes[0].uvs);
  EXPECT_EQ(pkg.meshes[0].indices, loose.meshes[0].indices);
  ASSERT_EQ(pkg.meshes[0].groups.size(), loose.meshes[0].groups.size());
  ASSERT_EQ(pkg.materials.size(), loose.materials.size());
  for (size_t i = 0; i < pkg.materials.size(); ++i) {
    EXPECT_EQ(pkg.materials[i].name, loose.materials[i].name);
    EXPECT_EQ(pkg.materials[i].twoSided, loose.materials[i].twoSided);
    EXPECT_EQ(int(pkg.materials[i].blend), int(loose.materials[i].blend));
  }
  EXPECT_EQ(pkg.vertexAnimation.frameCount, loose.vertexAnimation.frameCount);
  EXPECT_EQ(pkg.vertexAnimation.frames, loose.vertexAnimation.frames);
  ASSERT_EQ(pkg.vertexAnimation.sequences.size(), loose.vertexAnimation.sequences.size());
  for (size_t i = 0; i < pkg.vertexAnimation.sequences.size(); ++i) {
    const VertexSequence &a = pkg.vertexAnimation.sequences[i], &b = loose.vertexAnimation.sequences[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.group, b.group);
    EXPECT_EQ(a.startFrame, b.startFrame);
    EXPECT_EQ(a.frameCount, b.frameCount);
    EXPECT_DOUBLE_EQ(a.rate, b.rate);
    ASSERT_EQ(a.notifies.size(), b.notifies.size());
    for (size_t k = 0; k < a.notifies.size(); ++k) {
      EXPECT_EQ(a.notifies[k].name, b.notifies[k].name);
      EXPECT_NEAR(a.notifies[k].time, b.notifies[k].time, 1e-6);
    }
  }
}

// ---- samples -------------------------------------------------------------------------------------

std::string sampleDir() { return test::samplesDir("upackage"); }

bool readSample(const std::string& name, std::vector<uint8_t>& out) { return test::readBytes(sampleDir() + name, out); }

#define REQUIRE_SAMPLE(bytes, file) \
  std::vector<uint8_t> bytes;       \
  if (!readSample(file, bytes)) GTEST_SKIP() << "samples not found: " << sampleDir() << file;

// Size of frame 0 in Unreal axes (X, Y, Z) from three-space positions (−Y, Z, X), RotOrigin 0.
void unrealSize(const Model& m, double size[3]) {
  const std::vector<float>& p = m.meshes[0].positions;
  double lo[3] = {1e30, 1e30, 1e30}, hi[3] = {-1e30, -1e30, -1e30};
  for (size_t i = 0; i + 2 < p.size(); i += 3)
    for (int k = 0; k < 3; ++k) lo[k] = std::min(lo[k], double(p[i + k])), hi[k] = std::max(hi[k], double(p[i + k]));
  size[0] = hi[2] - lo[2];
  size[1] = hi[0] - lo[0];
  size[2] = hi[1] - lo[1];
}

// Triangles as corners (position at the given frames, UV), matched one to one with a tolerance.
struct Corner {
  std::vector<float> pos;
  float u, v;
};
using Tri3 = std::vector<Corner>;

std::vector<Tri3> trianglesOf(const Model& m, const std::vector<uint32_t>& frames) {
  std::vector<Tri3> out;
  const Mesh& mesh = m.meshes[0];
  for (size_t i = 0; i + 2 < mesh.indices.size(); i += 3) {
    Tri3 t;
    for (int k = 0; k < 3; ++k) {
      const uint32_t r = mesh.indices[i + size_t(k)];
      Corner c;
      for (uint32_t f : frames) {
        const float* p = m.hasVertexAnimation
                             ? &m.vertexAnimation.frames[(size_t(f) * m.vertexAnimation.vertexCount + r) * 3]
                             : &mesh.positions[size_t(r) * 3];
        c.pos.insert(c.pos.end(), p, p + 3);
      }
      c.u = mesh.uvs[0][r * 2];
      c.v = mesh.uvs[0][r * 2 + 1];
      t.push_back(c);
    }
    out.push_back(t);
  }
  return out;
}

bool cornersMatch(const Corner& a, const Corner& b, float posTol, float uvTol) {
  if (std::fabs(a.u - b.u) > uvTol || std::fabs(a.v - b.v) > uvTol) return false;
  for (size_t i = 0; i < a.pos.size(); ++i)
    if (std::fabs(a.pos[i] - b.pos[i]) > posTol) return false;
  return true;
}

// Same winding: b equals a rotated (never mirrored).
bool trianglesMatch(const Tri3& a, const Tri3& b, float posTol, float uvTol) {
  for (int r = 0; r < 3; ++r) {
    bool all = true;
    for (int k = 0; k < 3 && all; ++k) all = cornersMatch(a[size_t(k)], b[size_t((k + r) % 3)], posTol, uvTol);
    if (all) return true;
  }
  return false;
}

size_t unmatched(const std::vector<Tri3>& a, std::vector<Tri3> b, float posTol, float uvTol) {
  size_t missing = 0;
  for (const Tri3& t : a) {
    auto it = std::find_if(b.begin(), b.end(), [&](const Tri3& o) { return trianglesMatch(t, o, posTol, uvTol); });
    if (it == b.end()) {
      ++missing;
    } else {
      b.erase(it);
    }
  }
  return missing;
}

void patch(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (int k = 0; k < 4; ++k) b[at + size_t(k)] = uint8_t(v >> (8 * k));
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Writer round trips

TEST(UpackageWriter, MeshEqualsTheLooseFiles) {
  for (const uint16_t version : {69, 68, 65, 61}) {
    const UpkWritePackage p = examplePackage(version, false, false);
    const std::vector<uint8_t> bytes = writeUpackage(p);
    Model pkg, loose;
    Status s = decodeNamed(bytes, "Small.u", "Quad", pkg);
    ASSERT_TRUE(s.ok()) << s.error;
    s = decodeLoose(p.meshes[0], loose, {false, true});
    ASSERT_TRUE(s.ok()) << s.error;
    SCOPED_TRACE(version);
    expectSameVertexModel(pkg, loose);
    EXPECT_EQ(pkg.format, "ue1");
    EXPECT_EQ(infoOf(pkg, "object"), "Small.Quad");
    EXPECT_EQ(infoOf(pkg, "vertexBytes"), "4");
    EXPECT_EQ(infoOf(pkg, "rotOrigin"), "0 16384 0");
    EXPECT_TRUE(pkg.warnings.empty()) << test::allWarnings(pkg);
    // Slots: this package's textures by path, then the name alone.
    ASSERT_EQ(pkg.materials.size(), 2u);
    EXPECT_EQ(pkg.materials[0].textureNames, (std::vector<std::string>{"Small.Skin0", "Skin0"}));
    EXPECT_EQ(pkg.materials[1].textureNames, (std::vector<std::string>{"Small.Skins.Skin1", "Skin1"}));
    // Skin1 is masked: its material is drawn masked, as a FLAGS=2 import makes it for the loose files.
    EXPECT_TRUE(pkg.materials[1].twoSided);
    EXPECT_EQ(int(pkg.materials[1].blend), int(Blend::Masked));
  }
}

TEST(UpackageWriter, LodMeshDeusExVerticesEqualTheLooseFiles) {
  const UpkWritePackage p = examplePackage(68, true, true);
  const std::vector<uint8_t> bytes = writeUpackage(p);
  Model pkg, loose;
  Status s = decodeNamed(bytes, "Small.u", "Quad", pkg);
  ASSERT_TRUE(s.ok()) << s.error;
  ASSERT_TRUE(decodeLoose(p.meshes[0], loose, {false, true}).ok());
  expectSameVertexModel(pkg, loose);
  EXPECT_EQ(infoOf(pkg, "vertexBytes"), "8");
  EXPECT_EQ(infoOf(pkg, "className"), "LodMesh");
  EXPECT_EQ(countOf(pkg, "wedges"), 4);  // 6 corners, vertices 0 and 2 shared with one UV each
}

TEST(UpackageWriter, ListingCountsPathsAndImports) {
  UpkWritePackage p = examplePackage(69, false, false);
  p.meshes[0].textures.push_back("Botpack.Skins.tloc4");
  p.meshes.push_back(exampleQuad("Quad2", true, false, 2));
  p.meshes.back().group = "Props";
  const std::vector<uint8_t> bytes = writeUpackage(p);
  PackageListing l;
  Status s = listPackage(bytes.data(), bytes.size(), "dir/Small.u", l);
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(l.package.name, "Small");
  EXPECT_EQ(l.package.version, 69u);
  std::map<std::string, double> classes(l.classes.begin(), l.classes.end());
  EXPECT_EQ(classes["Mesh"], 1);
  EXPECT_EQ(classes["LodMesh"], 1);
  EXPECT_EQ(classes["Texture"], 2);
  EXPECT_EQ(classes["Palette"], 2);
  EXPECT_EQ(classes["Package"], 2);  // groups Skins, Props
  ASSERT_EQ(l.meshes.size(), 2u);
  EXPECT_EQ(l.meshes[1].path, "Small.Props.Quad2");
  EXPECT_EQ(l.meshes[1].group, "Props");
  EXPECT_EQ(l.meshes[0].group, "");
  ASSERT_EQ(l.textures.size(), 4u);
  const PackageEntry* skin1 = findEntry(l.textures, "Skin1");
  ASSERT_NE(skin1, nullptr);
  EXPECT_EQ(skin1->path, "Small.Skins.Skin1");
  EXPECT_EQ(skin1->className, "Texture");
  Model m;
  s = decodePackageObject(l.package, bytes.data(), l.meshes[0].index, m);
  ASSERT_TRUE(s.ok()) << s.error;
  // The third slot names another package: the path is kept for the web side to resolve.
  Model withSlot;
  UpkWritePackage q = examplePackage(69, false, false);
  q.meshes[0].triangles[1].textureIndex = 2;
  q.meshes[0].textures.push_back("Botpack.Skins.tloc4");
  const std::vector<uint8_t> qb = writeUpackage(q);
  ASSERT_TRUE(decodeNamed(qb, "Small.u", "Quad", withSlot).ok());
  ASSERT_EQ(withSlot.materials.size(), 2u);
  EXPECT_EQ(withSlot.materials[1].textureNames, (std::vector<std::string>{"Botpack.Skins.tloc4", "tloc4"}));
}

TEST(UpackageWriter, P8TextureWithPaletteAndMask) {
  // v65 palettes are RGB, v61 mips have no SkipPos: the same pictures.
  for (const uint16_t version : {65, 61}) {
    UpkWritePackage old;
    old.version = version;
    old.textures.push_back(exampleTexture("Masked", "Skins", 8, 4, true));
    const std::vector<uint8_t> ob = writeUpackage(old);
    Model om;
    Status os = decodeNamed(ob, "Tex.utx", "Masked", om);
    ASSERT_TRUE(os.ok()) << os.error;
    EXPECT_EQ(om.textures[0].mips[0][1 * 4 + 1], 254) << version;
    EXPECT_EQ(om.textures[0].mips[0][3], 0) << version;
  }
  UpkWritePackage p;
  p.textures.push_back(exampleTexture("Masked", "Skins", 8, 4, true));
  p.textures.push_back(exampleTexture("Plain", "", 4, 2, false));
  p.textures.back().mips = false;
  const std::vector<uint8_t> bytes = writeUpackage(p);
  Model m;
  Status s = decodeNamed(bytes, "Tex.utx", "Masked", m);
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(m.format, "upackage-texture");
  ASSERT_EQ(m.textures.size(), 1u);
  const Texture& t = m.textures[0];
  EXPECT_EQ(t.format, "rgba8");
  EXPECT_EQ(t.width, 8u);
  EXPECT_EQ(t.height, 4u);
  ASSERT_EQ(t.mips.size(), 1u);
  for (uint32_t i = 0; i < 32; ++i) {
    const uint8_t idx = uint8_t(i % 7);
    EXPECT_EQ(t.mips[0][i * 4], idx);
    EXPECT_EQ(t.mips[0][i * 4 + 1], 255 - idx);
    EXPECT_EQ(t.mips[0][i * 4 + 2], uint8_t(idx * 3));
    EXPECT_EQ(t.mips[0][i * 4 + 3], idx == 0 ? 0 : 255) << i;
  }
  EXPECT_EQ(countOf(m, "mips"), 4);  // 8x4, 4x2, 2x1, 1x1
  EXPECT_EQ(infoOf(m, "masked"), "1");
  EXPECT_EQ(infoOf(m, "palette"), "Tex.Skins.MaskedPal");
  Model plain;
  ASSERT_TRUE(decodeNamed(bytes, "Tex.utx", "Plain", plain).ok());
  EXPECT_EQ(plain.textures[0].mips[0][3], 255);  // index 0 opaque without bMasked
  EXPECT_EQ(countOf(plain, "mips"), 1);
  // The palette on its own: a 16 x 16 swatch.
  Model pal;
  ASSERT_TRUE(decodeNamed(bytes, "Tex.utx", "PlainPal", pal).ok());
  ASSERT_EQ(pal.textures.size(), 1u);
  EXPECT_EQ(pal.textures[0].width, 16u);
  EXPECT_EQ(pal.textures[0].mips[0][5 * 4 + 1], 250);
}

TEST(UpackageWriter, ProceduralTextureIsAPlaceholder) {
  UpkWritePackage p;
  UpkWriteTexture fire;
  fire.name = "Flame";
  fire.className = "FireTexture";
  fire.width = fire.height = 64;
  fire.sparks = 5;
  p.textures.push_back(fire);
  const std::vector<uint8_t> bytes = writeUpackage(p);
  Model m;
  Status s = decodeNamed(bytes, "Fx.utx", "Flame", m);
  ASSERT_TRUE(s.ok()) << s.error;
  ASSERT_EQ(m.textures.size(), 1u);
  EXPECT_EQ(m.textures[0].width, 8u);
  EXPECT_EQ(countOf(m, "sparks"), 5);
  EXPECT_NE(infoOf(m, "placeholder").find("FireTexture"), std::string::npos);
}

TEST(UpackageWriter, SkeletalMeshIsAPskModel) {
  UpkWritePackage p;
  p.textures.push_back(exampleTexture("Hide", "Skins", 4, 4, false));
  UpkWriteSkeletalMesh s;
  s.name = "Thing";
  s.points = {0, 0, 0, 10, 0, 0, 0, 20, 0, 0, 0, 30};
  s.wedges = {{0, 0, 0}, {1, 255, 0}, {2, 0, 255}, {3, 128, 128}};
  UpkWriteSkeletalMesh::Face f1, f2;
  f1.wedge[0] = 0, f1.wedge[1] = 1, f1.wedge[2] = 2;
  f2.wedge[0] = 0, f2.wedge[1] = 2, f2.wedge[2] = 3, f2.material = 1;
  s.faces = {f1, f2};
  s.materials = {{0, 0}, {0x100, 1}};
  s.textures = {"Hide", ""};
  UpkWriteBone root, child;
  root.name = "root";
  root.parent = 0;
  child.name = "tip";
  child.parent = 0;
  child.position[2] = 5;
  s.bones = {root, child};
  s.weights = {{0, 0, 1}, {1, 0, 1}, {2, 1, 1}, {3, 0, 0.5f}, {3, 1, 0.5f}};
  p.skeletalMeshes.push_back(s);
  const std::vector<uint8_t> bytes = writeUpackage(p);
  Model m;
  Status st = decodeNamed(bytes, "Skel.u", "Thing", m);
  ASSERT_TRUE(st.ok()) << st.error;
  EXPECT_EQ(m.format, "psk");
  EXPECT_EQ(m.name, "Thing");
  ASSERT_EQ(m.meshes.size(), 1u);
  const Mesh& mesh = m.meshes[0];
  ASSERT_EQ(mesh.positions.size(), 12u);
  // PSK axes: (x, y, z) -> (x, z, −y).
  EXPECT_FLOAT_EQ(mesh.positions[1 * 3 + 0], 10);
  EXPECT_FLOAT_EQ(mesh.positions[2 * 3 + 2], -20);
  EXPECT_FLOAT_EQ(mesh.positions[3 * 3 + 1], 30);
  EXPECT_FLOAT_EQ(mesh.uvs[0][1 * 2], 255.0f / 256.0f);
  EXPECT_FLOAT_EQ(mesh.uvs[0][2 * 2 + 1], 1.0f - 255.0f / 256.0f);
  EXPECT_EQ(mesh.indices.size(), 6u);
  ASSERT_TRUE(m.hasSkeleton);
  EXPECT_EQ(m.skeleton.names, (std::vector<std::string>{"root", "tip"}));
  EXPECT_EQ(m.skeleton.parents[1], 0);
  ASSERT_EQ(mesh.skinIndex.size(), 16u);
  EXPECT_EQ(mesh.skinIndex[2 * 4], 1);
  EXPECT_NEAR(mesh.skinWeight[3 * 4], 0.5, 1e-4);
  ASSERT_EQ(m.materials.size(), 2u);
  EXPECT_EQ(m.materials[0].textureNames, (std::vector<std::string>{"Skel.Skins.Hide", "Hide"}));
  EXPECT_TRUE(m.materials[1].textureNames.empty());
  EXPECT_TRUE(m.materials[1].twoSided);
}

TEST(UpackageWriter, AnimationIsAPsaModel) {
  UpkWritePackage p;
  UpkWriteAnimation a;
  a.name = "ThingAnim";
  a.bones = {{"root", 0}, {"tip", 0}};
  UpkWriteAnimation::Sequence wave;
  wave.name = "Wave";
  wave.numFrames = 4;
  wave.rate = 10;
  wave.trackTime = 8;  // KeyTime counts half frames here: scaled by NumFrames / TrackTime
  wave.notifies = {{0.5f, "Swish"}};
  UpkWriteAnimation::BoneKeys root, tip;
  root.quat = {0, 0, 0, 1};  // one key: holds still
  root.pos = {1, 2, 3, 4, 5, 6};
  root.time = {0, 4};
  tip.quat = {0, 0, 0.6f, 0.8f, 0, 0.6f, 0, 0.8f, 0.6f, 0, 0, 0.8f};
  tip.time = {0, 2, 6};
  wave.tracks = {root, tip};
  a.sequences = {wave};
  p.animations.push_back(a);
  const std::vector<uint8_t> bytes = writeUpackage(p);
  PackageListing l;
  ASSERT_TRUE(listPackage(bytes.data(), bytes.size(), "Anim.u", l).ok());
  ASSERT_EQ(l.animations.size(), 1u);
  Model m;
  Status s = decodePackageObject(l.package, bytes.data(), l.animations[0].index, m);
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(m.format, "psa");
  EXPECT_EQ(m.bindBy, "name");
  EXPECT_EQ(m.skeleton.names, (std::vector<std::string>{"root", "tip"}));
  EXPECT_EQ(m.skeleton.parents, (std::vector<int32_t>{-1, 0}));
  ASSERT_EQ(m.clips.size(), 1u);
  const Clip& c = m.clips[0];
  EXPECT_EQ(c.name, "Wave");
  EXPECT_DOUBLE_EQ(c.fps, 10);
  EXPECT_EQ(c.frameCount, 4u);
  EXPECT_DOUBLE_EQ(c.duration, 0.4);
  ASSERT_EQ(c.notifies.size(), 1u);
  EXPECT_NEAR(c.notifies[0].time, 0.2, 1e-9);
  ASSERT_EQ(c.tracks.size(), 2u);
  const Track& r = c.tracks[0];
  EXPECT_EQ(r.bone, 0);
  ASSERT_EQ(r.times.size(), 2u);
  EXPECT_FLOAT_EQ(r.times[1], 0.2f);  // key time 4 x (4 / 8) frames at 10 fps
  ASSERT_EQ(r.translation.size(), 6u);
  EXPECT_FLOAT_EQ(r.translation[3], 4);  // PSA axes: (x, z, −y)
  EXPECT_FLOAT_EQ(r.translation[4], 6);
  EXPECT_FLOAT_EQ(r.translation[5], -5);
  ASSERT_EQ(r.rotation.size(), 8u);
  EXPECT_FLOAT_EQ(r.rotation[7], 1);
  const Track& t = c.tracks[1];
  EXPECT_EQ(t.bone, 1);
  EXPECT_TRUE(t.translation.empty());
  ASSERT_EQ(t.rotation.size(), 12u);
  // A child bone's key is conjugated, then (x, y, z, w) -> (x, z, −y, w): (0, 0, 0.6, 0.8) -> (0, −0.6, 0, 0.8).
  EXPECT_FLOAT_EQ(t.rotation[1], -0.6f);
  EXPECT_FLOAT_EQ(t.rotation[3], 0.8f);
  EXPECT_FLOAT_EQ(t.times[2], 0.3f);
}

// ---------------------------------------------------------------------------------------------
// Hostile packages: a clear error naming the object (or table entry), the field and the byte

TEST(UpackageHostile, TableCountsPastTheEnd) {
  std::vector<uint8_t> b = writeUpackage(examplePackage(69, false, false));
  std::vector<uint8_t> names = b, exports = b;
  patch(names, 12, 0x7FFFFFFF);
  PackageListing l;
  Status s = listPackage(names.data(), names.size(), "Bad.u", l);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error.find("NameCount 2147483647"), std::string::npos) << s.error;
  EXPECT_NE(s.error.find("at byte 12"), std::string::npos) << s.error;
  // Zero-size exports repeated 2^28 times: refused from the bytes the table could hold, not read.
  patch(exports, 20, 0x10000000);
  s = listPackage(exports.data(), exports.size(), "Bad.u", l);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error.find("ExportCount 268435456 needs at least"), std::string::npos) << s.error;
  // Cut short: the tables are at the end.
  std::vector<uint8_t> cut(b.begin(), b.begin() + std::ptrdiff_t(b.size() - 10));
  s = listPackage(cut.data(), cut.size(), "Cut.u", l);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error.find("export table entry"), std::string::npos) << s.error;
  EXPECT_NE(s.error.find("UPACKAGE Cut.u"), std::string::npos) << s.error;
}

TEST(UpackageHostile, ImportChainThatLoops) {
  UpkLayout lay;
  UpkWritePackage p = examplePackage(69, false, false);
  p.meshes[0].textures.push_back("Botpack.Skins.tloc4");
  std::vector<uint8_t> b = writeUpackage(p, &lay);
  ASSERT_GE(lay.importOuterAt.size(), 3u);
  // The last import (tloc4, outer Skins, outer Botpack) becomes its own outer.
  const size_t n = lay.importOuterAt.size();
  patch(b, lay.importOuterAt[n - 1], uint32_t(-int32_t(n)));
  PackageListing l;
  Status s = listPackage(b.data(), b.size(), "Loop.u", l);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error.find("import " + std::to_string(n - 1) + " (tloc4): Outer chain loops"), std::string::npos)
      << s.error;
  EXPECT_NE(s.error.find("at byte"), std::string::npos) << s.error;
}

TEST(UpackageHostile, NameIndexPastTheTableInOneObject) {
  UpkLayout lay;
  std::vector<uint8_t> b = writeUpackage(examplePackage(69, false, false), &lay);
  const UpkLayout::Object* quadObj = lay.find("Quad");
  ASSERT_NE(quadObj, nullptr);
  b[quadObj->offset] = 0x3F;  // the property block's first name: index 63 of a shorter table
  PackageListing l;
  Status s = listPackage(b.data(), b.size(), "Names.u", l);
  ASSERT_TRUE(s.ok()) << s.error;  // the tables are fine
  Model m;
  s = decodePackageObject(l.package, b.data(), quadObj->exportIndex, m);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error.find("Mesh Names.Quad: property name: name index 63 is outside the name table"), std::string::npos)
      << s.error;
  EXPECT_NE(s.error.find("at byte " + std::to_string(quadObj->offset)), std::string::npos) << s.error;
  // The rest of the package still decodes.
  const PackageEntry* skin = findEntry(l.textures, "Skin0");
  ASSERT_NE(skin, nullptr);
  Model t;
  EXPECT_TRUE(decodePackageObject(l.package, b.data(), skin->index, t).ok());
}

TEST(UpackageHostile, LyingSkipOffset) {
  UpkLayout lay;
  std::vector<uint8_t> b = writeUpackage(examplePackage(69, false, false), &lay);
  const UpkLayout::Object* quadObj = lay.find("Quad");
  ASSERT_NE(quadObj, nullptr);
  const uint32_t skip = uint32_t(b[quadObj->vertsSkipAt] | (b[quadObj->vertsSkipAt + 1] << 8) |
                                 (b[quadObj->vertsSkipAt + 2] << 16) | (uint32_t(b[quadObj->vertsSkipAt + 3]) << 24));
  patch(b, quadObj->vertsSkipAt, skip + 6);
  Model m;
  Status s = decodePackageObject(b.data(), b.size(), "Skip.u", quadObj->exportIndex, m);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error.find("Mesh Skip.Quad: Verts SkipPos"), std::string::npos) << s.error;
  EXPECT_NE(s.error.find("neither 4 nor 8 bytes each"), std::string::npos) << s.error;
  EXPECT_NE(s.error.find("at byte " + std::to_string(quadObj->vertsSkipAt + 4)), std::string::npos) << s.error;
}

TEST(UpackageHostile, ArrayCountPastTheObjectsEnd) {
  UpkLayout lay;
  std::vector<uint8_t> b = writeUpackage(examplePackage(69, false, false), &lay);
  const UpkLayout::Object* pal = lay.find("Skin0Pal");
  ASSERT_NE(pal, nullptr);
  // None, then the colour count 256 (2 bytes): make it 8191.
  b[pal->offset + 1] = 0x7F;
  b[pal->offset + 2] = 0x7F;
  Model m;
  Status s = decodePackageObject(b.data(), b.size(), "Count.u", pal->exportIndex, m);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error.find("Palette Count.Skin0Pal: Colors declares 8191 records of at least 4 bytes"), std::string::npos)
      << s.error;
  // The texture that uses it: shown in grey levels with a warning, not refused.
  Model t;
  s = decodeNamed(b, "Count.u", "Skin0", t);
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_TRUE(test::hasWarning(t, "Colors declares"));
  EXPECT_NE(infoOf(t, "placeholder"), "");
}

TEST(UpackageHostile, ObjectEndNotReachedExactly) {
  UpkLayout lay;
  std::vector<uint8_t> b = writeUpackage(examplePackage(69, false, false), &lay);
  const UpkLayout::Object* quadObj = lay.find("Quad");
  ASSERT_NE(quadObj, nullptr);
  // Textures count 2 -> 1: the last reference is read as the BoundingBoxes count, and the data
  // no longer ends at SerialOffset + SerialSize.
  ASSERT_EQ(b[quadObj->texturesCountAt], 2);
  b[quadObj->texturesCountAt] = 1;
  Model m;
  Status s = decodePackageObject(b.data(), b.size(), "End.u", quadObj->exportIndex, m);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error.find("Mesh End.Quad"), std::string::npos) << s.error;
}

TEST(UpackageHostile, ObjectDataPastTheEndOfTheFile) {
  UpkLayout lay;
  std::vector<uint8_t> b = writeUpackage(examplePackage(69, false, false), &lay);
  const UpkLayout::Object* quadObj = lay.find("Quad");
  ASSERT_NE(quadObj, nullptr);
  // SerialSize as a 2-byte compact index: its second byte 0x7F makes it 8128 bytes larger.
  ASSERT_GE(quadObj->size, 64u);
  ASSERT_LT(quadObj->size, 8192u);
  b[quadObj->serialSizeAt + 1] = 0x7F;
  PackageListing l;
  Status s = listPackage(b.data(), b.size(), "Past.u", l);
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(l.package.warnings.size(), 1u);
  EXPECT_NE(l.package.warnings[0].find("1 export declares data past the end"), std::string::npos);
  Model m;
  s = decodePackageObject(l.package, b.data(), quadObj->exportIndex, m);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error.find("Mesh Past.Quad: SerialOffset"), std::string::npos) << s.error;
  EXPECT_NE(s.error.find("runs past the end of the"), std::string::npos) << s.error;
}

TEST(UpackageHostile, NotAPackageAndBadExportIndex) {
  const std::vector<uint8_t> junk(100, 0x41);
  PackageListing l;
  Status s = listPackage(junk.data(), junk.size(), "junk.u", l);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error.find("not an Unreal package"), std::string::npos);
  const std::vector<uint8_t> b = writeUpackage(examplePackage(69, false, false));
  Model m;
  s = decodePackageObject(b.data(), b.size(), "Small.u", 999, m);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error.find("export 999"), std::string::npos);
  PackageListing small;
  ASSERT_TRUE(listPackage(b.data(), b.size(), "Small.u", small).ok());
  for (uint32_t i = 0; i < small.package.exports.size(); ++i) {
    if (small.package.exports[i].className != "Package") continue;
    s = decodePackageObject(small.package, b.data(), i, m);  // a group: no data, not a mesh
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error.find("Package Small.Skins: class Package is not a mesh, an animation or a texture"),
              std::string::npos)
        << s.error;
  }
}

// ---------------------------------------------------------------------------------------------
// Samples (spec §1, §14; samples README)

TEST(UpackageSamples, TablesAndClassCounts) {
  struct Expect {
    const char* file;
    uint32_t version, licensee;
    size_t names, imports, exports;
    std::map<std::string, double> classes;
  };
  const Expect expects[] = {
      {"C4.u", 69, 0, 437, 165, 317, {{"SkeletalMesh", 2}, {"Animation", 2}, {"Texture", 27}, {"Palette", 27}}},
      {"SiegeIV_0032beta9.u",
       69,
       0,
       4900,
       1492,
       7531,
       {{"Mesh", 15},
        {"LodMesh", 2},
        {"Texture", 117},
        {"Palette", 56},
        {"FireTexture", 9},
        {"IceTexture", 6},
        {"WaveTexture", 1},
        {"WetTexture", 1},
        {"ScriptedTexture", 5}}},
      {"JetpackTex.utx", 69, 0, 48, 5, 16, {{"Texture", 6}, {"Palette", 8}, {"FireTexture", 2}}},
      {"Endemia.u", 68, 0, 802, 134, 794, {{"LodMesh", 53}, {"Texture", 161}, {"Palette", 149}}},
      {"HPDemoAd.utx", 79, 0, 26, 3, 7, {{"Texture", 6}, {"Palette", 1}}},
      {"Beam.utx", 69, 227, 39, 6, 7, {{"Palette", 3}, {"FireTexture", 3}}},
  };
  for (const Expect& e : expects) {
    REQUIRE_SAMPLE(bytes, e.file);
    SCOPED_TRACE(e.file);
    PackageListing l;
    Status s = listPackage(bytes.data(), bytes.size(), e.file, l);
    ASSERT_TRUE(s.ok()) << s.error;
    EXPECT_EQ(l.package.version, e.version);
    EXPECT_EQ(l.package.licensee, e.licensee);
    EXPECT_EQ(l.package.names.size(), e.names);
    EXPECT_EQ(l.package.imports.size(), e.imports);
    EXPECT_EQ(l.package.exports.size(), e.exports);
    std::map<std::string, double> classes(l.classes.begin(), l.classes.end());
    size_t viewer = 0;
    for (const auto& c : e.classes) {
      EXPECT_EQ(classes[c.first], c.second) << c.first;
      viewer += size_t(c.second);
    }
    EXPECT_EQ(l.meshes.size() + l.textures.size() + l.animations.size(), viewer);
    EXPECT_TRUE(l.package.warnings.empty()) << l.package.warnings[0];
  }
}

TEST(UpackageSamples, EveryObjectDecodes) {
  size_t decoded = 0;
  for (const char* file : {"C4.u", "SiegeIV_0032beta9.u", "JetpackTex.utx", "Endemia.u", "HPDemoAd.utx", "Beam.utx"}) {
    REQUIRE_SAMPLE(bytes, file);
    PackageListing l;
    ASSERT_TRUE(listPackage(bytes.data(), bytes.size(), file, l).ok());
    std::vector<PackageEntry> all = l.meshes;
    all.insert(all.end(), l.textures.begin(), l.textures.end());
    all.insert(all.end(), l.animations.begin(), l.animations.end());
    for (const PackageEntry& e : all) {
      Model m;
      Status s = decodePackageObject(l.package, bytes.data(), e.index, m);
      ASSERT_TRUE(s.ok()) << s.error;
      EXPECT_EQ(infoOf(m, "object"), e.path);
      // Stored boxes equal the decoded vertices on every vertex mesh (§7).
      EXPECT_FALSE(test::hasWarning(m, "BoundingBoxes")) << e.path;
      ++decoded;
    }
  }
  EXPECT_EQ(decoded, 58u + 212u + 16u + 363u + 7u + 6u);
}

TEST(UpackageSamples, SiegeIVMeshFacts) {
  REQUIRE_SAMPLE(bytes, "SiegeIV_0032beta9.u");
  struct Fact {
    const char* name;
    const char* className;
    double frameVerts, frames, tris, slots, sequences;
    const char* rotOrigin;
    double size[3];  // 0 = not checked (a RotOrigin turns the axes)
  };
  const Fact facts[] = {
      {"XCSup4", "Mesh", 32, 1, 60, 1, 1, "0 0 0", {60.0, 60.0, 13.8}},
      {"XCSup3", "Mesh", 24, 1, 44, 1, 1, "0 0 0", {52.5, 48.0, 13.9}},
      {"XCSup1", "Mesh", 32, 1, 60, 1, 1, "0 0 0", {30.0, 30.0, 8.9}},
      {"XCSup2", "Mesh", 24, 1, 44, 1, 1, "0 0 0", {13.9, 60.0, 13.8}},
      {"sg_GLAmmo", "Mesh", 46, 1, 28, 1, 2, "0 0 151", {0, 0, 0}},
      {"BerserkM", "Mesh", 99, 1, 200, 1, 2, "0 0 16384", {0, 0, 0}},
      {"ConstructorPick", "Mesh", 85, 1, 116, 2, 1, "0 0 0", {86.7, 73.2, 39.6}},
      {"Constructor", "LodMesh", 363, 31, 277, 6, 7, "0 -15360 0", {0, 0, 0}},
      {"DashPadPanel", "Mesh", 58, 1, 62, 2, 1, "0 16384 0", {0, 0, 0}},
      {"DashPadBase", "Mesh", 66, 1, 120, 1, 1, "0 16384 0", {0, 0, 0}},
      {"ConstructorL", "LodMesh", 363, 31, 277, 6, 7, "0 -15360 0", {0, 0, 0}},
      {"sg_Grenade", "Mesh", 22, 1, 40, 2, 2, "0 0 0", {19.0, 6.5, 6.8}},
      {"sg_GLpickup", "Mesh", 90, 1, 134, 3, 2, "0 0 0", {61.4, 15.7, 30.2}},
      {"sg_GL1st", "Mesh", 208, 86, 319, 5, 8, "0 0 0", {5.4, 2.6, 3.6}},
      {"sgSphereMesh", "Mesh", 436, 30, 640, 3, 1, "0 0 0", {100.1, 100.1, 100.0}},
      {"SirenIcon", "Mesh", 48, 1, 80, 1, 1, "0 0 0", {19.2, 142.8, 153.6}},
      {"sg_GL3rd", "Mesh", 84, 11, 128, 2, 3, "0 0 0", {36.8, 9.4, 19.6}},
  };
  for (const Fact& f : facts) {
    SCOPED_TRACE(f.name);
    Model m;
    Status s = decodeNamed(bytes, "SiegeIV_0032beta9.u", f.name, m);
    ASSERT_TRUE(s.ok()) << s.error;
    EXPECT_EQ(infoOf(m, "className"), f.className);
    EXPECT_EQ(infoOf(m, "vertexBytes"), "4");
    EXPECT_EQ(countOf(m, "frameVerts"), f.frameVerts);
    EXPECT_EQ(countOf(m, "frames"), f.frames);
    EXPECT_EQ(countOf(m, "polygons"), f.tris);
    EXPECT_EQ(countOf(m, "textureSlots"), f.slots);
    EXPECT_EQ(double(m.vertexAnimation.sequences.size()), f.sequences);
    EXPECT_EQ(infoOf(m, "rotOrigin"), f.rotOrigin);
    if (f.size[0] > 0) {
      double size[3];
      unrealSize(m, size);
      for (int k = 0; k < 3; ++k) EXPECT_NEAR(size[k], f.size[k], 0.06) << k;
    }
  }
  Model gl;
  ASSERT_TRUE(decodeNamed(bytes, "SiegeIV_0032beta9.u", "sg_GL1st", gl).ok());
  EXPECT_EQ(gl.vertexAnimation.sequences[0].name, "All");
  EXPECT_EQ(gl.vertexAnimation.sequences[0].frameCount, 86u);
  EXPECT_EQ(gl.vertexAnimation.sequences[1].name, "DISPENSE");
  EXPECT_EQ(gl.vertexAnimation.sequences[1].frameCount, 24u);
  EXPECT_EQ(infoOf(gl, "scale"), "0.01 0.01 0.02");
  Model con;
  ASSERT_TRUE(decodeNamed(bytes, "SiegeIV_0032beta9.u", "Constructor", con).ok());
  EXPECT_EQ(countOf(con, "wedges"), 364);
  EXPECT_EQ(con.vertexAnimation.sequences[1].name, "Still");
  EXPECT_EQ(con.vertexAnimation.sequences[1].startFrame, 1u);
  bool botpack = false;
  for (const Material& mat : con.materials)
    for (const std::string& n : mat.textureNames) botpack |= n == "Botpack.Skins.tloc4";
  EXPECT_TRUE(botpack) << "Constructor's slot naming Botpack.Skins.tloc4";
}

TEST(UpackageSamples, EndemiaDeusExLodMeshes) {
  REQUIRE_SAMPLE(bytes, "Endemia.u");
  PackageListing l;
  ASSERT_TRUE(listPackage(bytes.data(), bytes.size(), "Endemia.u", l).ok());
  ASSERT_EQ(l.meshes.size(), 53u);
  double frameVerts = 0, tris = 0, wedges = 0;
  for (const PackageEntry& e : l.meshes) {
    Model m;
    ASSERT_TRUE(decodePackageObject(l.package, bytes.data(), e.index, m).ok());
    EXPECT_EQ(infoOf(m, "vertexBytes"), "8") << e.name;
    EXPECT_EQ(countOf(m, "frames"), 1) << e.name;
    EXPECT_EQ(m.vertexAnimation.sequences.size(), 2u) << e.name;
    frameVerts += countOf(m, "frameVerts");
    tris += countOf(m, "polygons");
    wedges += countOf(m, "wedges");
    if (e.name == "Barrel2") {
      double size[3];
      unrealSize(m, size);
      EXPECT_NEAR(size[0], 42.0, 0.06);
      EXPECT_NEAR(size[1], 42.0, 0.06);
      EXPECT_NEAR(size[2], 58.0, 0.06);
    }
  }
  EXPECT_EQ(frameVerts, 2147);
  EXPECT_EQ(tris, 3196);
  EXPECT_EQ(wedges, 3954);
  Model candle;
  ASSERT_TRUE(decodeNamed(bytes, "Endemia.u", "Candle1", candle).ok());
  bool flame = false;
  for (const Material& mat : candle.materials)
    for (const std::string& n : mat.textureNames) flame |= n == "Effects.Fire.OneFlame_J";
  EXPECT_TRUE(flame);
}

TEST(UpackageSamples, C4SkeletalMeshFacts) {
  REQUIRE_SAMPLE(bytes, "C4.u");
  for (const char* name : {"C4", "C4Pickup"}) {
    SCOPED_TRACE(name);
    Model m;
    Status s = decodeNamed(bytes, "C4.u", name, m);
    ASSERT_TRUE(s.ok()) << s.error;
    EXPECT_EQ(m.format, "psk");
    EXPECT_EQ(countOf(m, "points"), 444);
    EXPECT_EQ(countOf(m, "wedges"), 444);
    EXPECT_EQ(countOf(m, "faces"), 404);
    EXPECT_EQ(countOf(m, "materials"), 5);
    EXPECT_EQ(countOf(m, "textureSlots"), 6);
    EXPECT_EQ(countOf(m, "sequences"), 1);
    EXPECT_EQ(countOf(m, "influences"), 444);
    // C4 was imported with Pitch=64: its placement is a bone of its own above joint1.
    EXPECT_EQ(m.skeleton.names, std::string(name) == "C4" ? (std::vector<std::string>{"joint1", "MESH ORIGIN"})
                                                          : (std::vector<std::string>{"joint1"}));
    EXPECT_EQ(infoOf(m, "rotOrigin"), std::string(name) == "C4" ? "16384 0 0" : "0 0 0");
    EXPECT_EQ(infoOf(m, "defaultAnimation"), std::string(name) == "C4" ? "C4.C4Anim" : "C4.C4PickupAnim");
    // Its animation: one bone, no moves, no sequences (spec §9).
    Model anim;
    s = decodeNamed(bytes, "C4.u", std::string(name) == "C4" ? "C4Anim" : "C4PickupAnim", anim);
    ASSERT_TRUE(s.ok()) << s.error;
    EXPECT_EQ(anim.format, "psa");
    EXPECT_EQ(anim.skeleton.names, (std::vector<std::string>{"joint1"}));
    EXPECT_EQ(countOf(anim, "moves"), 0);
    EXPECT_TRUE(anim.clips.empty());
    if (std::string(name) != "C4") continue;  // §14 lists C4's slots
    std::vector<std::string> slots;
    for (const Material& mat : m.materials)
      if (!mat.textureNames.empty()) slots.push_back(mat.textureNames[0]);
    std::sort(slots.begin(), slots.end());
    slots.erase(std::unique(slots.begin(), slots.end()), slots.end());
    EXPECT_EQ(slots, (std::vector<std::string>{"C4.Skins.C4Skin", "C4.Timer.C4ScreenOn", "C4.digits.C4Timer_Digit0",
                                               "C4.digits.C4Timer_Digit1", "C4.digits.C4Timer_Digit5"}));
  }
  for (const char* name : {"C4", "C4Pickup"}) {
    Model m;
    ASSERT_TRUE(decodeNamed(bytes, "C4.u", name, m).ok());
    // Points box 39.9 x 63.0 x 20.4 (Unreal X, Y, Z; PSK axes put Y at -z); C4's Pitch=64 turns
    // X into Z (three's y) and Z into -X.
    const std::vector<float>& p = m.meshes[0].positions;
    float lo[3] = {1e9f, 1e9f, 1e9f}, hi[3] = {-1e9f, -1e9f, -1e9f};
    for (size_t i = 0; i < p.size(); i += 3)
      for (int k = 0; k < 3; ++k) lo[k] = std::min(lo[k], p[i + size_t(k)]), hi[k] = std::max(hi[k], p[i + size_t(k)]);
    const bool pitched = std::string(name) == "C4";
    EXPECT_NEAR(hi[0] - lo[0], pitched ? 20.4 : 39.9, 0.06);
    EXPECT_NEAR(hi[2] - lo[2], 63.0, 0.06);
    EXPECT_NEAR(hi[1] - lo[1], pitched ? 39.9 : 20.4, 0.06);
  }
}

TEST(UpackageSamples, TextureFacts) {
  struct Fact {
    const char* file;
    const char* name;
    const char* className;
    uint32_t width, height;
    double mips, compMips;
    const char* comp;  // second texture's format, or ""
    bool masked;
    const char* palette;
  };
  const Fact facts[] = {
      {"C4.u", "C4Skin", "Texture", 512, 512, 10, 8, "dxt5", true, "C4.Skins.Palette313"},
      {"SiegeIV_0032beta9.u", "HUD_sgMetal", "Texture", 128, 64, 1, 1, "dxt1", true, nullptr},
      {"HPDemoAd.utx", "FEDemoAdBack1Texture1", "Texture", 256, 256, 9, 0, "", false, "HPDemoAd.Palette2"},
      {"Beam.utx", "beam3", "FireTexture", 256, 256, 1, 0, "", false, nullptr},
  };
  for (const Fact& f : facts) {
    REQUIRE_SAMPLE(bytes, f.file);
    SCOPED_TRACE(f.name);
    Model m;
    Status s = decodeNamed(bytes, f.file, f.name, m);
    ASSERT_TRUE(s.ok()) << s.error;
    EXPECT_EQ(infoOf(m, "className"), f.className);
    EXPECT_EQ(countOf(m, "width"), f.width);
    EXPECT_EQ(countOf(m, "height"), f.height);
    EXPECT_EQ(countOf(m, "mips"), f.mips);
    EXPECT_EQ(countOf(m, "compMips"), f.compMips);
    EXPECT_EQ(infoOf(m, "textureFormat"), "0");
    EXPECT_EQ(infoOf(m, "masked") == "1", f.masked);
    if (f.palette) EXPECT_EQ(infoOf(m, "palette"), f.palette);
    ASSERT_GE(m.textures.size(), 1u);
    EXPECT_EQ(m.textures[0].format, "rgba8");
    if (*f.comp) {
      ASSERT_EQ(m.textures.size(), 2u);
      EXPECT_EQ(m.textures[1].format, f.comp);
      EXPECT_EQ(double(m.textures[1].mips.size()), f.compMips);
      EXPECT_EQ(m.textures[1].width, f.width);
    }
    if (std::string(f.className) == "FireTexture") {
      EXPECT_EQ(countOf(m, "sparks"), 407);
      EXPECT_NE(infoOf(m, "placeholder"), "");
    } else {
      EXPECT_EQ(m.textures[0].width, f.width);
      EXPECT_EQ(m.textures[0].mips[0].size(), size_t(f.width) * f.height * 4);
    }
  }
}

TEST(UpackageSamples, SgGL1stEqualsItsLooseSource) {
  REQUIRE_SAMPLE(bytes, "SiegeIV_0032beta9.u");
  std::vector<uint8_t> d, a;
  if (!readSample("sources/sg_GL1st_d.3d", d) || !readSample("sources/sg_GL1st_a.3d", a))
    GTEST_SKIP() << "loose sources not found";
  Model pkg, loose;
  ASSERT_TRUE(decodeNamed(bytes, "SiegeIV_0032beta9.u", "sg_GL1st", pkg).ok());
  // The package stores MESHMAP SCALE 0.01 0.01 0.02 and MESH ORIGIN -140 -75 20: the loose files
  // with the same settings.
  EXPECT_EQ(infoOf(pkg, "origin"), "-140 -75 20");
  const std::string uc = UcBuilder()
                             .meshImport("sg_GL1st", "sg_GL1st_a.3d", "sg_GL1st_d.3d")
                             .origin("sg_GL1st", -140, -75, 20)
                             .scale("sg_GL1st", 0.01, 0.01, 0.02)
                             .str();
  Status s = decodeUe1(d.data(), d.size(), "sg_GL1st_d.3d", a.data(), a.size(), "sg_GL1st_a.3d", uc, "sg.uc", loose);
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(countOf(pkg, "vertices"), countOf(loose, "vertices"));
  EXPECT_EQ(countOf(pkg, "polygons"), countOf(loose, "polygons"));
  EXPECT_EQ(pkg.vertexAnimation.frameCount, loose.vertexAnimation.frameCount);
  EXPECT_EQ(pkg.vertexAnimation.vertexCount, loose.vertexAnimation.vertexCount);
  EXPECT_EQ(pkg.materials.size(), loose.materials.size());
  // Same triangles (positions in three frames, UVs, winding), whatever the order the importer chose.
  const std::vector<uint32_t> frames = {0, 43, 85};
  const std::vector<Tri3> pt = trianglesOf(pkg, frames), lt = trianglesOf(loose, frames);
  ASSERT_EQ(pt.size(), lt.size());
  EXPECT_EQ(unmatched(pt, lt, 1e-4f, 1e-6f), 0u);
}

// The package's class source (its TextBuffer) that imports `mesh` with #exec MESH MODELIMPORT.
std::string scriptImporting(const std::vector<uint8_t>& bytes, const std::string& file, const std::string& mesh) {
  PackageListing l;
  if (!listPackage(bytes.data(), bytes.size(), file, l).ok()) return "";
  for (const PackageEntry& e : l.texts) {
    Model m;
    if (!decodePackageObject(l.package, bytes.data(), e.index, m).ok()) continue;
    const std::string text = infoOf(m, "text");
    if (text.find("MODELIMPORT MESH=" + mesh + " ") != std::string::npos) return text;
  }
  return "";
}

TEST(UpackageSamples, TextBuffersAreTheClassSources) {
  REQUIRE_SAMPLE(bytes, "C4.u");
  PackageListing l;
  ASSERT_TRUE(listPackage(bytes.data(), bytes.size(), "C4.u", l).ok());
  ASSERT_FALSE(l.texts.empty());
  size_t withExec = 0;
  for (const PackageEntry& e : l.texts) {
    Model m;
    Status s = decodePackageObject(l.package, bytes.data(), e.index, m);
    ASSERT_TRUE(s.ok()) << e.path << ": " << s.error;
    EXPECT_EQ(m.format, "upackage-text");
    EXPECT_EQ(countOf(m, "bytes"), double(infoOf(m, "text").size()));
    withExec += infoOf(m, "text").find("#exec") != std::string::npos;
  }
  EXPECT_GT(withExec, 0u);
  const std::string script = scriptImporting(bytes, "C4.u", "C4");
  EXPECT_NE(script.find("#exec MESH ORIGIN MESH=C4 X=0 Y=0 Z=0 Pitch=64"), std::string::npos);
  EXPECT_NE(script.find("#exec MESHMAP SETTEXTURE MESHMAP=C4 NUM=4 TEXTURE=C4Timer_Digit5"), std::string::npos);
}

TEST(UpackageSamples, C4EqualsItsPsk) {
  REQUIRE_SAMPLE(bytes, "C4.u");
  std::vector<uint8_t> psk;
  if (!readSample("sources/C4.psk", psk)) GTEST_SKIP() << "C4.psk not found";
  // The .psk placed by the script the package was built from (its TextBuffer) is the package's mesh.
  const std::string script = scriptImporting(bytes, "C4.u", "C4");
  ASSERT_FALSE(script.empty());
  Model pkg, loose;
  ASSERT_TRUE(decodeNamed(bytes, "C4.u", "C4", pkg).ok());
  Status s = decodeScriptedPsk(psk.data(), psk.size(), "C4.psk", script, "C4.uc", loose);
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(loose.skeleton.names, pkg.skeleton.names);
  EXPECT_EQ(loose.skeleton.restTranslation, pkg.skeleton.restTranslation);
  EXPECT_EQ(loose.skeleton.restRotation, pkg.skeleton.restRotation);
  // Slots: the script's names are the package's objects' short names.
  ASSERT_EQ(loose.materials.size(), pkg.materials.size());
  for (size_t i = 0; i < pkg.materials.size(); ++i) {
    const std::string& path = pkg.materials[i].textureNames[0];
    EXPECT_EQ(loose.materials[i].textureNames.back(), path.substr(path.find_last_of('.') + 1)) << i;
  }
  EXPECT_EQ(countOf(pkg, "points"), countOf(loose, "points"));
  EXPECT_EQ(countOf(pkg, "faces"), countOf(loose, "faces"));
  EXPECT_EQ(countOf(pkg, "wedges"), countOf(loose, "wedges"));
  EXPECT_EQ(pkg.materials.size(), loose.materials.size());
  // Same faces: positions exact, byte UVs = floor(psk UV × 256) / 256 (§9).
  // The importer kept clamp(floor(uv × 256), 0, 255) of the .psk UVs: quantise the .psk's the same
  // way (V is stored flipped in the model: 1 − v).
  std::vector<Tri3> pt = trianglesOf(pkg, {0}), lt = trianglesOf(loose, {0});
  const auto byte = [](float x) { return std::min(255.0f, std::max(0.0f, std::floor(x * 256.0f))) / 256.0f; };
  for (Tri3& t : lt)
    for (Corner& c : t) c.u = byte(c.u), c.v = 1.0f - byte(1.0f - c.v);
  ASSERT_EQ(pt.size(), lt.size());
  EXPECT_EQ(unmatched(pt, lt, 1e-5f, 1e-6f), 0u);
}
