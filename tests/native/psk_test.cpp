// PSK / PSKX decoder: writer round trips for every chunk and option, the real samples against
// shared/samples/README.md, bind-pose sanity and hostile input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "formats/psk/psk.h"
#include "io/bytes.h"
#include "writers/psk_writer.h"
#include "writers/writer_bytes.h"

#include "test_support.h"

using namespace rs;
using rs::test::allWarnings;
using rs::test::countOf;
using rs::test::hasWarning;
using rs::test::infoOf;

namespace {

Status decode(const std::vector<uint8_t>& bytes, Model& m, const std::string& name = "t.psk") {
  return decodePsk(bytes.data(), bytes.size(), name, m);
}

// A quad (2 faces) on two materials and a 2-bone chain, in the file frame.
psk::Mesh quadMesh() {
  psk::Mesh m;
  m.points = {0, 0, 0, 10, 0, 0, 10, 20, 0, 0, 20, 30};
  for (uint32_t i = 0; i < 4; ++i) m.wedges.push_back({i, 0.25f * float(i), 0.1f * float(i), 0});
  m.wedges.push_back({2, 0.9f, 0.8f, 1});  // a second wedge on point 2 (UV seam)
  psk::Face f1;
  f1.wedge[0] = 2;
  f1.wedge[1] = 3;
  f1.wedge[2] = 0;
  f1.material = 1;
  psk::Face f0;
  f0.wedge[0] = 0;
  f0.wedge[1] = 1;
  f0.wedge[2] = 4;
  f0.material = 0;
  m.faces = {f1, f0};  // material 1 first: the decoder must sort by material
  m.materials = {{"Skin", 0}, {"Glass", 2 | 0x10}};
  psk::Bone root;
  root.name = "Root";
  root.parent = 0;
  root.rotation[0] = 0;
  root.rotation[1] = 0;
  root.rotation[2] = 0.70710678f;
  root.rotation[3] = 0.70710678f;
  root.position[0] = 1;
  root.position[1] = 2;
  root.position[2] = 3;
  psk::Bone arm;
  arm.name = "Arm";
  arm.parent = 0;
  arm.rotation[0] = 0.5f;
  arm.rotation[1] = 0.5f;
  arm.rotation[2] = 0.5f;
  arm.rotation[3] = 0.5f;
  arm.position[0] = 4;
  arm.position[1] = 5;
  arm.position[2] = 6;
  m.bones = {root, arm};
  m.weights = {{1, 0, 0}, {1, 1, 0}, {0.25f, 2, 0}, {0.75f, 2, 1}, {1, 3, 1}};
  return m;
}

}  // namespace

TEST(PskRoundTrip, GeometryAxesWindingUvAndGroups) {
  psk::Mesh src = quadMesh();
  Model m;
  Status s = decode(psk::writePsk(src), m);
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(m.format, "psk");
  ASSERT_EQ(m.meshes.size(), 1u);
  const Mesh& mesh = m.meshes[0];
  ASSERT_EQ(mesh.positions.size(), 5u * 3);
  // point 3 = (0, 20, 30) -> (0, 30, -20)
  EXPECT_FLOAT_EQ(mesh.positions[3 * 3 + 0], 0);
  EXPECT_FLOAT_EQ(mesh.positions[3 * 3 + 1], 30);
  EXPECT_FLOAT_EQ(mesh.positions[3 * 3 + 2], -20);
  // wedge 4 sits on point 2 = (10, 20, 0) -> (10, 0, -20)
  EXPECT_FLOAT_EQ(mesh.positions[4 * 3 + 0], 10);
  EXPECT_FLOAT_EQ(mesh.positions[4 * 3 + 1], 0);
  EXPECT_FLOAT_EQ(mesh.positions[4 * 3 + 2], -20);
  // UV (u, 1 - v)
  ASSERT_EQ(mesh.uvs.size(), 1u);
  EXPECT_FLOAT_EQ(mesh.uvs[0][4 * 2], 0.9f);
  EXPECT_FLOAT_EQ(mesh.uvs[0][4 * 2 + 1], 1.0f - 0.8f);
  EXPECT_FLOAT_EQ(mesh.uvs[0][1 * 2 + 1], 1.0f - 0.1f);
  // Sorted by material, winding reversed: material 0's face (0,1,4) -> (0,4,1) first.
  ASSERT_EQ(mesh.indices, (std::vector<uint32_t>{0, 4, 1, 2, 0, 3}));
  ASSERT_EQ(mesh.groups.size(), 2u);
  EXPECT_EQ(mesh.groups[0].start, 0u);
  EXPECT_EQ(mesh.groups[0].count, 3u);
  EXPECT_EQ(mesh.groups[0].material, 0u);
  EXPECT_EQ(mesh.groups[1].start, 3u);
  EXPECT_EQ(mesh.groups[1].material, 1u);
  // Materials
  ASSERT_EQ(m.materials.size(), 2u);
  EXPECT_EQ(m.materials[1].name, "Glass");
  EXPECT_EQ(m.materials[1].textureNames, (std::vector<std::string>{"Glass"}));
  EXPECT_EQ(m.materials[1].blend, Blend::Translucent);
  EXPECT_TRUE(m.materials[1].unlit);
  EXPECT_EQ(m.materials[0].blend, Blend::Opaque);
  // Counts
  EXPECT_EQ(countOf(m, "points"), 4);
  EXPECT_EQ(countOf(m, "wedges"), 5);
  EXPECT_EQ(countOf(m, "faces"), 2);
  EXPECT_EQ(countOf(m, "materials"), 2);
  EXPECT_EQ(countOf(m, "bones"), 2);
  EXPECT_EQ(countOf(m, "influences"), 5);
  EXPECT_EQ(countOf(m, "vertices"), 5);
  EXPECT_EQ(countOf(m, "triangles"), 2);
  // Normals: file face (0,1,4) is counter-clockwise seen from file +Z, so (stored clockwise from
  // outside) its outside is file -Z = three -Y.
  ASSERT_EQ(mesh.normals.size(), 15u);
  EXPECT_NEAR(mesh.normals[1 * 3 + 1], -1.0f, 1e-5f);  // wedge 1 only in the flat z=0 face
}

TEST(PskRoundTrip, SkeletonQuaternionRuleAndSkin) {
  Model m;
  Status s = decode(psk::writePsk(quadMesh()), m);
  ASSERT_TRUE(s.ok()) << s.error;
  ASSERT_TRUE(m.hasSkeleton);
  EXPECT_EQ(m.bindBy, "name");
  const Skeleton& sk = m.skeleton;
  EXPECT_FALSE(sk.flat);
  EXPECT_EQ(sk.helper, -1);
  EXPECT_EQ(sk.names, (std::vector<std::string>{"Root", "Arm"}));
  EXPECT_EQ(sk.parents, (std::vector<int32_t>{-1, 0}));
  // Root as stored (0,0,.707,.707) -> (x, z, -y, w) = (0, .707, 0, .707)
  EXPECT_NEAR(sk.restRotation[0], 0, 1e-6);
  EXPECT_NEAR(sk.restRotation[1], 0.70710678f, 1e-6);
  EXPECT_NEAR(sk.restRotation[2], 0, 1e-6);
  EXPECT_NEAR(sk.restRotation[3], 0.70710678f, 1e-6);
  // Arm conjugated (-.5,-.5,-.5,.5) -> (-.5, -.5, .5, .5)
  EXPECT_NEAR(sk.restRotation[4], -0.5f, 1e-6);
  EXPECT_NEAR(sk.restRotation[5], -0.5f, 1e-6);
  EXPECT_NEAR(sk.restRotation[6], 0.5f, 1e-6);
  EXPECT_NEAR(sk.restRotation[7], 0.5f, 1e-6);
  // Translation (4,5,6) -> (4,6,-5)
  EXPECT_FLOAT_EQ(sk.restTranslation[3], 4);
  EXPECT_FLOAT_EQ(sk.restTranslation[4], 6);
  EXPECT_FLOAT_EQ(sk.restTranslation[5], -5);
  // Skin gathered from points to wedges: wedge 4 is point 2 (0.25 bone 0, 0.75 bone 1).
  const Mesh& mesh = m.meshes[0];
  ASSERT_EQ(mesh.skinIndex.size(), 20u);
  float w0 = 0, w1 = 0;
  for (int k = 0; k < 4; ++k) {
    if (mesh.skinIndex[16 + k] == 0) w0 += mesh.skinWeight[16 + k];
    if (mesh.skinIndex[16 + k] == 1) w1 += mesh.skinWeight[16 + k];
  }
  EXPECT_NEAR(w0, 0.25f, 1e-6);
  EXPECT_NEAR(w1, 0.75f, 1e-6);
  EXPECT_EQ(mesh.skinIndex[12], 1);
  EXPECT_FLOAT_EQ(mesh.skinWeight[12], 1.0f);
}

TEST(PskRoundTrip, NonUnitQuaternionsAreNormalised) {
  psk::Mesh src = quadMesh();
  for (float& q : src.bones[1].rotation) q *= 3.0f;
  Model m;
  ASSERT_TRUE(decode(psk::writePsk(src), m).ok());
  const float* q = &m.skeleton.restRotation[4];
  EXPECT_NEAR(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1.0f, 1e-5f);
}

TEST(PskRoundTrip, PointIndexMaskedOnlyUpTo65536Points) {
  psk::Mesh src = quadMesh();
  psk::MeshOptions o;
  o.pointIndexJunk = 0xBEEF;
  Model m;
  Status s = decode(psk::writePsk(src, o), m);
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_FLOAT_EQ(m.meshes[0].positions[3 * 3 + 1], 30);  // wedge 3 -> point 3 after masking
  EXPECT_NE(infoOf(m, "wedgeIndexMasked"), "");
  EXPECT_TRUE(m.warnings.empty()) << allWarnings(m);

  // > 65536 points: the high bits are a real index.
  psk::Mesh big;
  const uint32_t P = 65536 + 10;
  big.points.resize(size_t(P) * 3);
  for (uint32_t i = 0; i < P; ++i) big.points[i * 3] = float(i);
  big.wedges = {{0, 0, 0, 0}, {65536 + 7, 0, 0, 0}, {65536 + 9, 0, 0, 0}};
  psk::Face f;
  f.wedge[0] = 0;
  f.wedge[1] = 1;
  f.wedge[2] = 2;
  big.faces = {f};
  big.materials = {{"M", 0}};
  Model mb;
  s = decode(psk::writePsk(big), mb);
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_FLOAT_EQ(mb.meshes[0].positions[1 * 3], float(65536 + 7));
  EXPECT_FLOAT_EQ(mb.meshes[0].positions[2 * 3], float(65536 + 9));
  EXPECT_FALSE(mb.hasSkeleton);
  EXPECT_TRUE(mb.meshes[0].skinIndex.empty());
}

TEST(PskRoundTrip, Face3200PackedAndManyWedges) {
  psk::Mesh src;
  const uint32_t W = 70000;
  src.points = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  for (uint32_t i = 0; i < W; ++i) src.wedges.push_back({i % 3, float(i), 0, 0});
  psk::Face f;
  f.wedge[0] = 69999;
  f.wedge[1] = 1;
  f.wedge[2] = 65537;
  psk::Face g;
  g.wedge[0] = 0;
  g.wedge[1] = 1;
  g.wedge[2] = 2;
  g.material = 0;
  src.faces = {f, g};
  src.materials = {{"M", 0}};
  psk::MeshOptions o;
  o.face32 = true;
  Model m;
  Status s = decode(psk::writePsk(src, o), m);
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(infoOf(m, "faceChunk"), "FACE3200");
  EXPECT_EQ(m.meshes[0].indices, (std::vector<uint32_t>{69999, 65537, 1, 0, 2, 1}));
}

TEST(PskRoundTrip, MaterialFlags) {
  psk::Mesh src = quadMesh();
  src.materials = {{"two", 1}, {"masked", 3 | 0x20}, {"mod", 4 | 0x40}, {"weapon", 8}};
  Model m;
  ASSERT_TRUE(decode(psk::writePsk(src), m).ok());
  ASSERT_EQ(m.materials.size(), 4u);
  EXPECT_TRUE(m.materials[0].twoSided);
  EXPECT_EQ(m.materials[1].blend, Blend::Masked);
  EXPECT_TRUE(m.materials[1].flat);
  EXPECT_EQ(m.materials[2].blend, Blend::Modulated);
  EXPECT_TRUE(m.materials[2].environment);
  EXPECT_TRUE(m.materials[3].hidden);
}

TEST(PskRoundTrip, MaterialIndexPastEndUsesPlaceholder) {
  psk::Mesh src = quadMesh();
  src.faces[0].material = 9;
  Model m;
  ASSERT_TRUE(decode(psk::writePsk(src), m).ok());
  ASSERT_EQ(m.materials.size(), 3u);
  EXPECT_EQ(m.materials[2].name, "placeholder");
  EXPECT_EQ(m.meshes[0].groups.back().material, 2u);
  EXPECT_TRUE(hasWarning(m, "placeholder"));
}

TEST(PskRoundTrip, FacesWithBadWedgesDropped) {
  psk::Mesh src = quadMesh();
  psk::Face bad;
  bad.wedge[0] = 0;
  bad.wedge[1] = 1;
  bad.wedge[2] = 99;
  src.faces.push_back(bad);
  Model m;
  ASSERT_TRUE(decode(psk::writePsk(src), m).ok());
  EXPECT_EQ(m.meshes[0].indices.size(), 6u);
  EXPECT_EQ(countOf(m, "faces"), 3);
  EXPECT_EQ(countOf(m, "triangles"), 2);
  EXPECT_TRUE(hasWarning(m, "dropped 1 faces"));
}

TEST(PskRoundTrip, RepeatedHeaderUnknownChunkSpacePaddingAndStampEverywhere) {
  psk::Mesh src = quadMesh();
  psk::MeshOptions o;
  o.repeatHeader = true;
  o.unknownChunk = true;
  o.padNamesWithSpaces = true;
  o.typeFlagEverywhere = true;
  o.typeFlag = 1999801;
  Model m;
  Status s = decode(psk::writePsk(src, o), m);
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(m.skeleton.names[1], "Arm");
  EXPECT_EQ(m.materials[1].name, "Glass");
  EXPECT_TRUE(hasWarning(m, "ZZUNKNOWN"));
  EXPECT_EQ(m.meshes[0].indices.size(), 6u);
  EXPECT_EQ(infoOf(m, "typeFlag"), "1999801");
}

TEST(PskRoundTrip, VertexColoursRgbaOrBgraByTypeFlag) {
  psk::Mesh src = quadMesh();
  for (size_t i = 0; i < src.wedges.size(); ++i) {
    uint8_t c[4] = {uint8_t(10 + i), 20, uint8_t(30 + i), 40};
    src.colors.insert(src.colors.end(), c, c + 4);
  }
  struct Case {
    uint32_t flag;
    bool bgra;
  } cases[] = {{1999801, false},  {2003321, true},   {20090127, true},
               {20090128, false}, {20100422, false}, {20220723, false}};
  for (const Case& c : cases) {
    psk::MeshOptions o;
    o.typeFlag = c.flag;
    Model m;
    ASSERT_TRUE(decode(psk::writePsk(src, o), m).ok());
    const std::vector<uint8_t>& col = m.meshes[0].colors;
    ASSERT_EQ(col.size(), 20u);
    EXPECT_EQ(infoOf(m, "vertexColorOrder"), c.bgra ? "BGRA" : "RGBA") << c.flag;
    EXPECT_EQ(col[4 * 4 + 0], c.bgra ? 34 : 14) << c.flag;
    EXPECT_EQ(col[4 * 4 + 2], c.bgra ? 14 : 34) << c.flag;
    EXPECT_EQ(col[4 * 4 + 1], 20);
    EXPECT_EQ(col[4 * 4 + 3], 40);
    EXPECT_EQ(countOf(m, "colors"), 1);
  }
}

TEST(PskRoundTrip, ExtraUvSetsInFileOrderBothSpellings) {
  psk::Mesh src = quadMesh();
  for (int s = 0; s < 2; ++s) {
    std::vector<float> uv;
    for (size_t i = 0; i < src.wedges.size(); ++i) {
      uv.push_back(float(s) + 0.01f * float(i));
      uv.push_back(0.25f);
    }
    src.extraUvs.push_back(uv);
  }
  for (const char* id : {"EXTRAUVS", "EXTRAUV"}) {
    psk::MeshOptions o;
    o.extraUvId = id;
    Model m;
    ASSERT_TRUE(decode(psk::writePsk(src, o), m).ok());
    ASSERT_EQ(m.meshes[0].uvs.size(), 3u) << id;
    EXPECT_FLOAT_EQ(m.meshes[0].uvs[1][2], 0.01f);
    EXPECT_FLOAT_EQ(m.meshes[0].uvs[2][2], 1.01f);
    EXPECT_FLOAT_EQ(m.meshes[0].uvs[2][3], 0.75f);
    EXPECT_EQ(countOf(m, "uvSets"), 3);
  }
  // Wrong record count: ignored with a warning.
  src.extraUvs[1].resize(4);
  Model m;
  ASSERT_TRUE(decode(psk::writePsk(src), m).ok());
  EXPECT_EQ(m.meshes[0].uvs.size(), 2u);
  EXPECT_TRUE(hasWarning(m, "extra UV"));
}

TEST(PskRoundTrip, VtxNormsPerPointConvertedToEveryWedge) {
  psk::Mesh src = quadMesh();
  src.normals = {0, 0, 1, 0, 1, 0, 1, 0, 0, 0, -1, 0};
  for (bool early : {false, true}) {
    psk::MeshOptions o;
    o.normalsAfterMaterials = early;
    Model m;
    ASSERT_TRUE(decode(psk::writePsk(src, o), m).ok());
    const std::vector<float>& n = m.meshes[0].normals;
    // point 1 (0,1,0) -> (0,0,-1)
    EXPECT_FLOAT_EQ(n[1 * 3 + 2], -1);
    // wedge 4 is point 2 (1,0,0)
    EXPECT_FLOAT_EQ(n[4 * 3 + 0], 1);
    // point 0 (0,0,1) -> (0,1,0)
    EXPECT_FLOAT_EQ(n[1], 1);
    EXPECT_EQ(countOf(m, "normals"), 1);
    EXPECT_EQ(infoOf(m, "normalsFrom"), "VTXNORMS");
  }
}

TEST(PskNormals, VtxNormsOfTheWrongCountFallBackToSmoothingGroups) {
  // A VTXNORMS chunk that does not match the points is ignored: the normals are then the ones the
  // smoothing groups give (not zero vectors, which would draw the mesh black).
  psk::Mesh src = quadMesh();
  Model plain;
  ASSERT_TRUE(decode(psk::writePsk(src), plain).ok());
  src.normals = {0, 0, 1, 0, 1, 0, 1, 0, 0};  // 3 normals for 4 points
  Model m;
  ASSERT_TRUE(decode(psk::writePsk(src), m).ok());
  EXPECT_TRUE(hasWarning(m, "VTXNORMS has 3 records for 4 points; ignored, normals from the smoothing groups"))
      << allWarnings(m);
  EXPECT_EQ(m.meshes[0].normals, plain.meshes[0].normals);
  EXPECT_EQ(countOf(m, "normals"), 0);
  EXPECT_EQ(infoOf(m, "normalsFrom"), "smoothing groups");
  for (size_t i = 0; i + 2 < m.meshes[0].normals.size(); i += 3) {
    const float* n = &m.meshes[0].normals[i];
    EXPECT_NEAR(n[0] * n[0] + n[1] * n[1] + n[2] * n[2], 1.0f, 1e-5f) << "wedge " << i / 3;
  }
}

TEST(PskNormals, SmoothingGroupsShareOrSplitAnEdge) {
  // Two triangles folded 90 degrees along the edge p0-p1; wedges unique per face so each can differ.
  psk::Mesh src;
  src.points = {0, 0, 0, 10, 0, 0, 0, 10, 0, 0, 0, 10};
  src.wedges = {{0, 0, 0, 0}, {1, 0, 0, 0}, {2, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}, {3, 0, 0, 0}};
  psk::Face a;  // in the z=0 plane
  a.wedge[0] = 0;
  a.wedge[1] = 2;
  a.wedge[2] = 1;
  psk::Face b;  // in the y=0 plane
  b.wedge[0] = 3;
  b.wedge[1] = 4;
  b.wedge[2] = 5;
  src.materials = {{"M", 0}};
  auto normalOfWedge0 = [&](uint32_t sgA, uint32_t sgB) {
    a.smoothing = sgA;
    b.smoothing = sgB;
    src.faces = {a, b};
    Model m;
    EXPECT_TRUE(decode(psk::writePsk(src), m).ok());
    std::vector<float> n(m.meshes[0].normals.begin(), m.meshes[0].normals.begin() + 3);
    return n;
  };
  std::vector<float> shared = normalOfWedge0(1, 1);
  std::vector<float> split = normalOfWedge0(1, 2);
  std::vector<float> flat = normalOfWedge0(0, 0);
  std::vector<float> mixedBits = normalOfWedge0(3, 6);
  // Shared: average of two perpendicular unit normals -> components of magnitude 1/sqrt(2).
  EXPECT_NEAR(std::fabs(shared[1]), 0.70710678f, 1e-4f);
  EXPECT_NEAR(std::fabs(shared[2]), 0.70710678f, 1e-4f);
  // Split or flat: wedge 0 keeps face a's normal only (file +-Z -> three +-Y).
  EXPECT_NEAR(std::fabs(split[1]), 1.0f, 1e-5f);
  EXPECT_NEAR(std::fabs(flat[1]), 1.0f, 1e-5f);
  EXPECT_NEAR(std::fabs(mixedBits[1]), 0.70710678f, 1e-4f);
}

TEST(PskNormals, SmoothingGroupsTooDenseFallBackToThePointAverageInWedgeOrder) {
  // A cone of 1200 thin faces around one apex point, each face with a wedge of its own there:
  // resolving every apex wedge by its groups would walk 1200 x 1200 faces, past the work budget
  // (64 per face corner plus 2^20). The apex wedges resolve in wedge order until the budget runs
  // out (wedges 0-1064 at 1200 corners each), then the rest take the point's plain average.
  // Faces of the first half of the cone are in group 1, the second half in group 2.
  const uint32_t F = 1200;
  psk::Mesh src;
  src.points = {0, 0, 10};
  for (uint32_t j = 0; j < F; ++j) {
    const double a = 2 * 3.14159265358979323846 * j / F;
    src.points.insert(src.points.end(), {float(10 * std::cos(a)), float(10 * std::sin(a)), 0});
  }
  for (uint32_t i = 0; i < F; ++i) src.wedges.push_back({0, 0, 0, 0});
  for (uint32_t j = 0; j < F; ++j) src.wedges.push_back({1 + j, 0, 0, 0});
  for (uint32_t i = 0; i < F; ++i) {
    psk::Face f;
    f.wedge[0] = i;
    f.wedge[1] = F + i;
    f.wedge[2] = F + (i + 1) % F;
    f.smoothing = i < F / 2 ? 1 : 2;
    src.faces.push_back(f);
  }
  src.materials = {{"M", 0}};
  Model m;
  ASSERT_TRUE(decode(psk::writePsk(src), m).ok());
  EXPECT_TRUE(hasWarning(m, "smoothing groups too dense to resolve; some normals averaged per point"))
      << allWarnings(m);
  const std::vector<float>& n = m.meshes[0].normals;
  const auto tilt = [&](uint32_t w) { return n[w * 3 + 2]; };  // file y -> three -z
  // Resolved: each half's faces lean the normal towards their side, the two halves opposite ways.
  EXPECT_GT(std::fabs(tilt(0)), 0.3f);
  EXPECT_GT(std::fabs(tilt(1064)), 0.3f);
  EXPECT_LT(tilt(0) * tilt(1064), 0.0f);
  // Past the budget: every face around the apex, which points straight up the cone's axis.
  EXPECT_NEAR(std::fabs(n[1199 * 3 + 1]), 1.0f, 1e-4f);
  EXPECT_NEAR(tilt(1199), 0.0f, 1e-2f);
  EXPECT_NEAR(std::fabs(n[1065 * 3 + 1]), 1.0f, 1e-4f);
}

TEST(PskRoundTrip, MorphDeltasNegateYAndExpandToWedges) {
  psk::Mesh src = quadMesh();
  psk::MorphTarget smile;
  smile.name = "Smile";
  psk::MorphDelta d;
  d.position[0] = 1;
  d.position[1] = 2;
  d.position[2] = 3;
  d.tangentZ[0] = 0.1f;
  d.tangentZ[1] = 0.2f;
  d.tangentZ[2] = 0.3f;
  d.point = 2;  // used by wedges 2 and 4
  psk::MorphDelta out;
  out.point = 99;
  smile.deltas = {d, out};
  psk::MorphTarget empty;
  empty.name = "Empty";
  src.morphs = {smile, empty};
  Model m;
  ASSERT_TRUE(decode(psk::writePsk(src), m).ok());
  const Mesh& mesh = m.meshes[0];
  ASSERT_EQ(mesh.morphs.size(), 2u);
  EXPECT_EQ(mesh.morphs[0].name, "Smile");
  EXPECT_EQ(mesh.morphs[1].name, "Empty");
  const std::vector<float>& p = mesh.morphs[0].positions;
  ASSERT_EQ(p.size(), 15u);
  // (1, 2, 3) -> negate y (1, -2, 3) -> Y-up (1, 3, 2)
  for (int w : {2, 4}) {
    EXPECT_FLOAT_EQ(p[w * 3 + 0], 1);
    EXPECT_FLOAT_EQ(p[w * 3 + 1], 3);
    EXPECT_FLOAT_EQ(p[w * 3 + 2], 2);
  }
  EXPECT_FLOAT_EQ(p[0], 0);
  ASSERT_EQ(mesh.morphs[0].normals.size(), 15u);
  EXPECT_FLOAT_EQ(mesh.morphs[0].normals[4 * 3 + 1], 0.3f);
  EXPECT_FLOAT_EQ(mesh.morphs[0].normals[4 * 3 + 2], 0.2f);
  EXPECT_TRUE(hasWarning(m, "skipped 1 morph deltas"));
  EXPECT_EQ(countOf(m, "morphs"), 2);
}

TEST(PskRoundTrip, SocketsWithEveryDeclaredSize) {
  psk::Mesh src = quadMesh();
  psk::Socket a;
  a.name = "WeaponR";
  a.bone = "arm";  // case-insensitive match
  a.location[0] = 1;
  a.location[1] = 2;
  a.location[2] = 3;
  a.rotator[1] = 90;  // yaw 90
  psk::Socket b;
  b.name = "Nowhere";
  b.bone = "NoSuchBone";
  src.sockets = {a, b};
  for (int32_t declared : {164, 138, 168}) {
    psk::MeshOptions o;
    o.socketDataSize = declared;
    std::vector<uint8_t> bytes = psk::writePsk(src, o);
    // A known chunk after the sockets must still be found: an extra UV set.
    ByteWriter tail;
    tail.fixed("EXTRAUVS0", 20);
    tail.u32(0);
    tail.i32(8);
    tail.i32(5);
    for (int i = 0; i < 10; ++i) tail.f32(0.5f);
    bytes.insert(bytes.end(), tail.bytes.begin(), tail.bytes.end());
    Model m;
    Status s = decode(bytes, m);
    ASSERT_TRUE(s.ok()) << s.error;
    ASSERT_EQ(m.attachments.size(), 2u) << declared;
    EXPECT_EQ(m.attachments[0].name, "WeaponR");
    EXPECT_EQ(m.attachments[0].bone, 1);
    EXPECT_EQ(m.attachments[1].bone, -1);
    EXPECT_FLOAT_EQ(m.attachments[0].translation[1], 3);
    EXPECT_FLOAT_EQ(m.attachments[0].translation[2], -2);
    // yaw 90 about file Z -> rotation about three's Y: (0, s, 0, c) with s = c = 1/sqrt(2)
    EXPECT_NEAR(std::fabs(m.attachments[0].rotation[1]), 0.70710678f, 1e-5f);
    EXPECT_NEAR(m.attachments[0].rotation[3], 0.70710678f, 1e-5f);
    EXPECT_EQ(m.meshes[0].uvs.size(), 2u) << declared << "\n" << allWarnings(m);
    EXPECT_EQ(hasWarning(m, "SKELSOCK"), declared != 164);
  }
}

TEST(PskRoundTrip, SocketResyncScansPastJunk) {
  psk::Mesh src = quadMesh();
  psk::Socket a;
  a.name = "S";
  a.bone = "Root";
  src.sockets = {a};
  psk::MeshOptions o;
  o.socketDataSize = 138;
  std::vector<uint8_t> bytes = psk::writePsk(src, o);
  bytes.insert(bytes.end(), 7, 0x55);  // junk neither 164 nor 138 accounts for
  ByteWriter tail;
  tail.fixed("EXTRAUVS0", 20);
  tail.u32(0);
  tail.i32(8);
  tail.i32(5);
  for (int i = 0; i < 10; ++i) tail.f32(0.5f);
  bytes.insert(bytes.end(), tail.bytes.begin(), tail.bytes.end());
  Model m;
  ASSERT_TRUE(decode(bytes, m).ok());
  EXPECT_EQ(m.attachments.size(), 1u);
  EXPECT_EQ(m.meshes[0].uvs.size(), 2u);
}

TEST(PskRoundTrip, MoreThanFourInfluencesKeptStrongestAndRenormalised) {
  psk::Mesh src = quadMesh();
  for (int b = 0; b < 6; ++b) src.bones.push_back(psk::Bone{"b" + std::to_string(b)});
  src.weights.clear();
  const float w[6] = {0.05f, 0.3f, 0.1f, 0.2f, 0.25f, 0.1f};
  for (int b = 0; b < 6; ++b) src.weights.push_back({w[b], 0, 2 + b});
  src.weights.push_back({0.5f, 1, 0});  // sums to 0.5 -> renormalised
  Model m;
  ASSERT_TRUE(decode(psk::writePsk(src), m).ok());
  EXPECT_TRUE(hasWarning(m, "1 points had more than 4 influences; kept the 4 strongest")) << allWarnings(m);
  EXPECT_TRUE(hasWarning(m, "renormalised"));
  EXPECT_TRUE(hasWarning(m, "no influence"));  // points 2 and 3
  const Mesh& mesh = m.meshes[0];
  float sum = 0;
  for (int k = 0; k < 4; ++k) {
    sum += mesh.skinWeight[k];
    EXPECT_NE(mesh.skinIndex[k], 2);  // weakest (0.05) dropped
  }
  EXPECT_NEAR(sum, 1.0f, 1e-6f);
  EXPECT_FLOAT_EQ(mesh.skinWeight[4], 1.0f);
}

TEST(PskRoundTrip, BonesButNoWeightsBindToBoneZero) {
  psk::Mesh src = quadMesh();
  src.weights.clear();
  Model m;
  ASSERT_TRUE(decode(psk::writePsk(src), m).ok());
  EXPECT_TRUE(m.hasSkeleton);
  EXPECT_TRUE(hasWarning(m, "bound to bone 0 with weight 1"));
  for (size_t v = 0; v < 5; ++v) {
    EXPECT_EQ(m.meshes[0].skinIndex[v * 4], 0);
    EXPECT_FLOAT_EQ(m.meshes[0].skinWeight[v * 4], 1.0f);
  }
}

TEST(PskRoundTrip, StaticMeshHasNoSkeleton) {
  psk::Mesh src = quadMesh();
  src.bones.clear();
  src.weights.clear();
  for (bool chunks : {true, false}) {
    psk::MeshOptions o;
    o.skeletonChunks = chunks;
    Model m;
    ASSERT_TRUE(decode(psk::writePsk(src, o), m, "s.pskx").ok());
    EXPECT_FALSE(m.hasSkeleton);
    EXPECT_TRUE(m.meshes[0].skinIndex.empty());
    EXPECT_TRUE(m.meshes[0].skinWeight.empty());
    EXPECT_EQ(countOf(m, "bones"), 0);
  }
}

TEST(PskHierarchy, SelfParentsCyclesAndParentsAfterChildren) {
  psk::Mesh src = quadMesh();
  src.bones.resize(6);
  for (int i = 0; i < 6; ++i) src.bones[i].name = "b" + std::to_string(i);
  src.bones[0].parent = 0;  // root, ActorX style
  src.bones[1].parent = 5;  // parent after child: allowed
  src.bones[2].parent = 2;  // self parent -> root
  src.bones[3].parent = 4;  // 3 <-> 4 cycle
  src.bones[4].parent = 3;
  src.bones[5].parent = 77;  // out of range -> root
  Model m;
  ASSERT_TRUE(decode(psk::writePsk(src), m).ok());
  const std::vector<int32_t>& p = m.skeleton.parents;
  EXPECT_EQ(p[0], -1);
  EXPECT_EQ(p[1], 5);
  EXPECT_EQ(p[2], 0);
  EXPECT_EQ(p[5], 0);
  EXPECT_TRUE((p[3] == 0 && p[4] == 3) || (p[4] == 0 && p[3] == 4));
  EXPECT_TRUE(hasWarning(m, "cycle"));
  // Every chain reaches the root.
  for (size_t b = 0; b < p.size(); ++b) {
    int32_t x = int32_t(b);
    for (int guard = 0; guard < 10 && x >= 0; ++guard) x = p[size_t(x)];
    EXPECT_EQ(x, -1) << b;
  }
  // Root stored with parent -1 (CUE4Parse) works the same.
  src.bones[0].parent = -1;
  Model m2;
  ASSERT_TRUE(decode(psk::writePsk(src), m2).ok());
  EXPECT_EQ(m2.skeleton.parents[0], -1);
}

// ---------------------------------------------------------------------------------------------
// Hostile input

TEST(PskHostile, TruncationAtEveryByte) {
  psk::Mesh src = quadMesh();
  src.colors.assign(src.wedges.size() * 4, 7);
  src.normals.assign(12, 0.5f);
  psk::MorphTarget mt;
  mt.name = "m";
  mt.deltas.resize(2);
  src.morphs = {mt};
  psk::Socket s;
  s.name = "s";
  s.bone = "Root";
  src.sockets = {s};
  std::vector<uint8_t> full = psk::writePsk(src);
  // Chunk boundaries: a cut there is a shorter but valid file.
  std::vector<size_t> boundaries;
  for (size_t pos = 0; pos + 32 <= full.size();) {
    boundaries.push_back(pos);
    int32_t ds = load_i32le(&full[pos + 24]), dc = load_i32le(&full[pos + 28]);
    if (std::memcmp(&full[pos], "SKELSOCK", 8) == 0) ds = 164;
    pos += 32 + size_t(ds) * size_t(dc);
  }
  boundaries.push_back(full.size());
  for (size_t n = 0; n < full.size(); ++n) {
    std::vector<uint8_t> cut(full.begin(), full.begin() + long(n));
    Model m;
    Status st = decodePsk(cut.data(), cut.size(), "cut.psk", m);
    bool boundary = std::find(boundaries.begin(), boundaries.end(), n) != boundaries.end();
    if (st.ok() && !boundary) {
      EXPECT_FALSE(m.warnings.empty()) << "cut at " << n;
    }
    if (!st.ok()) EXPECT_NE(st.error.find("PSK cut.psk"), std::string::npos);
  }
}

TEST(PskHostile, CountsNear2To31And2To32AndNegative) {
  auto header = [](ByteWriter& w, const char* id, int32_t size, int32_t count) {
    w.fixed(id, 20);
    w.u32(0);
    w.i32(size);
    w.i32(count);
  };
  struct Case {
    int32_t size, count;
  } cases[] = {{12, 0x7FFFFFFF}, {0x10000000, 16},           {0x7FFFFFFF, 0x7FFFFFFF}, {-12, 4},
               {12, -1},         {16, int32_t(0x80000000u)}, {0x40000000, 4}};
  for (const char* id : {"PNTS0000", "VTXW0000", "FACE0000", "REFSKELT", "RAWWEIGHTS", "SKELSOCK", "MRPHINFO"}) {
    for (const Case& c : cases) {
      ByteWriter w;
      header(w, "ACTRHEAD", 0, 0);
      header(w, id, c.size, c.count);
      w.pad(64, 0);
      Model m;
      Status s = decodePsk(w.bytes.data(), w.bytes.size(), "big.psk", m);
      EXPECT_FALSE(s.ok()) << id << " " << c.size << " " << c.count;
    }
  }
  // Counts inside an otherwise valid file: MRPHINFO vertexCount near 2^31, huge socket counts.
  psk::Mesh src = quadMesh();
  psk::MorphTarget mt;
  mt.name = "m";
  src.morphs = {mt};
  std::vector<uint8_t> bytes = psk::writePsk(src);
  for (size_t pos = 0; pos + 32 <= bytes.size();) {
    int32_t ds = load_i32le(&bytes[pos + 24]), dc = load_i32le(&bytes[pos + 28]);
    if (std::memcmp(&bytes[pos], "MRPHINFO", 8) == 0) {
      uint32_t big = 0x7FFFFFFF;
      std::memcpy(&bytes[pos + 32 + 64], &big, 4);
    }
    pos += 32 + size_t(ds) * size_t(dc);
  }
  Model m;
  ASSERT_TRUE(decode(bytes, m).ok());
  EXPECT_TRUE(hasWarning(m, "more morph deltas"));
}

TEST(PskHostile, WrongStridesAndMissingChunks) {
  ByteWriter w;
  w.fixed("ACTRHEAD", 20);
  w.u32(0);
  w.i32(0);
  w.i32(0);
  w.fixed("PNTS0000", 20);
  w.u32(0);
  w.i32(8);
  w.i32(1);
  w.pad(8);
  Model m;
  Status s = decodePsk(w.bytes.data(), w.bytes.size(), "x.psk", m);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.error.find("PNTS0000"), std::string::npos) << s.error;
  Model m2;
  const uint8_t junk[40] = {'N', 'O', 'P', 'E'};
  s = decodePsk(junk, sizeof junk, "j.psk", m2);
  EXPECT_FALSE(s.ok());
  Model m3;
  s = decodePsk(nullptr, 0, "empty.psk", m3);
  EXPECT_FALSE(s.ok());
}

TEST(PskHostile, NanFloatsDoNotCrash) {
  psk::Mesh src = quadMesh();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  src.points[4] = nan;
  for (float& q : src.bones[1].rotation) q = nan;
  src.bones[0].rotation[3] = std::numeric_limits<float>::infinity();
  src.weights[0].weight = nan;
  Model m;
  ASSERT_TRUE(decode(psk::writePsk(src), m).ok());
  for (float q : m.skeleton.restRotation) EXPECT_TRUE(std::isfinite(q));
  EXPECT_FLOAT_EQ(m.skeleton.restRotation[7], 1.0f);
}

TEST(PskHostile, WedgePointsPastTheEndClampedAndPointlessWedgesRefused) {
  psk::Mesh src = quadMesh();
  src.wedges[1].point = 40;
  Model m;
  ASSERT_TRUE(decode(psk::writePsk(src), m).ok());
  EXPECT_TRUE(hasWarning(m, "set to point 0"));
  src.points.clear();
  Model m2;
  EXPECT_FALSE(decode(psk::writePsk(src), m2).ok());
}

// ---------------------------------------------------------------------------------------------
// Real samples (shared/samples/psk, facts from shared/samples/README.md)

namespace {

std::string samplesDir() { return rs::test::samplesDir("psk"); }

bool readSample(const std::string& name, std::vector<uint8_t>& out) {
  return rs::test::readBytes(samplesDir() + name, out);
}

#define LOAD_SAMPLE(name, model)                                                                        \
  std::vector<uint8_t> bytes_;                                                                          \
  if (!readSample(name, bytes_)) GTEST_SKIP() << "sample " << name << " not found in " << samplesDir(); \
  Model model;                                                                                          \
  {                                                                                                     \
    Status st_ = decodePsk(bytes_.data(), bytes_.size(), name, model);                                  \
    ASSERT_TRUE(st_.ok()) << st_.error;                                                                 \
  }

void expectCounts(const Model& m, double P, double W, double F, double M, double B, double I) {
  EXPECT_EQ(countOf(m, "points"), P);
  EXPECT_EQ(countOf(m, "wedges"), W);
  EXPECT_EQ(countOf(m, "faces"), F);
  EXPECT_EQ(countOf(m, "materials"), M);
  EXPECT_EQ(countOf(m, "bones"), B);
  EXPECT_EQ(countOf(m, "influences"), I);
  EXPECT_EQ(countOf(m, "vertices"), W);
  EXPECT_EQ(countOf(m, "triangles"), F);
  ASSERT_EQ(m.meshes.size(), 1u);
  EXPECT_EQ(m.meshes[0].positions.size(), size_t(W) * 3);
  EXPECT_EQ(m.meshes[0].indices.size(), size_t(F) * 3);
  EXPECT_EQ(m.skeleton.names.size(), size_t(B));
}

// Signed volume of the closed mesh: positive when triangles are CCW seen from outside.
double signedVolume(const Mesh& mesh) {
  double v = 0;
  for (size_t t = 0; t + 2 < mesh.indices.size(); t += 3) {
    const float* a = &mesh.positions[mesh.indices[t] * 3];
    const float* b = &mesh.positions[mesh.indices[t + 1] * 3];
    const float* c = &mesh.positions[mesh.indices[t + 2] * 3];
    v += (a[0] * (double(b[1]) * c[2] - double(b[2]) * c[1]) - a[1] * (double(b[0]) * c[2] - double(b[2]) * c[0]) +
          a[2] * (double(b[0]) * c[1] - double(b[1]) * c[0])) /
         6.0;
  }
  return v;
}

// World bind-pose bone positions from the decoded skeleton: world = parent.world * T * R.
void quatRotate(const float* q, const double* v, double* out) {
  double x = q[0], y = q[1], z = q[2], w = q[3];
  double tx = 2 * (y * v[2] - z * v[1]), ty = 2 * (z * v[0] - x * v[2]), tz = 2 * (x * v[1] - y * v[0]);
  out[0] = v[0] + w * tx + (y * tz - z * ty);
  out[1] = v[1] + w * ty + (z * tx - x * tz);
  out[2] = v[2] + w * tz + (x * ty - y * tx);
}
void quatMul(const float* a, const float* b, float* o) {
  o[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
  o[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
  o[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
  o[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
}

std::vector<double> worldBonePositions(const Skeleton& sk) {
  const size_t B = sk.names.size();
  std::vector<double> pos(B * 3);
  std::vector<float> rot(B * 4);
  std::vector<uint8_t> done(B, 0);
  for (size_t pass = 0; pass < B; ++pass) {
    for (size_t b = 0; b < B; ++b) {
      if (done[b]) continue;
      int32_t p = sk.parents[b];
      double t[3] = {sk.restTranslation[b * 3], sk.restTranslation[b * 3 + 1], sk.restTranslation[b * 3 + 2]};
      if (p < 0) {
        for (int k = 0; k < 3; ++k) pos[b * 3 + k] = t[k];
        std::memcpy(&rot[b * 4], &sk.restRotation[b * 4], 16);
        done[b] = 1;
      } else if (done[size_t(p)]) {
        double r[3];
        quatRotate(&rot[size_t(p) * 4], t, r);
        for (int k = 0; k < 3; ++k) pos[b * 3 + k] = pos[size_t(p) * 3 + k] + r[k];
        quatMul(&rot[size_t(p) * 4], &sk.restRotation[b * 4], &rot[b * 4]);
        done[b] = 1;
      }
    }
  }
  return pos;
}

// Mean distance between each weighted bone and the weight-averaged centroid of its vertices.
double meanBoneCentroidError(const Model& m) {
  const Mesh& mesh = m.meshes[0];
  const size_t B = m.skeleton.names.size();
  std::vector<double> sum(B * 3, 0.0), wsum(B, 0.0);
  const size_t V = mesh.positions.size() / 3;
  for (size_t v = 0; v < V; ++v)
    for (int k = 0; k < 4; ++k) {
      float w = mesh.skinWeight[v * 4 + k];
      if (w <= 0) continue;
      size_t b = mesh.skinIndex[v * 4 + k];
      for (int c = 0; c < 3; ++c) sum[b * 3 + c] += w * mesh.positions[v * 3 + c];
      wsum[b] += w;
    }
  std::vector<double> world = worldBonePositions(m.skeleton);
  double err = 0;
  size_t n = 0;
  for (size_t b = 0; b < B; ++b) {
    if (wsum[b] <= 0) continue;
    double d2 = 0;
    for (int c = 0; c < 3; ++c) {
      double d = sum[b * 3 + c] / wsum[b] - world[b * 3 + c];
      d2 += d * d;
    }
    err += std::sqrt(d2);
    ++n;
  }
  return n ? err / double(n) : 0;
}

}  // namespace

TEST(PskSamples, GruntPreview) {
  LOAD_SAMPLE("Grunt_Preview_LOD0.psk", m);
  expectCounts(m, 4045, 4045, 7882, 1, 136, 7012);
  EXPECT_EQ(countOf(m, "normals"), 1);
  EXPECT_EQ(countOf(m, "morphs"), 0);
  EXPECT_EQ(m.skeleton.names[0], "Root");
  EXPECT_EQ(m.skeleton.parents[0], -1);
  EXPECT_EQ(infoOf(m, "typeFlag"), "20220723");
  EXPECT_TRUE(hasWarning(m, "renormalised")) << allWarnings(m);
  EXPECT_LT(signedVolume(m.meshes[0]), 1e30);  // not necessarily closed; just finite
  // Decoded VTXNORMS agree with the reversed winding on nearly every face.
  const Mesh& mesh = m.meshes[0];
  size_t agree = 0;
  for (size_t t = 0; t < mesh.indices.size(); t += 3) {
    const float* a = &mesh.positions[mesh.indices[t] * 3];
    const float* b = &mesh.positions[mesh.indices[t + 1] * 3];
    const float* c = &mesh.positions[mesh.indices[t + 2] * 3];
    float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    const float* vn = &mesh.normals[mesh.indices[t] * 3];
    agree += n[0] * vn[0] + n[1] * vn[1] + n[2] * vn[2] > 0;
  }
  EXPECT_GE(agree, 7870u);
}

TEST(PskSamples, SlurpMonsterAxeMorphsColoursExtraUv) {
  LOAD_SAMPLE("Slurp_Monster_Axe_LOD0.psk", m);
  expectCounts(m, 490, 738, 976, 1, 4, 490);
  EXPECT_EQ(m.skeleton.names[0], "b_AR_Root");
  EXPECT_EQ(infoOf(m, "vertexColorOrder"), "RGBA");
  EXPECT_EQ(m.meshes[0].colors.size(), 738u * 4);
  EXPECT_EQ(m.meshes[0].uvs.size(), 2u);
  EXPECT_EQ(countOf(m, "normals"), 1);
  const char* names[] = {"pickaxe", "axe", "Blob_03", "Blob02", "Blob01"};
  ASSERT_EQ(m.meshes[0].morphs.size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(m.meshes[0].morphs[i].name, names[i]);
  EXPECT_FALSE(hasWarning(m, "MRPHDATA has")) << allWarnings(m);  // 2080 deltas all consumed
  EXPECT_FALSE(hasWarning(m, "morph deltas"));
  // With y negated, N + dN stays unit length (spec §2, verified).
  const Mesh& mesh = m.meshes[0];
  double err = 0;
  size_t n = 0;
  for (const Morph& mo : mesh.morphs) {
    if (mo.normals.empty()) continue;
    for (size_t v = 0; v < 738; ++v) {
      const float* d = &mo.normals[v * 3];
      if (d[0] == 0 && d[1] == 0 && d[2] == 0) continue;
      const float* nn = &mesh.normals[v * 3];
      float x = nn[0] + d[0], y = nn[1] + d[1], z = nn[2] + d[2];
      err += std::fabs(std::sqrt(x * x + y * y + z * z) - 1.0f);
      ++n;
    }
  }
  ASSERT_GT(n, 0u);
  EXPECT_LT(err / double(n), 0.02);
}

TEST(PskSamples, ShrekTwoMaterialsAndBindPose) {
  LOAD_SAMPLE("Shrek.psk", m);
  expectCounts(m, 1100, 1428, 2066, 2, 64, 2175);
  EXPECT_EQ(m.skeleton.names[0], "body_root_joint");
  EXPECT_EQ(m.meshes[0].groups.size(), 2u);
  EXPECT_EQ(infoOf(m, "typeFlag"), "20100422");
  double err = meanBoneCentroidError(m);
  std::printf("Shrek.psk mean bone-to-centroid distance %.2f\n", err);
  EXPECT_LT(err, 15.0) << "mean bone-to-centroid distance " << err;
}

TEST(PskSamples, MaximTurretRigid) {
  LOAD_SAMPLE("MAXIM_TURRET_EXT.psk", m);
  expectCounts(m, 2517, 2606, 2103, 1, 15, 2517);
  EXPECT_EQ(infoOf(m, "typeFlag"), "1999801");
  bool turret = false;
  for (const std::string& n : m.skeleton.names) turret |= n == "TURRET";
  EXPECT_TRUE(turret);
  // Exactly one influence per point.
  for (size_t v = 0; v < 2606; ++v) EXPECT_FLOAT_EQ(m.meshes[0].skinWeight[v * 4], 1.0f);
}

TEST(PskSamples, SuzanneBoneWithoutWeights) {
  LOAD_SAMPLE("Suzanne.psk", m);
  expectCounts(m, 507, 555, 968, 1, 1, 0);
  EXPECT_EQ(m.skeleton.names[0], "ROOT");
  EXPECT_TRUE(m.hasSkeleton);
  EXPECT_TRUE(hasWarning(m, "bound to bone 0 with weight 1"));
  EXPECT_GT(signedVolume(m.meshes[0]), 0);  // reversed winding: CCW outside
}

TEST(PskSamples, SpiderJunkIndicesDuplicateNamesBindPose) {
  LOAD_SAMPLE("skSpiderLargeMesh.psk", m);
  expectCounts(m, 266, 307, 492, 3, 71, 408);
  EXPECT_EQ(m.skeleton.names[0], "bip01");
  EXPECT_EQ(m.skeleton.parents[0], -1);
  EXPECT_NE(infoOf(m, "wedgeIndexMasked").find("307 wedges"), std::string::npos);
  EXPECT_FALSE(hasWarning(m, "set to point 0"));
  std::map<std::string, int> seen;
  int dups = 0;
  for (const std::string& n : m.skeleton.names) dups += seen[n]++ > 0;
  EXPECT_EQ(dups, 13);
  EXPECT_EQ(seen["bip01 Head"], 2);
  double err = meanBoneCentroidError(m);
  std::printf("skSpiderLargeMesh.psk mean bone-to-centroid distance %.2f\n", err);
  EXPECT_LT(err, 15.0) << "mean bone-to-centroid distance " << err;
}

TEST(PskSamples, SuzanneStaticNoBones) {
  LOAD_SAMPLE("Suzanne_static_nobones.pskx", m);
  expectCounts(m, 507, 555, 968, 1, 0, 0);
  EXPECT_FALSE(m.hasSkeleton);
  EXPECT_TRUE(m.meshes[0].skinIndex.empty());
}

TEST(PskSamples, SuzanneX130Face3200) {
  LOAD_SAMPLE("Suzanne_x130_face3200.pskx", m);
  expectCounts(m, 65910, 72150, 125840, 1, 1, 65910);
  EXPECT_EQ(infoOf(m, "faceChunk"), "FACE3200");
  EXPECT_EQ(infoOf(m, "wedgeIndexMasked"), "");
  EXPECT_TRUE(m.warnings.empty()) << allWarnings(m);
  EXPECT_GT(signedVolume(m.meshes[0]), 0);
}
