// A .psk imported by a .uc script (#exec MESH MODELIMPORT, ANIM IMPORT, MESH DEFAULTANIM, ANIM
// DIGEST, OBJ LOAD): the parser's new directives, hostile lines, and the placement and texture
// slots decodeScriptedPsk gives.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "formats/psk/psk.h"
#include "formats/ue1/ue1.h"
#include "test_support.h"
#include "writers/psk_writer.h"

using namespace rs;
using rs::test::hasWarning;
using rs::test::infoOf;

namespace {

// A tetrahedron of 4 points around (10, 20, 30) in Unreal units, one bone at (10, 20, 30), two
// materials.
psk::Mesh tetra() {
  psk::Mesh m;
  m.points = {10, 20, 30, 14, 20, 30, 10, 26, 30, 10, 20, 38};
  for (uint32_t i = 0; i < 4; ++i) m.wedges.push_back({i, 0.25f * float(i), 0.5f, uint8_t(i == 3)});
  m.faces = {{{0, 1, 2}, 0}, {{0, 3, 1}, 1}, {{1, 3, 2}, 1}, {{2, 3, 0}, 0}};
  m.materials = {{"SkinMat", 0, 0}, {"Other", 0, 1}};
  psk::Bone b;
  b.name = "root";
  b.position[0] = 10, b.position[1] = 20, b.position[2] = 30;
  m.bones.push_back(b);
  for (int i = 0; i < 4; ++i) m.weights.push_back({1.0f, i, 0});
  return m;
}

Model decodePlain() {
  std::vector<uint8_t> bytes = psk::writePsk(tetra());
  Model m;
  Status s = decodePsk(bytes.data(), bytes.size(), "Thing.psk", m);
  EXPECT_TRUE(s.ok()) << s.error;
  return m;
}

Model decodeScripted(const std::string& uc, const std::string& file = "Thing.psk") {
  std::vector<uint8_t> bytes = psk::writePsk(tetra());
  Model m;
  Status s = decodeScriptedPsk(bytes.data(), bytes.size(), file, uc, "Thing.uc", m);
  EXPECT_TRUE(s.ok()) << s.error;
  return m;
}

// Rotates v by the unit quaternion q (x, y, z, w).
void rotate(const float q[4], const double v[3], double out[3]) {
  const double x = q[0], y = q[1], z = q[2], w = q[3];
  const double t[3] = {2 * (y * v[2] - z * v[1]), 2 * (z * v[0] - x * v[2]), 2 * (x * v[1] - y * v[0])};
  out[0] = v[0] + w * t[0] + (y * t[2] - z * t[1]);
  out[1] = v[1] + w * t[1] + (z * t[0] - x * t[2]);
  out[2] = v[2] + w * t[2] + (x * t[1] - y * t[0]);
}

const char* kScript =
    "class Thing extends Actor;\n"
    "#exec MESH MODELIMPORT MESH=Thing MODELFILE=Models\\Thing.psk LODSTYLE=12\n"
    "#exec MESH ORIGIN MESH=Thing X=10 Y=20 Z=30 YAW=64 PITCH=16 ROLL=-32\n"
    "#exec MESHMAP SCALE MESHMAP=Thing X=2 Y=0.5 Z=3\n"
    "#exec ANIM IMPORT ANIM=ThingAnims ANIMFILE=Models\\Thing.psa COMPRESS=1 IMPORTSEQS=1\n"
    "#exec MESH DEFAULTANIM MESH=Thing ANIM=ThingAnims\n"
    "#exec ANIM DIGEST ANIM=ThingAnims VERBOSE\n"
    "#exec OBJ LOAD FILE=..\\Textures\\JetpackTex.utx PACKAGE=Thing.Skins\n"
    "#exec TEXTURE IMPORT NAME=ThingSkin FILE=Textures\\thing_skin.pcx GROUP=Skins FLAGS=2\n"
    "#exec MESHMAP SETTEXTURE MESHMAP=Thing NUM=0 TEXTURE=ThingSkin\n"
    "#exec MESHMAP SETTEXTURE MESHMAP=Thing NUM=1 TEXTURE=JetpackTex.Base.Metal\n";

}  // namespace

TEST(UcSkeletal, ParsesTheImportDirectives) {
  UcScript s = parseUc(kScript);
  EXPECT_TRUE(s.warnings.empty()) << s.warnings[0];
  const int mesh = findUcModel(s, "Thing.psk");
  ASSERT_GE(mesh, 0);
  EXPECT_EQ(findUcModel(s, "THING.PSK"), mesh);
  EXPECT_EQ(findUcModel(s, "Other.psk"), -1);
  EXPECT_EQ(findUcMesh(s, "Thing_d.3d", "Thing_a.3d"), -1);  // a .psk import is no vertex mesh
  const UcMesh& m = s.meshes[size_t(mesh)];
  EXPECT_EQ(m.modelFile, "Models\\Thing.psk");
  EXPECT_EQ(m.defaultAnim, "ThingAnims");
  EXPECT_DOUBLE_EQ(m.origin[0], 10);
  EXPECT_DOUBLE_EQ(m.rotation[0], 16);  // PITCH
  EXPECT_DOUBLE_EQ(m.rotation[1], 64);  // YAW
  EXPECT_DOUBLE_EQ(m.rotation[2], -32);
  EXPECT_TRUE(m.hasScale);
  EXPECT_DOUBLE_EQ(m.scale[1], 0.5);
  ASSERT_EQ(s.animImports.size(), 1u);
  EXPECT_EQ(s.animImports[0].name, "ThingAnims");
  EXPECT_TRUE(s.animImports[0].digested);
  EXPECT_EQ(findUcAnim(s, "thing.psa"), 0);
  ASSERT_EQ(s.objLoads.size(), 1u);
  EXPECT_EQ(s.objLoads[0].package, "JetpackTex");
  EXPECT_EQ(s.objLoads[0].into, "Thing.Skins");
}

TEST(UcSkeletal, HostileLinesWarnNamingTheLine) {
  const std::string uc =
      "#exec MESH MODELIMPORT MESH=Thing\n"                         // 1: no MODELFILE
      "#exec MESH MODELIMPORT MESH=Thing MODELFILE=a.psk\n"         // 2
      "#exec MESH MODELIMPORT MESH=Thing MODELFILE=Thing.psk\n"     // 3: again
      "#exec MESH MODELIMPORT MODELFILE=Thing.psk\n"                // 4: no MESH
      "#exec ANIM IMPORT ANIMFILE=Thing.psa\n"                      // 5: no ANIM
      "#exec ANIM IMPORT ANIM=A\n"                                  // 6: no ANIMFILE
      "#exec ANIM DIGEST ANIM=Nowhere\n"                            // 7: unknown
      "#exec ANIM IMPORT ANIM=A ANIMFILE=one.psa\n"                 // 8
      "#exec ANIM IMPORT ANIM=a ANIMFILE=two.psa\n"                 // 9: again
      "#exec OBJ LOAD PACKAGE=X\n"                                  // 10: no FILE
      "#exec MESH DEFAULTANIM MESH=Thing\n"                         // 11: no ANIM
      "#exec MESH ORIGIN MESH=Thing X=1e300 Y=nan Z=1 YAW=1e400\n"  // 12
      "#exec MESHMAP SCALE MESHMAP=Thing X=0 Y=1e308 Z=1\n"         // 13
      "#exec MESHMAP SETTEXTURE MESHMAP=Thing NUM=7 TEXTURE=Far\n"  // 14: past the materials
      "#exec OBJ LOAD FILE=\"..\\Textures\\\\\"\n"                  // 15: no file name
      "#exec ANIM\n#exec OBJ\n";
  UcScript s = parseUc(uc);
  auto warned = [&](const std::string& needle) {
    for (const std::string& w : s.warnings)
      if (w.find(needle) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(warned("line 1: MESH MODELIMPORT without MODELFILE="));
  EXPECT_TRUE(warned("line 3: MESH MODELIMPORT MESH=Thing again"));
  EXPECT_TRUE(warned("line 4: MESH MODELIMPORT without MESH="));
  EXPECT_TRUE(warned("line 5: ANIM IMPORT without ANIM="));
  EXPECT_TRUE(warned("line 6: ANIM IMPORT without ANIMFILE="));
  EXPECT_TRUE(warned("line 7: ANIM DIGEST names ANIM=Nowhere"));
  EXPECT_TRUE(warned("line 9: ANIM IMPORT ANIM=a again"));
  EXPECT_TRUE(warned("line 10: OBJ LOAD without FILE="));
  EXPECT_TRUE(warned("line 11: MESH DEFAULTANIM without ANIM="));
  EXPECT_TRUE(warned("line 12: Y=nan is not a finite number"));
  EXPECT_TRUE(warned("line 12: YAW=1e400 is not a finite number"));
  EXPECT_TRUE(warned("line 15: OBJ LOAD FILE="));
  // The later import wins; the one ANIM A keeps its place.
  ASSERT_GE(findUcModel(s, "Thing.psk"), 0);
  EXPECT_EQ(findUcModel(s, "a.psk"), -1);
  ASSERT_EQ(s.animImports.size(), 1u);
  EXPECT_EQ(s.animImports[0].file, "two.psa");
  EXPECT_TRUE(s.objLoads.empty());

  // Decoded: out-of-range numbers are warned about and not applied; every position stays finite.
  Model m = decodeScripted(uc);
  EXPECT_TRUE(hasWarning(m, "Thing.uc: line 1: MESH MODELIMPORT without MODELFILE=")) << test::allWarnings(m);
  EXPECT_TRUE(hasWarning(m, "Thing.uc: MESH ORIGIN X=1e+300 is out of range; using 0")) << test::allWarnings(m);
  EXPECT_TRUE(hasWarning(m, "Thing.uc: MESHMAP SCALE X=0 is out of range; using 1")) << test::allWarnings(m);
  EXPECT_TRUE(hasWarning(m, "Thing.uc: MESHMAP SCALE Y=1e+308 is out of range; using 1")) << test::allWarnings(m);
  EXPECT_TRUE(hasWarning(m, "MESHMAP SETTEXTURE NUM=7 names a slot past the mesh's 2 materials"));
  for (float v : m.meshes[0].positions) EXPECT_TRUE(std::isfinite(v));
  // Only Z=1 of the origin is left: the mesh moves down one unit along Unreal Z (three's y).
  Model plain = decodePlain();
  for (size_t i = 0; i < plain.meshes[0].positions.size(); i += 3)
    EXPECT_NEAR(m.meshes[0].positions[i + 1], plain.meshes[0].positions[i + 1] - 1, 1e-5);
}

TEST(UcSkeletal, ScriptWithoutAnImportOfTheFileLeavesItUnplaced) {
  Model m = decodeScripted("#exec MESH MODELIMPORT MESH=Other MODELFILE=Other.psk\n");
  EXPECT_TRUE(hasWarning(m, "Thing.uc: no MESH MODELIMPORT names Thing.psk; not placed"));
  Model plain = decodePlain();
  EXPECT_EQ(m.meshes[0].positions, plain.meshes[0].positions);
  EXPECT_EQ(m.skeleton.names, plain.skeleton.names);
  EXPECT_EQ(infoOf(m, "script"), "");
}

TEST(UcSkeletal, YawOfAQuarterTurnAfterOriginAndScale) {
  // (14, 20, 30) − Origin (10, 20, 30) = (4, 0, 0); ⊙ Scale 2 = (8, 0, 0); YAW=64 turns X into Y:
  // (0, 8, 0) in Unreal space, (0, 0, −8) in three's.
  Model m = decodeScripted(
      "#exec MESH MODELIMPORT MESH=Thing MODELFILE=Thing.psk\n"
      "#exec MESH ORIGIN MESH=Thing X=10 Y=20 Z=30 YAW=64\n"
      "#exec MESHMAP SCALE MESHMAP=Thing X=2 Y=2 Z=2\n");
  const std::vector<float>& p = m.meshes[0].positions;
  ASSERT_EQ(p.size(), 12u);  // wedge i is point i
  EXPECT_NEAR(p[3], 0, 1e-5);
  EXPECT_NEAR(p[4], 0, 1e-5);
  EXPECT_NEAR(p[5], -8, 1e-5);
  // Point 0 is the origin: at three's origin.
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(p[size_t(k)], 0, 1e-5);
  // (10, 20, 38): (0, 0, 16) after origin and scale; yaw keeps Z: three (0, 16, 0).
  EXPECT_NEAR(p[10], 16, 1e-5);
  EXPECT_EQ(infoOf(m, "origin"), "10 20 30");
  EXPECT_EQ(infoOf(m, "rotation"), "0 64 0");
  EXPECT_EQ(infoOf(m, "scale"), "2 2 2");
}

TEST(UcSkeletal, PlacementBoneCarriesWhatThePositionsGot) {
  // Any rotation and an uneven scale: the MESH ORIGIN bone's T · R · S applied to the unplaced
  // positions gives the placed ones, so skinning under it shows the placed mesh.
  Model plain = decodePlain();
  Model m = decodeScripted(kScript);
  ASSERT_EQ(m.skeleton.names.size(), 2u);
  EXPECT_EQ(m.skeleton.names[1], "MESH ORIGIN");
  EXPECT_EQ(m.skeleton.parents[0], 1);
  EXPECT_EQ(m.skeleton.parents[1], -1);
  EXPECT_EQ(m.skeleton.helper, 1);
  ASSERT_EQ(m.skeleton.restScale.size(), 6u);
  EXPECT_EQ(std::vector<float>(m.skeleton.restScale.begin(), m.skeleton.restScale.begin() + 3),
            (std::vector<float>{1, 1, 1}));
  // Unreal (2, 0.5, 3) along three's (x, y = Unreal z, z = Unreal y).
  EXPECT_FLOAT_EQ(m.skeleton.restScale[3], 2);
  EXPECT_FLOAT_EQ(m.skeleton.restScale[4], 3);
  EXPECT_FLOAT_EQ(m.skeleton.restScale[5], 0.5);
  const float* q = &m.skeleton.restRotation[4];
  const float* t = &m.skeleton.restTranslation[3];
  const float* s = &m.skeleton.restScale[3];
  const std::vector<float>& before = plain.meshes[0].positions;
  const std::vector<float>& after = m.meshes[0].positions;
  ASSERT_EQ(before.size(), after.size());
  for (size_t i = 0; i < before.size(); i += 3) {
    const double v[3] = {before[i] * s[0], before[i + 1] * s[1], before[i + 2] * s[2]};
    double r[3];
    rotate(q, v, r);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(r[k] + t[k], after[i + size_t(k)], 1e-4) << i / 3 << " " << k;
  }
  // The origin point (10, 20, 30) lands at three's origin whatever the rotation.
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(after[size_t(k)], 0, 1e-4);
  // Normals stay unit length.
  for (size_t i = 0; i < m.meshes[0].normals.size(); i += 3) {
    const float* n = &m.meshes[0].normals[i];
    EXPECT_NEAR(std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]), 1, 1e-5);
  }
}

TEST(UcSkeletal, SlotsNameLooseImportsAndLoadedPackages) {
  Model m = decodeScripted(kScript);
  ASSERT_EQ(m.materials.size(), 2u);
  // A loose TEXTURE IMPORT: its file's stem, then its name; FLAGS=2 makes the slot masked.
  EXPECT_EQ(m.materials[0].textureNames, (std::vector<std::string>{"thing_skin", "ThingSkin"}));
  EXPECT_EQ(m.materials[0].blend, Blend::Masked);
  // Package.Group.Name of the loaded package: the path, then the package's object by name.
  EXPECT_EQ(m.materials[1].textureNames,
            (std::vector<std::string>{"JetpackTex.Base.Metal", "JetpackTex.Metal", "Metal"}));
  EXPECT_EQ(infoOf(m, "script"), "Thing.uc");
  EXPECT_EQ(infoOf(m, "mesh"), "Thing");
  EXPECT_EQ(infoOf(m, "defaultAnim"), "ThingAnims");
  EXPECT_EQ(infoOf(m, "objLoad"), "JetpackTex.utx");

  // A bare name: each loaded package may hold it; PACKAGE= names the package it was loaded into.
  m = decodeScripted(
      "#exec MESH MODELIMPORT MESH=Thing MODELFILE=Thing.psk\n"
      "#exec OBJ LOAD FILE=..\\Textures\\JetpackTex.utx PACKAGE=Thing.Skins\n"
      "#exec OBJ LOAD FILE=Other.utx\n"
      "#exec MESHMAP SETTEXTURE MESHMAP=Thing NUM=0 TEXTURE=Metal\n"
      "#exec MESHMAP SETTEXTURE MESHMAP=Thing NUM=1 TEXTURE=Thing.Skins.Glass\n"
      "#exec MESHMAP SETTEXTURE MESHMAP=Thing NUM=1 TEXTURE=Thing.Skins.Glass2\n");  // the later wins
  EXPECT_EQ(m.materials[0].textureNames, (std::vector<std::string>{"JetpackTex.Metal", "Other.Metal", "Metal"}));
  EXPECT_EQ(m.materials[1].textureNames,
            (std::vector<std::string>{"Thing.Skins.Glass2", "JetpackTex.Glass2", "Glass2"}));
  EXPECT_EQ(infoOf(m, "objLoad"), "JetpackTex.utx; Other.utx");
}
