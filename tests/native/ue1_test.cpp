// UE1 vertex meshes (_d.3d + _a.3d + .uc) and PCX: writer round trips, the samples' documented
// facts, and hostile input.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "formats/ue1/ue1.h"
#include "io/bytes.h"
#include "writers/ue1_writer.h"

#include "test_support.h"

using namespace rs;
using rs::test::hasWarning;

namespace {

struct Decoded {
  Status status;
  Model model;
  Ue1Details details;
};

Decoded decode(const std::vector<uint8_t>& d, const std::vector<uint8_t>& a, const std::string& uc = "",
               const std::string& dName = "thing_d.3d", const std::string& aName = "thing_a.3d") {
  Decoded r;
  r.status = decodeUe1(d.data(), d.size(), dName, a.data(), a.size(), aName, uc, "Thing.uc", r.model, &r.details);
  return r;
}

std::string info(const Model& m, const char* key) {
  for (const auto& e : m.info)
    if (e.first == key) return e.second;
  return "<none>";
}

double count(const Model& m, const char* key) {
  for (const auto& e : m.counts)
    if (e.first == key) return e.second;
  return -1;
}

// Three space position of original vertex `v` at frame `f` (first render vertex using it).
const float* framePos(const Decoded& r, uint32_t f, uint32_t v) {
  const auto& map = r.details.renderToVertex;
  for (size_t i = 0; i < map.size(); ++i)
    if (map[i] == v) return r.model.vertexAnimation.frames.data() + (size_t(f) * map.size() + i) * 3;
  return nullptr;
}

// Signed volume of the drawn (non-hidden) triangles of mesh 0, frame-0 positions.
double signedVolume(const Model& m) {
  const Mesh& mesh = m.meshes[0];
  double vol = 0;
  for (const Group& g : mesh.groups) {
    if (m.materials[g.material].hidden) continue;
    for (uint32_t i = g.start; i < g.start + g.count; i += 3) {
      const float* a = &mesh.positions[size_t(mesh.indices[i]) * 3];
      const float* b = &mesh.positions[size_t(mesh.indices[i + 1]) * 3];
      const float* c = &mesh.positions[size_t(mesh.indices[i + 2]) * 3];
      vol += (double(a[0]) * (double(b[1]) * c[2] - double(b[2]) * c[1]) -
              double(a[1]) * (double(b[0]) * c[2] - double(b[2]) * c[0]) +
              double(a[2]) * (double(b[0]) * c[1] - double(b[1]) * c[0])) /
             6.0;
    }
  }
  return vol;
}

// A tetrahedron, outward CCW in a right-handed reading of the raw coordinates (like real files).
std::vector<Ue1WriteTriangle> tetra() {
  std::vector<Ue1WriteTriangle> t(4);
  const uint16_t f[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
  for (int i = 0; i < 4; ++i) {
    for (int k = 0; k < 3; ++k) {
      t[size_t(i)].v[k] = f[i][k];
      t[size_t(i)].uv[k][0] = uint8_t(f[i][k] * 60);
      t[size_t(i)].uv[k][1] = uint8_t(200 - f[i][k] * 40);
    }
  }
  return t;
}
// Tetra corners (0,0,0), (X,0,0), (0,Y,0), (0,0,Z), scaled per frame.
std::vector<int32_t> tetraFrames(int frames, int32_t X, int32_t Y, int32_t Z) {
  std::vector<int32_t> xyz;
  for (int f = 0; f < frames; ++f) {
    int32_t s = f + 1;
    const int32_t p[4][3] = {{0, 0, 0}, {X / s, 0, 0}, {0, Y / s, 0}, {0, 0, Z / s}};
    for (const auto& v : p) xyz.insert(xyz.end(), v, v + 3);
  }
  return xyz;
}

std::vector<uint8_t> readFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return {};
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

std::string samplesDir() { return std::string(RIGSCOPE_SAMPLES) + "/vertex3d"; }
bool haveSamples() { return !readFile(samplesDir() + "/assimp-mar_rifle/mar_rifle_d.3d").empty(); }

}  // namespace

// ---------------------------------------------------------------------------------------------
// Writer round trips

TEST(Ue1Writer, PackedRoundTripExtremesAndTransform) {
  std::vector<int32_t> xyz = tetraFrames(3, 1023, -1024, 511);
  xyz[0] = -1024, xyz[1] = 1023, xyz[2] = -512;  // vertex 0 of frame 0 at the other extremes
  Decoded r = decode(writeUe1Data(tetra(), 4), writeUe1Anim(xyz, 4, Ue1Encoding::Packed));
  ASSERT_TRUE(r.status.ok()) << r.status.error;
  const Model& m = r.model;
  EXPECT_EQ(info(m, "encoding"), "packed");
  EXPECT_TRUE(hasWarning(m, "a guess"));
  EXPECT_EQ(m.vertexAnimation.frameCount, 3u);
  ASSERT_EQ(m.vertexAnimation.sequences.size(), 1u);
  EXPECT_EQ(m.vertexAnimation.sequences[0].name, "All");
  EXPECT_EQ(m.vertexAnimation.sequences[0].frameCount, 3u);
  for (uint32_t f = 0; f < 3; ++f) {
    for (uint32_t v = 0; v < 4; ++v) {
      const int32_t* raw = &xyz[(f * 4 + v) * 3];
      const float* p = framePos(r, f, v);
      ASSERT_NE(p, nullptr);
      // no .uc: scale (1, 1, 2); three = (−Y, Z, X)
      EXPECT_FLOAT_EQ(p[0], float(-raw[1]));
      EXPECT_FLOAT_EQ(p[1], float(raw[2] * 2));
      EXPECT_FLOAT_EQ(p[2], float(raw[0]));
    }
  }
  EXPECT_EQ(m.meshes[0].positions.size(), m.vertexAnimation.vertexCount * 3u);
  EXPECT_EQ(m.meshes[0].normals.size(), m.meshes[0].positions.size());
  EXPECT_TRUE(m.meshes[0].skinIndex.empty());
  EXPECT_TRUE(m.hasVertexAnimation);
}

TEST(Ue1Writer, WindingGivesPositiveVolumeAndOutwardNormals) {
  Decoded r = decode(writeUe1Data(tetra(), 4), writeUe1Anim(tetraFrames(1, 400, 400, 200), 4, Ue1Encoding::Packed));
  ASSERT_TRUE(r.status.ok()) << r.status.error;
  EXPECT_GT(signedVolume(r.model), 0.0);
  // Vertex 0 is the corner at the origin: its normal points away from the other three.
  const Mesh& mesh = r.model.meshes[0];
  float centroid[3] = {0, 0, 0};
  for (size_t i = 0; i < mesh.positions.size(); ++i) centroid[i % 3] += mesh.positions[i];
  for (size_t r2 = 0; r2 < r.details.renderToVertex.size(); ++r2) {
    float d = 0;
    for (int k = 0; k < 3; ++k)
      d += mesh.normals[r2 * 3 + size_t(k)] *
           (mesh.positions[r2 * 3 + size_t(k)] - centroid[k] / float(r.details.renderToVertex.size()));
    EXPECT_GT(d, 0.0f) << "render vertex " << r2;
  }
}

TEST(Ue1Writer, Dx16RoundTripFullRange) {
  std::vector<int32_t> xyz = tetraFrames(2, 32767, -32768, 14000);
  Decoded r = decode(writeUe1Data(tetra(), 4, /*junkHeader=*/true), writeUe1Anim(xyz, 4, Ue1Encoding::Dx16));
  ASSERT_TRUE(r.status.ok()) << r.status.error;
  EXPECT_EQ(info(r.model, "encoding"), "dx16");
  EXPECT_TRUE(r.details.dx16);
  for (uint32_t f = 0; f < 2; ++f) {
    for (uint32_t v = 0; v < 4; ++v) {
      const int32_t* raw = &xyz[(f * 4 + v) * 3];
      const float* p = framePos(r, f, v);
      EXPECT_FLOAT_EQ(p[0], float(-raw[1]));
      EXPECT_FLOAT_EQ(p[1], float(raw[2]));  // DX guess: (1, 1, 1)
      EXPECT_FLOAT_EQ(p[2], float(raw[0]));
    }
  }
}

TEST(Ue1Writer, PackedWithFramePadding) {
  std::vector<int32_t> xyz = tetraFrames(2, 100, 200, 300);
  Decoded r = decode(writeUe1Data(tetra(), 4), writeUe1Anim(xyz, 4, Ue1Encoding::Packed, 8));
  ASSERT_TRUE(r.status.ok()) << r.status.error;
  EXPECT_EQ(info(r.model, "encoding"), "packed");
  EXPECT_EQ(r.details.frameBytesSkipped, 8u);
  EXPECT_FLOAT_EQ(framePos(r, 1, 3)[1], 300.0f / 2 * 2);
  EXPECT_FLOAT_EQ(framePos(r, 1, 1)[2], 50.0f);
}

TEST(Ue1Writer, AmbiguousFrameSizePrefersDxWithSmallPaddingAndWarns) {
  std::vector<int32_t> xyz = tetraFrames(2, 100, 200, 300);
  Decoded r = decode(writeUe1Data(tetra(), 4), writeUe1Anim(xyz, 4, Ue1Encoding::Dx16, 4));
  ASSERT_TRUE(r.status.ok()) << r.status.error;
  EXPECT_EQ(info(r.model, "encoding"), "dx16");
  EXPECT_TRUE(hasWarning(r.model, "ambiguous"));
  EXPECT_FLOAT_EQ(framePos(r, 1, 2)[0], -100.0f);
}

TEST(Ue1Writer, UvSeamsSplitVerticesButNormalsStaySmooth) {
  // A closed tetra where vertex 0 has a different UV in each triangle: 3 + 3 = 6 render vertices.
  std::vector<Ue1WriteTriangle> t = tetra();
  t[0].uv[0][0] = 10, t[1].uv[0][0] = 20, t[2].uv[0][0] = 30;
  Decoded r = decode(writeUe1Data(t, 4), writeUe1Anim(tetraFrames(2, 400, 400, 200), 4, Ue1Encoding::Packed));
  ASSERT_TRUE(r.status.ok()) << r.status.error;
  EXPECT_EQ(count(r.model, "renderVertices"), 6.0);
  EXPECT_EQ(count(r.model, "vertices"), 4.0);
  const auto& map = r.details.renderToVertex;
  const VertexAnimation& va = r.model.vertexAnimation;
  std::vector<size_t> copies;
  for (size_t i = 0; i < map.size(); ++i)
    if (map[i] == 0) copies.push_back(i);
  ASSERT_EQ(copies.size(), 3u);
  for (uint32_t f = 0; f < 2; ++f)
    for (size_t c : copies)
      for (int k = 0; k < 3; ++k) {
        EXPECT_EQ(va.normals[(f * map.size() + c) * 3 + size_t(k)],
                  va.normals[(f * map.size() + copies[0]) * 3 + size_t(k)]);
        EXPECT_EQ(va.frames[(f * map.size() + c) * 3 + size_t(k)],
                  va.frames[(f * map.size() + copies[0]) * 3 + size_t(k)]);
      }
  // UVs: (U/256, 1 − V/256)
  const auto& uv = r.model.meshes[0].uvs[0];
  std::vector<float> us;
  for (size_t c : copies) us.push_back(uv[c * 2]);
  std::sort(us.begin(), us.end());
  EXPECT_FLOAT_EQ(us[0], 10.0f / 256);
  EXPECT_FLOAT_EQ(us[2], 30.0f / 256);
  EXPECT_FLOAT_EQ(uv[copies[0] * 2 + 1], 1.0f - 200.0f / 256);
}

TEST(Ue1Writer, MaterialsTypesFlagsAndWeaponAttachment) {
  // The dx_box fixture layout: a weapon triangle on vertices 4, 5, 6 beside a tetra.
  std::vector<Ue1WriteTriangle> t = tetra();
  t[0].type = 2 | 0x10;  // translucent unlit
  t[1].type = 3;         // masked
  t[1].textureNum = 1;
  t[2].type = 4 | 0x20 | 0x40;  // modulated flat environment
  t[3].type = 9;                // Epic: no match -> normal, visible
  Ue1WriteTriangle w;
  w.type = 8;
  w.v[0] = 4, w.v[1] = 5, w.v[2] = 6;
  t.push_back(w);
  std::vector<int32_t> xyz = {0, 0, 0, 400, 0, 0, 0, 400, 0, 0, 0, 200, 350, -20, 0, 450, 0, 0, 350, 20, 0};
  std::string uc = UcBuilder().meshImport("thing", "thing_a.3d", "thing_d.3d").scale("thing", 1, 1, 1).str();
  Decoded r = decode(writeUe1Data(t, 7), writeUe1Anim(xyz, 7, Ue1Encoding::Packed), uc);
  ASSERT_TRUE(r.status.ok()) << r.status.error;
  const Model& m = r.model;
  // Type bytes 3, 8, 9, 18 (2|0x10), 100 (4|0x20|0x40) in words, by type byte.
  EXPECT_EQ(info(m, "types"),
            "masked ×1, weapon ×1, type 9 (drawn as normal) ×1, translucent+unlit ×1, "
            "modulated+flat+environment ×1");
  EXPECT_EQ(info(m, "textureNumbers"), "0,1");
  ASSERT_EQ(m.materials.size(), 5u);
  // sorted by texture number, then type byte (render type | flags), like Epic's appSort
  EXPECT_EQ(m.materials[0].name, "tex0_normal");  // type 9: no match in Epic's code -> normal
  EXPECT_EQ(m.materials[0].blend, Blend::Opaque);
  EXPECT_FALSE(m.materials[0].twoSided);
  EXPECT_EQ(m.materials[1].name, "weapon");
  EXPECT_TRUE(m.materials[1].hidden);
  EXPECT_EQ(m.materials[2].name, "tex0_translucent_unlit");
  EXPECT_EQ(m.materials[2].blend, Blend::Translucent);
  EXPECT_TRUE(m.materials[2].unlit);
  EXPECT_TRUE(m.materials[2].twoSided);
  EXPECT_EQ(m.materials[3].name, "tex0_modulated_flat_env");
  EXPECT_EQ(m.materials[3].blend, Blend::Modulated);
  EXPECT_TRUE(m.materials[3].flat);
  EXPECT_TRUE(m.materials[3].environment);
  EXPECT_EQ(m.materials[4].name, "tex1_masked");
  EXPECT_EQ(m.materials[4].blend, Blend::Masked);
  EXPECT_TRUE(m.materials[4].twoSided);
  ASSERT_EQ(m.meshes[0].groups.size(), 5u);
  uint32_t next = 0;
  for (size_t g = 0; g < 5; ++g) {
    EXPECT_EQ(m.meshes[0].groups[g].material, g);
    EXPECT_EQ(m.meshes[0].groups[g].start, next);
    EXPECT_EQ(m.meshes[0].groups[g].count, 3u);
    next += 3;
  }
  // Weapon frame (§2.4): M = (v0 + v2)/2 = (350, 0, 0), X = +X, Y = X × (v0 − v2) = −Z, Z = Y × X = −Y
  // (Unreal). In three (−Y, Z, X): origin (0, 0, 350), axes X→(0,0,1), Y→(0,−1,0), Z→(1,0,0):
  // a half turn about (1, 0, 1)/√2.
  ASSERT_EQ(m.attachments.size(), 1u);
  const Attachment& a = m.attachments[0];
  EXPECT_EQ(a.name, "weapon");
  EXPECT_EQ(a.bone, -1);
  EXPECT_NEAR(a.translation[0], 0, 1e-5);
  EXPECT_NEAR(a.translation[1], 0, 1e-5);
  EXPECT_NEAR(a.translation[2], 350, 1e-4);
  const float s = std::sqrt(0.5f);
  float sign = a.rotation[0] < 0 ? -1.0f : 1.0f;
  EXPECT_NEAR(a.rotation[0] * sign, s, 1e-5);
  EXPECT_NEAR(a.rotation[1] * sign, 0, 1e-5);
  EXPECT_NEAR(a.rotation[2] * sign, s, 1e-5);
  EXPECT_NEAR(a.rotation[3] * sign, 0, 1e-5);
  EXPECT_EQ(count(m, "polygons"), 5.0);
  EXPECT_EQ(count(m, "triangles"), 5.0);
}

TEST(Ue1Writer, UcTransformOriginRotationUnmirror) {
  // Raw vertex 1 = (100, 0, 0). ORIGIN X=50 → (50, 0, 0); SCALE 2 → (100, 0, 0); YAW=64 (90°):
  // Unreal +X turns to +Y → (0, 100, 0); three (−Y, Z, X) → (−100, 0, 0).
  std::vector<int32_t> xyz = {0, 0, 0, 100, 0, 0, 0, 100, 0, 0, 0, 100};
  std::string uc = UcBuilder()
                       .meshImport("thing", "MODELS\\thing_a.3d", "MODELS\\thing_d.3d")
                       .origin("thing", 50, 0, 0, 0, 64, 0)
                       .scale("thing", 2, 2, 2)
                       .str();
  Decoded r = decode(writeUe1Data(tetra(), 4), writeUe1Anim(xyz, 4, Ue1Encoding::Packed), uc);
  ASSERT_TRUE(r.status.ok()) << r.status.error;
  const float* p = framePos(r, 0, 1);
  EXPECT_NEAR(p[0], -100, 1e-3);
  EXPECT_NEAR(p[1], 0, 1e-3);
  EXPECT_NEAR(p[2], 0, 1e-3);
  EXPECT_GT(signedVolume(r.model), 0.0);
  EXPECT_FALSE(hasWarning(r.model, "a guess"));

  // UNMIRROR=1: X negated, winding kept outward.
  std::string uc2 = UcBuilder().meshImport("thing", "thing_a.3d", "thing_d.3d", true).scale("thing", 1, 1, 1).str();
  Decoded m2 = decode(writeUe1Data(tetra(), 4), writeUe1Anim(xyz, 4, Ue1Encoding::Packed), uc2);
  ASSERT_TRUE(m2.status.ok()) << m2.status.error;
  EXPECT_FLOAT_EQ(framePos(m2, 0, 1)[2], -100.0f);
  EXPECT_GT(signedVolume(m2.model), 0.0);
  EXPECT_EQ(info(m2.model, "unmirror"), "1");
}

// ---------------------------------------------------------------------------------------------
// .uc parsing

TEST(Uc, ParsesSequencesTexturesAndSkipsComments) {
  const char* text =
      "class X expands Actor;\n"
      "/* block\n #exec MESH SEQUENCE MESH=gun SEQ=Hidden STARTFRAME=0 NUMFRAMES=9\n*/\n"
      "//#exec MESH SEQUENCE MESH=gun SEQ=Commented STARTFRAME=0 NUMFRAMES=9\n"
      "#EXEC mesh import MESH=gun ANIVFILE=\"Models/Gun_a.3D\" DATAFILE=\"Models/Gun_d.3D\" x=0 unmirror=1 "
      "UNMIRRORTEX=2\n"
      "  #exec MESH ORIGIN MESH=gun X=-100 Y=0 Z=-20 YAW=64 PITCH=0 ROLL=-8\n"
      "#exec MESH SEQUENCE MESH=gun SEQ=Fire STARTFRAME=10 NUMFRAMES=6 RATE=15 GROUP=Attack\n"
      "#exec MESH SEQUENCE MESH=gun SEQ=Still STARTFRAME=0 NUMFRAMES=1\n"
      "#exec MESH SEQUENCE MESH=GUN SEQ=fire STARTFRAME=11 NUMFRAMES=5 RATE=20\n"
      "#exec MESHMAP NEW MESHMAP=gunmap MESH=gun\n"
      "#exec MeshMap Scale MESHMAP=gunmap X=.2 Y=.2 Z=.4\n"
      "#exec TEXTURE IMPORT NAME=Skin1 FILE=Textures\\skin1.pcx GROUP=Skins FLAGS=2\n"
      "#EXEC TEXTURE IMPORT FILE=\"Textures/Weapon/crosshair.pcx\" MIPS=0 FLAGS=2\n"
      "#exec MESHMAP SETTEXTURE MESHMAP=gunmap NUM=1 TEXTURE=Skin1\n"
      "#exec AUDIO IMPORT FILE=\"Sounds\\bang.wav\" NAME=\"Bang\"\n"
      "defaultproperties\n{\n  Skin=Texture'Pkg.Skins.Base'\n  MultiSkins(2)=Texture'Pkg.Skins.Two'\n"
      "  SkinColor=3\n}\n";
  UcScript s = parseUc(text);
  ASSERT_EQ(s.meshes.size(), 1u);
  const UcMesh& m = s.meshes[0];
  EXPECT_EQ(m.name, "gun");
  EXPECT_TRUE(m.imported);
  EXPECT_TRUE(m.unmirror);
  EXPECT_EQ(m.unmirrorTex, 2);
  EXPECT_EQ(ucBaseName(m.dataFile, false), "Gun_d.3D");
  EXPECT_DOUBLE_EQ(m.origin[0], -100);
  EXPECT_DOUBLE_EQ(m.origin[2], -20);
  EXPECT_DOUBLE_EQ(m.rotation[1], 64);
  EXPECT_DOUBLE_EQ(m.rotation[2], -8);
  EXPECT_TRUE(m.hasScale);
  EXPECT_DOUBLE_EQ(m.scale[0], 0.2);
  EXPECT_DOUBLE_EQ(m.scale[2], 0.4);
  ASSERT_EQ(m.sequences.size(), 2u);
  EXPECT_EQ(m.sequences[0].name, "fire");  // repeated SEQ replaces in place
  EXPECT_DOUBLE_EQ(m.sequences[0].startFrame, 11);
  EXPECT_DOUBLE_EQ(m.sequences[0].numFrames, 5);
  EXPECT_DOUBLE_EQ(m.sequences[0].rate, 20);
  EXPECT_EQ(m.sequences[0].group, "");
  EXPECT_EQ(m.sequences[1].name, "Still");
  EXPECT_DOUBLE_EQ(m.sequences[1].rate, 30);
  ASSERT_EQ(m.textures.size(), 1u);
  EXPECT_EQ(m.textures[0].first, 1u);
  EXPECT_EQ(m.textures[0].second, "Skin1");
  ASSERT_EQ(s.textureImports.size(), 2u);
  EXPECT_EQ(s.textureImports[1].name, "crosshair");
  EXPECT_EQ(s.textureImports[1].flags, 2u);
  EXPECT_EQ(s.skin, "Pkg.Skins.Base");
  ASSERT_EQ(s.multiSkins.size(), 1u);
  EXPECT_EQ(s.multiSkins[0].first, 2u);
  EXPECT_EQ(s.multiSkins[0].second, "Pkg.Skins.Two");
  EXPECT_EQ(findUcMesh(s, "gun_d.3d", "GUN_A.3D"), 0);
  EXPECT_EQ(findUcMesh(s, "other_d.3d", "other_a.3d"), -1);
}

TEST(Uc, SequencesClampAndTexturesResolve) {
  std::vector<Ue1WriteTriangle> t = tetra();
  for (auto& x : t) x.textureNum = 1;
  t[3].textureNum = 2;
  std::string uc = UcBuilder()
                       .meshImport("thing", "thing_a.3d", "thing_d.3d")
                       .sequence("thing", "Walk", 1, 10, 12, "Moving")
                       .sequence("thing", "Past", 5, 2)
                       .sequence("thing", "Zero", 0, 0)
                       .line("#exec MESH SEQUENCE MESH=thing SEQ=Nan STARTFRAME=0 NUMFRAMES=nan RATE=-4")
                       .line("#exec MESH SEQUENCE MESH=thing SEQ=Huge STARTFRAME=0 NUMFRAMES=1e300 RATE=-4")
                       .line("#exec MESH SEQUENCE MESH=thing SEQ=Neg STARTFRAME=-5 NUMFRAMES=7 RATE=inf")
                       .textureImport("Body", "Models\\body_old.bmp", 2)
                       .textureImport("Body", "Models\\BODY.pcx")
                       .setTexture("thing", 1, "Body")
                       .multiSkin(2, "Pkg.Skins.Second")
                       .skin("Pkg.Skins.Fallback")
                       .str();
  Decoded r = decode(writeUe1Data(t, 4), writeUe1Anim(tetraFrames(3, 100, 100, 100), 4, Ue1Encoding::Packed), uc);
  ASSERT_TRUE(r.status.ok()) << r.status.error;
  const auto& seqs = r.model.vertexAnimation.sequences;
  ASSERT_EQ(seqs.size(), 3u);
  EXPECT_EQ(seqs[0].name, "Walk");
  EXPECT_EQ(seqs[0].group, "Moving");
  EXPECT_EQ(seqs[0].startFrame, 1u);
  EXPECT_EQ(seqs[0].frameCount, 2u);  // clamped to the 3 frames
  EXPECT_DOUBLE_EQ(seqs[0].rate, 12);
  EXPECT_EQ(seqs[1].name, "Huge");
  EXPECT_EQ(seqs[1].frameCount, 3u);
  EXPECT_DOUBLE_EQ(seqs[1].rate, 30);
  EXPECT_EQ(seqs[2].name, "Neg");
  EXPECT_EQ(seqs[2].startFrame, 0u);
  EXPECT_EQ(seqs[2].frameCount, 2u);
  EXPECT_TRUE(hasWarning(r.model, "Past"));
  EXPECT_TRUE(hasWarning(r.model, "not a finite number"));
  const auto& mats = r.model.materials;
  ASSERT_EQ(mats.size(), 2u);
  EXPECT_EQ(mats[0].textureNames, (std::vector<std::string>{"BODY", "body_old"}));
  EXPECT_EQ(mats[0].blend, Blend::Masked);  // FLAGS=2 on an import of that name
  EXPECT_EQ(mats[1].textureNames, (std::vector<std::string>{"Second", "Pkg.Skins.Second"}));
}

TEST(Uc, PicksTheMatchingMeshAmongSeveral) {
  std::string uc = UcBuilder()
                       .meshImport("a", "MODELS\\a_a.3d", "MODELS\\a_d.3d")
                       .meshImport("thing", "MODELS\\thing_a.3d", "MODELS\\thing_d.3d")
                       .meshImport("a", "MODELS\\a_a.3d", "MODELS\\a_d.3d")  // duplicate definition
                       .scale("a", 9, 9, 9)
                       .scale("thing", 3, 3, 3)
                       .str();
  Decoded r = decode(writeUe1Data(tetra(), 4), writeUe1Anim(tetraFrames(1, 100, 0, 0), 4, Ue1Encoding::Packed), uc);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(info(r.model, "ucMesh"), "thing");
  EXPECT_FLOAT_EQ(framePos(r, 0, 1)[2], 300.0f);
  Decoded none = decode(writeUe1Data(tetra(), 4), writeUe1Anim(tetraFrames(1, 100, 0, 0), 4, Ue1Encoding::Packed), uc,
                        "other_d.3d", "other_a.3d");
  ASSERT_TRUE(none.status.ok());
  EXPECT_TRUE(hasWarning(none.model, "none of its"));
  EXPECT_TRUE(hasWarning(none.model, "a guess"));
}

TEST(Uc, NotifiesAttachToTheirSequenceInSeconds) {
  // The builder writes a class line and a blank line first: #exec lines start at line 3.
  std::string uc = UcBuilder()
                       .meshImport("thing", "thing_a.3d", "thing_d.3d")                             // 3
                       .line("#exec mesh notify mesh=THING seq=fire time=0.5 function=SpawnShell")  // 4
                       .sequence("thing", "Fire", 0, 3, 15)                                         // 5
                       .notify("thing", "Fire", 1, "EndFire")                                       // 6
                       .notify("thing", "Fire", 0, "PlayFiring")                                    // 7
                       .sequence("thing", "Long", 1, 10)                                            // 8
                       .notify("thing", "Long", 0.5, "Step")                                        // 9
                       .notify("thing", "Reload", 0.5, "Click")                                     // 10
                       .notify("thing", "Fire", 1.5, "Late")                                        // 11
                       .line("#exec MESH NOTIFY MESH=thing SEQ=Fire TIME=0.2")                      // 12
                       .str();

  // Parsed: attached to the sequence in file order, TIME as the fraction written, whatever the
  // case of the keys and even before the SEQUENCE line.
  UcScript script = parseUc(uc);
  ASSERT_EQ(script.meshes.size(), 1u);
  ASSERT_EQ(script.meshes[0].sequences.size(), 2u);
  const std::vector<UcNotify>& fire = script.meshes[0].sequences[0].notifies;
  ASSERT_EQ(fire.size(), 3u);
  EXPECT_EQ(fire[0].function, "SpawnShell");
  EXPECT_DOUBLE_EQ(fire[0].time, 0.5);
  EXPECT_EQ(fire[1].function, "EndFire");
  EXPECT_EQ(fire[2].function, "PlayFiring");

  // Decoded: seconds from the sequence start (TIME * frames / rate), by time.
  Decoded r = decode(writeUe1Data(tetra(), 4), writeUe1Anim(tetraFrames(3, 100, 100, 100), 4, Ue1Encoding::Packed), uc);
  ASSERT_TRUE(r.status.ok()) << r.status.error;
  const auto& seqs = r.model.vertexAnimation.sequences;
  ASSERT_EQ(seqs.size(), 2u);
  ASSERT_EQ(seqs[0].notifies.size(), 3u);
  EXPECT_EQ(seqs[0].notifies[0].name, "PlayFiring");
  EXPECT_DOUBLE_EQ(seqs[0].notifies[0].time, 0.0);
  EXPECT_EQ(seqs[0].notifies[1].name, "SpawnShell");
  EXPECT_DOUBLE_EQ(seqs[0].notifies[1].time, 0.1);  // 0.5 * 3 frames / 15 fps
  EXPECT_EQ(seqs[0].notifies[2].name, "EndFire");
  EXPECT_DOUBLE_EQ(seqs[0].notifies[2].time, 0.2);
  // "Long" declares 10 frames from frame 1 but plays the 2 the file holds, at the default 30 fps:
  // the marker stays at half of what plays.
  EXPECT_EQ(seqs[1].frameCount, 2u);
  ASSERT_EQ(seqs[1].notifies.size(), 1u);
  EXPECT_EQ(seqs[1].notifies[0].name, "Step");
  EXPECT_DOUBLE_EQ(seqs[1].notifies[0].time, 0.5 * 2 / 30);
  EXPECT_TRUE(hasWarning(r.model,
                         "Thing.uc: line 10: MESH NOTIFY names SEQ=Reload, which no MESH SEQUENCE of thing declares; "
                         "ignored"))
      << rs::test::allWarnings(r.model);
  EXPECT_TRUE(hasWarning(r.model, "Thing.uc: line 11: MESH NOTIFY TIME=1.5 is not a fraction 0..1 of the sequence"));
  EXPECT_TRUE(hasWarning(r.model, "Thing.uc: line 12: MESH NOTIFY without SEQ= and FUNCTION="));

  // Without a script the one "All" sequence has no notifies.
  Decoded bare = decode(writeUe1Data(tetra(), 4), writeUe1Anim(tetraFrames(3, 100, 100, 100), 4, Ue1Encoding::Packed));
  ASSERT_TRUE(bare.status.ok());
  EXPECT_TRUE(bare.model.vertexAnimation.sequences[0].notifies.empty());
  EXPECT_EQ(bare.model.bindBy, "script");
}

// ---------------------------------------------------------------------------------------------
// PCX

TEST(Pcx, Palettised8RoundTripAndMask) {
  std::vector<uint8_t> pix(33 * 5);  // odd width: BytesPerLine padding
  for (size_t i = 0; i < pix.size(); ++i) pix[i] = uint8_t(i % 7 == 0 ? 0 : (i / 33) * 50 + 200 * (i % 2));
  std::vector<uint8_t> pal(768);
  for (size_t i = 0; i < 768; ++i) pal[i] = uint8_t(i * 7);
  std::vector<uint8_t> bytes = writePcx8(33, 5, pix, pal);
  Model m;
  Status s = decodePcx(bytes.data(), bytes.size(), "Models/thing.pcx", true, m);
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(m.format, "pcx");
  ASSERT_EQ(m.textures.size(), 1u);
  const Texture& t = m.textures[0];
  EXPECT_EQ(t.name, "thing");
  EXPECT_EQ(t.width, 33u);
  EXPECT_EQ(t.height, 5u);
  EXPECT_EQ(t.format, "rgba8");
  for (size_t i = 0; i < pix.size(); ++i) {
    const uint8_t* o = &t.mips[0][i * 4];
    EXPECT_EQ(o[0], pal[pix[i] * 3u]);
    EXPECT_EQ(o[2], pal[pix[i] * 3u + 2]);
    EXPECT_EQ(o[3], pix[i] == 0 ? 0 : 255);
  }
  Model unmasked;
  ASSERT_TRUE(decodePcx(bytes.data(), bytes.size(), "t.pcx", false, unmasked).ok());
  EXPECT_EQ(unmasked.textures[0].mips[0][3], 255);
}

TEST(Pcx, Rgb24ThreePlanes) {
  std::vector<uint8_t> rgb(6 * 3 * 3);
  for (size_t i = 0; i < rgb.size(); ++i) rgb[i] = uint8_t(i * 13);
  std::vector<uint8_t> bytes = writePcx24(6, 3, rgb);
  Model m;
  ASSERT_TRUE(decodePcx(bytes.data(), bytes.size(), "x.pcx", true, m).ok());
  for (size_t p = 0; p < 18; ++p)
    for (int c = 0; c < 3; ++c) EXPECT_EQ(m.textures[0].mips[0][p * 4 + size_t(c)], rgb[p * 3 + size_t(c)]);
}

TEST(Pcx, HostileRunsAndSizes) {
  std::vector<uint8_t> pix(4 * 2, 5), pal(768, 9);
  std::vector<uint8_t> bytes = writePcx8(4, 2, pix, pal);
  // A run of 63 right at the start writes past the 8-byte image: cut, with a warning.
  std::vector<uint8_t> b = bytes;
  b[128] = 0xFF;
  b[129] = 3;
  Model m;
  ASSERT_TRUE(decodePcx(b.data(), b.size(), "x.pcx", false, m).ok());
  EXPECT_TRUE(hasWarning(m, "past the image"));
  // A 65535 x 65535 window with a few bytes of data is refused before allocating.
  b = bytes;
  b[8] = b[9] = b[10] = b[11] = 0xFF;
  b[66] = b[67] = 0xFF;
  Model m2;
  EXPECT_FALSE(decodePcx(b.data(), b.size(), "x.pcx", false, m2).ok());
  // Bad manufacturer, bad bits.
  b = bytes;
  b[0] = 0;
  Model m3;
  EXPECT_FALSE(decodePcx(b.data(), b.size(), "x.pcx", false, m3).ok());
  for (size_t n = 0; n < bytes.size(); ++n) {
    Model t;
    Status s = decodePcx(bytes.data(), n, "x.pcx", false, t);
    if (s.ok()) {
      EXPECT_FALSE(t.warnings.empty()) << n;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Hostile input

TEST(Ue1Hostile, TruncationAtEveryByte) {
  std::vector<Ue1WriteTriangle> t = tetra();
  std::vector<uint8_t> d = writeUe1Data(t, 4);
  std::vector<uint8_t> a = writeUe1Anim(tetraFrames(3, 100, 100, 100), 4, Ue1Encoding::Packed);
  std::vector<uint8_t> ad = writeUe1Anim(tetraFrames(3, 100, 100, 100), 4, Ue1Encoding::Dx16);
  for (size_t n = 0; n < d.size(); ++n) {
    std::vector<uint8_t> cut(d.begin(), d.begin() + std::ptrdiff_t(n));
    EXPECT_FALSE(decode(cut, a).status.ok()) << n;
  }
  for (const auto* anim : {&a, &ad}) {
    for (size_t n = 0; n < anim->size(); ++n) {
      std::vector<uint8_t> cut(anim->begin(), anim->begin() + std::ptrdiff_t(n));
      Decoded r = decode(d, cut);
      if (r.status.ok()) {
        EXPECT_TRUE(hasWarning(r.model, "clamped")) << n;
      }
    }
  }
  std::string uc = UcBuilder()
                       .meshImport("thing", "thing_a.3d", "thing_d.3d")
                       .sequence("thing", "A", 0, 2, 10)
                       .textureImport("T", "\"x y.pcx\"")
                       .setTexture("thing", 0, "T")
                       .skin("P.T")
                       .str();
  for (size_t n = 0; n < uc.size(); ++n) EXPECT_TRUE(decode(d, a, uc.substr(0, n)).status.ok()) << n;
}

TEST(Ue1Hostile, TruncatedFilesNameTheirCounts) {
  const std::vector<uint8_t> d = writeUe1Data(tetra(), 4);  // 48 + 4 * 16 bytes
  const std::vector<uint8_t> a = writeUe1Anim(tetraFrames(3, 100, 100, 100), 4, Ue1Encoding::Packed);  // 4 + 3 * 16
  auto cut = [](const std::vector<uint8_t>& v, size_t n) {
    return std::vector<uint8_t>(v.begin(), v.begin() + std::ptrdiff_t(n));
  };

  // An _a.3d that cannot hold one declared frame has nothing to show.
  Decoded r = decode(d, cut(a, 4 + 12), "", "foo_d.3d", "foo_a.3d");
  EXPECT_EQ(r.status.error, "UE1 foo_a.3d: NumFrames declares 3 frames of 16 bytes, 12 bytes remain (at byte 0)");
  const std::vector<uint8_t> one = writeUe1Anim(tetraFrames(1, 100, 100, 100), 4, Ue1Encoding::Packed);
  r = decode(d, cut(one, 4 + 15), "", "foo_d.3d", "foo_a.3d");
  EXPECT_EQ(r.status.error, "UE1 foo_a.3d: NumFrames declares 1 frame of 16 bytes, 15 bytes remain (at byte 0)");

  // One that holds some of its frames plays those, with a warning (spec §3.4).
  r = decode(d, cut(a, 4 + 2 * 16 + 5), "", "foo_d.3d", "foo_a.3d");
  ASSERT_TRUE(r.status.ok()) << r.status.error;
  EXPECT_EQ(r.model.vertexAnimation.frameCount, 2u);
  EXPECT_EQ(r.model.vertexAnimation.sequences[0].frameCount, 2u);
  EXPECT_TRUE(hasWarning(r.model, "foo_a.3d: NumFrames declares 3 frames of 16 bytes but the file holds 2; clamped"));

  // A _d.3d cut inside its triangles.
  r = decode(cut(d, 48 + 40), a, "", "foo_d.3d", "foo_a.3d");
  EXPECT_EQ(r.status.error,
            "UE1 foo_d.3d: NumPolys declares 4 triangles of 16 bytes after the 48-byte header, 40 bytes remain "
            "(at byte 0)");
  r = decode(cut(d, 20), a, "", "foo_d.3d", "foo_a.3d");
  EXPECT_EQ(r.status.error, "UE1 foo_d.3d: data file is 20 bytes, shorter than its 48-byte header (at byte 0)");

  // Both cut: the data file is read first.
  r = decode(cut(d, 48 + 40), cut(a, 4 + 12), "", "foo_d.3d", "foo_a.3d");
  EXPECT_EQ(r.status.error.rfind("UE1 foo_d.3d: NumPolys declares 4 triangles", 0), 0u) << r.status.error;
}

TEST(Ue1Hostile, VertexIndicesOutOfRange) {
  std::vector<Ue1WriteTriangle> t = tetra();
  t[1].v[2] = 4;
  t[2].v[0] = 65535;
  Decoded r = decode(writeUe1Data(t, 4), writeUe1Anim(tetraFrames(1, 100, 100, 100), 4, Ue1Encoding::Packed));
  ASSERT_TRUE(r.status.ok()) << r.status.error;
  EXPECT_EQ(count(r.model, "triangles"), 2.0);
  EXPECT_TRUE(hasWarning(r.model, "2 triangles with out-of-range"));
  for (auto& x : t) x.v[0] = 9;
  EXPECT_FALSE(decode(writeUe1Data(t, 4), writeUe1Anim(tetraFrames(1, 1, 1, 1), 4, Ue1Encoding::Packed)).status.ok());
}

TEST(Ue1Hostile, MismatchedVertexCountsNameBothFiles) {
  Decoded r = decode(writeUe1Data(tetra(), 10), writeUe1Anim(tetraFrames(2, 1, 1, 1), 4, Ue1Encoding::Packed), "",
                     "gun_d.3d", "other_a.3d");
  ASSERT_FALSE(r.status.ok());
  EXPECT_NE(r.status.error.find("gun_d.3d declares 10 vertices"), std::string::npos) << r.status.error;
  EXPECT_NE(r.status.error.find("other_a.3d"), std::string::npos);
  EXPECT_NE(r.status.error.find("4 packed"), std::string::npos);
}

TEST(Ue1Hostile, CountsNearTheU16Maximum) {
  // NumPolys 65535 in a file that holds 4 triangles.
  std::vector<uint8_t> d = writeUe1Data(tetra(), 4);
  std::vector<uint8_t> a = writeUe1Anim(tetraFrames(1, 1, 1, 1), 4, Ue1Encoding::Packed);
  d[0] = d[1] = 0xFF;
  Decoded r = decode(d, a);
  ASSERT_FALSE(r.status.ok());
  EXPECT_NE(r.status.error.find("65535 triangles"), std::string::npos) << r.status.error;
  // NumVertices 65535: no u16 FrameSize can hold it.
  d = writeUe1Data(tetra(), 65535);
  EXPECT_FALSE(decode(d, a).status.ok());
  // NumFrames 65535 with one frame present: clamped.
  a[0] = a[1] = 0xFF;
  r = decode(writeUe1Data(tetra(), 4), a);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.model.vertexAnimation.frameCount, 1u);
  // The largest packed mesh: 16383 vertices, 65535 triangles, 2 frames.
  std::vector<Ue1WriteTriangle> tris(65535);
  for (size_t i = 0; i < tris.size(); ++i)
    for (int k = 0; k < 3; ++k) tris[i].v[k] = uint16_t((i * 3 + size_t(k)) % 16383);
  std::vector<int32_t> xyz(size_t(16383) * 3 * 2);
  for (size_t i = 0; i < xyz.size(); ++i) xyz[i] = int32_t(i % 1000) - 500;
  r = decode(writeUe1Data(tris, 16383), writeUe1Anim(xyz, 16383, Ue1Encoding::Packed));
  ASSERT_TRUE(r.status.ok()) << r.status.error;
  EXPECT_EQ(count(r.model, "triangles"), 65535.0);
  // Three vertices, 65535 triangles with distinct UVs, 65535 frames: the frames would need
  // hundreds of GB; refused with a message instead of an allocation.
  std::vector<Ue1WriteTriangle> many(65535);
  for (size_t i = 0; i < many.size(); ++i) {
    for (int k = 0; k < 3; ++k) {
      many[i].v[k] = uint16_t(k);
      many[i].uv[k][0] = uint8_t(i);
      many[i].uv[k][1] = uint8_t(i >> 8);
    }
  }
  std::vector<uint8_t> bigAnim(4 + size_t(65535) * 12, 0);
  bigAnim[0] = bigAnim[1] = 0xFF;
  bigAnim[2] = 12;
  r = decode(writeUe1Data(many, 3), bigAnim);
  ASSERT_FALSE(r.status.ok());
  EXPECT_NE(r.status.error.find("limit"), std::string::npos) << r.status.error;
}

TEST(Ue1Hostile, AbsurdUcNumbers) {
  std::string uc =
      "#exec MESH IMPORT MESH=thing ANIVFILE=thing_a.3d DATAFILE=thing_d.3d\n"
      "#exec MESH ORIGIN MESH=thing X=nan Y=1e308 Z=-inf PITCH=1e300 YAW=NaN\n"
      "#exec MESHMAP SCALE MESHMAP=thing X=NaN Y=1 Z=1\n"
      "#exec MESHMAP SETTEXTURE MESHMAP=thing NUM=99999 TEXTURE=X\n"
      "#exec MESH SEQUENCE MESH=thing SEQ=A STARTFRAME=1e30 NUMFRAMES=4294967296 RATE=-1\n"
      "#exec MESH SEQUENCE MESH=thing SEQ= STARTFRAME=0\n"
      "#exec MESH SEQUENCE MESH=thing SEQ=B STARTFRAME=0 NUMFRAMES=99999999999 RATE=0\n"
      "#exec\n#exec MESH\n#exec MESH IMPORT\n\"unterminated\n/* unterminated";
  Decoded r = decode(writeUe1Data(tetra(), 4), writeUe1Anim(tetraFrames(2, 1, 1, 1), 4, Ue1Encoding::Packed), uc);
  ASSERT_TRUE(r.status.ok()) << r.status.error;
  const auto& seqs = r.model.vertexAnimation.sequences;
  ASSERT_EQ(seqs.size(), 1u);
  EXPECT_EQ(seqs[0].name, "B");
  EXPECT_EQ(seqs[0].frameCount, 2u);
  EXPECT_DOUBLE_EQ(seqs[0].rate, 30);
  for (float v : r.model.vertexAnimation.frames) EXPECT_TRUE(std::isfinite(v));
}

// ---------------------------------------------------------------------------------------------
// Samples (../shared/samples/vertex3d, facts from its README)

namespace {

struct SampleFacts {
  const char* pair;  // path without _d.3d / _a.3d
  const char* uc;    // relative to vertex3d/, or ""
  uint32_t polys, verts, frames;
  const char* encoding;
  const char* types;
  const char* texNums;
  double scale[3];
  const char* secondSeq;  // "" when the script has no sequences
};

// clang-format off
const SampleFacts kSamples[] = {
    {"assimp-mar_rifle/mar_rifle", "assimp-mar_rifle/mar_rifle.uc", 572, 421, 30, "packed", "normal ×572", "1", {0.1, 0.1, 0.2}, ""},
    {"firetrucks/Models/FlatSheet", "firetrucks/Classes/FlatSheet.uc", 2, 4, 1, "packed", "normal ×2", "1", {0.1, 0.1, 0.2}, "FLATSHEET"},
    {"firetrucks/Models/bottle", "firetrucks/Classes/Bottle.uc", 72, 40, 1, "packed", "normal ×34, translucent+flat ×38", "1,2", {0.015, 0.015, 0.03}, "BOTTLE"},
    {"firetrucks/Models/key", "firetrucks/Classes/Key.uc", 88, 44, 1, "packed", "normal ×88", "1", {0.01, 0.01, 0.02}, "KEY"},
    {"firetrucks/Models/tankard", "firetrucks/Classes/Tankard.uc", 92, 46, 1, "packed", "normal ×92", "1", {0.01, 0.01, 0.02}, "TANKARD"},
    {"partystuff/Models/kebab", "partystuff/Classes/kebab.uc", 412, 264, 1, "dx16", "normal ×412", "0,1", {1, 1, 1}, ""},
    {"partystuff/Models/redbull", "partystuff/Classes/redbull.uc", 28, 16, 1, "dx16", "normal ×28", "0,1,2", {1, 1, 1}, ""},
    {"partystuff/Models/sandwich", "partystuff/Classes/sandwich.uc", 62, 45, 1, "dx16", "normal ×62", "0,1", {1, 1, 1}, ""},
    {"trashbag/Models/BoozeDeco2", "trashbag/Classes/BoozeDeco2.uc", 638, 322, 1, "packed", "normal ×12, normal+environment ×626", "1,2", {0.05, 0.05, 0.1}, "GutRottingGoodness"},
    {"trashbag/Models/Hamburger01", "trashbag/Classes/Hamburger.uc", 378, 217, 1, "packed", "normal ×358, two-sided ×18, masked ×2", "1,2,3,4,5,6,7", {0.1, 0.1, 0.2}, "hamburger"},
    {"trashbag/Models/coin1", "trashbag/Classes/GoldCoins.uc", 24, 14, 1, "packed", "normal ×24", "1", {0.05, 0.05, 0.1}, "COIN1"},
    {"trashbag/Models/coin5", "trashbag/Classes/Tankards.uc", 120, 70, 1, "packed", "normal ×120", "1", {0.05, 0.05, 0.1}, "COIN5"},
    {"trashbag/Models/coin10", "trashbag/Classes/GoldCoins.uc", 120, 70, 1, "packed", "normal ×120", "1", {0.05, 0.05, 0.1}, "COIN10"},
    {"trashbag/Models/coin20", "trashbag/Classes/Tankards.uc", 120, 70, 1, "packed", "normal ×120", "1", {0.05, 0.05, 0.1}, "COIN20"},
    {"trashbag/Models/coin50", "trashbag/Classes/GoldCoins.uc", 468, 292, 1, "packed", "normal ×468", "1,2", {0.05, 0.05, 0.1}, "COIN50"},
    {"trashbag/Models/coin100", "trashbag/Classes/GoldCoins.uc", 900, 516, 1, "packed", "normal ×900", "1,2,3", {0.05, 0.05, 0.1}, "COIN100"},
    {"trashbag/Models/corndog", "trashbag/Classes/Corndog.uc", 378, 200, 1, "packed", "normal ×348, two-sided ×30", "1", {0.02, 0.02, 0.04}, "CORNDOG"},
    {"trashbag/Models/hairclip", "trashbag/Classes/Hairclip.uc", 16, 14, 1, "packed", "normal ×8, masked ×8", "1", {0.005, 0.005, 0.01}, "HAIRCLIP"},
    {"trashbag/Models/lavender", "", 351, 191, 1, "packed", "normal ×96, masked ×255", "1", {1, 1, 2}, ""},
    {"trashbag/Models/openscroll", "trashbag/Classes/OpenScroll.uc", 88, 54, 1, "packed", "normal ×80, two-sided ×8", "1,2,3,4", {0.016, 0.016, 0.032}, "OPENSCROLL"},
    {"trashbag/Models/plaque2a", "trashbag/Classes/TrashbagPlaque.uc", 92, 48, 1, "packed", "normal ×92", "1", {0.2, 0.2, 0.4}, "PLAQUE2A"},
    {"trashbag/Models/rollychair", "", 283, 168, 1, "packed", "normal ×283", "1", {1, 1, 2}, ""},
    {"trashbag/Models/scroll", "trashbag/Classes/Scroll.uc", 86, 50, 1, "packed", "normal ×82, two-sided ×4", "1", {0.01, 0.01, 0.02}, "SCROLL"},
    {"trashbag/Models/steak", "trashbag/Classes/Steak.uc", 68, 36, 1, "packed", "normal ×68", "1", {0.02, 0.02, 0.04}, "STEAK"},
    {"trashbag/Models/trashbag", "trashbag/Classes/Trashbag.uc", 116, 60, 1, "packed", "normal ×116", "1", {0.03, 0.03, 0.06}, "TRASHBAG"},
};
// clang-format on

Decoded decodeSample(const SampleFacts& s) {
  const std::string base = samplesDir() + "/" + s.pair;
  std::vector<uint8_t> d = readFile(base + "_d.3d"), a = readFile(base + "_a.3d");
  std::string uc;
  if (*s.uc) {
    std::vector<uint8_t> u = readFile(samplesDir() + "/" + s.uc);
    uc.assign(u.begin(), u.end());
  }
  std::string name = base.substr(base.find_last_of('/') + 1);
  Decoded r;
  r.status =
      decodeUe1(d.data(), d.size(), name + "_d.3d", a.data(), a.size(), name + "_a.3d", uc, s.uc, r.model, &r.details);
  return r;
}

}  // namespace

TEST(Ue1Samples, EveryPairMatchesItsDocumentedFacts) {
  if (!haveSamples()) GTEST_SKIP() << "samples not found under " << samplesDir();
  for (const SampleFacts& s : kSamples) {
    SCOPED_TRACE(s.pair);
    Decoded r = decodeSample(s);
    ASSERT_TRUE(r.status.ok()) << r.status.error;
    const Model& m = r.model;
    EXPECT_EQ(count(m, "polygons"), s.polys);
    EXPECT_EQ(count(m, "vertices"), s.verts);
    EXPECT_EQ(count(m, "frames"), s.frames);
    EXPECT_EQ(info(m, "encoding"), s.encoding);
    EXPECT_EQ(info(m, "types"), s.types);
    EXPECT_EQ(info(m, "textureNumbers"), s.texNums);
    EXPECT_EQ(info(m, "scale"), format("%g %g %g", s.scale[0], s.scale[1], s.scale[2]));
    EXPECT_EQ(hasWarning(m, "a guess"), *s.uc == 0 || std::string(s.pair).find("partystuff") == 0);
    EXPECT_EQ(m.vertexAnimation.frameCount, s.frames);
    EXPECT_EQ(m.meshes[0].positions.size(), r.details.renderToVertex.size() * 3);
    EXPECT_EQ(m.vertexAnimation.frames.size(), size_t(s.frames) * r.details.renderToVertex.size() * 3);
    EXPECT_LE(count(m, "renderVertices"), 3.0 * s.polys);
    const auto& seqs = m.vertexAnimation.sequences;
    ASSERT_FALSE(seqs.empty());
    EXPECT_EQ(seqs[0].name, "All");
    EXPECT_EQ(seqs[0].startFrame, 0u);
    EXPECT_EQ(seqs[0].frameCount, s.frames);
    EXPECT_DOUBLE_EQ(seqs[0].rate, 30);
    if (*s.secondSeq) {
      ASSERT_EQ(seqs.size(), 2u);
      EXPECT_EQ(seqs[1].name, s.secondSeq);
      EXPECT_EQ(seqs[1].frameCount, 1u);
    } else {
      EXPECT_EQ(seqs.size(), 1u);
    }
    for (float v : m.vertexAnimation.frames) ASSERT_TRUE(std::isfinite(v));
    std::printf("  %-28s render %5.0f  volume %g  warnings %zu\n", s.pair, count(m, "renderVertices"), signedVolume(m),
                m.warnings.size());
  }
}

TEST(Ue1Samples, TexturesResolveAsDocumented) {
  if (!haveSamples()) GTEST_SKIP() << "samples not found under " << samplesDir();
  auto namesOf = [](const Model& m, int texNum) {
    for (const Material& mat : m.materials)
      if (mat.name.rfind(format("tex%d_", texNum), 0) == 0) return mat.textureNames;
    return std::vector<std::string>{"<no material>"};
  };
  using V = std::vector<std::string>;
  Decoded mar = decodeSample(kSamples[0]);
  EXPECT_EQ(namesOf(mar.model, 1), (V{"texture1", "m_rifl", "Jtex1"}));
  EXPECT_EQ(mar.model.materials[0].blend, Blend::Masked);  // FLAGS=2 on the BMP import
  Decoded bottle = decodeSample(kSamples[2]);
  EXPECT_EQ(namesOf(bottle.model, 1), (V{"bottle1", "Jbottle1"}));
  EXPECT_EQ(namesOf(bottle.model, 2), (V{"Liquid8"}));  // external package: unresolvable
  bool translucentFlat = false;
  for (const Material& mat : bottle.model.materials)
    if (mat.blend == Blend::Translucent && mat.flat && mat.twoSided) translucentFlat = true;
  EXPECT_TRUE(translucentFlat);
  Decoded flat = decodeSample(kSamples[1]);
  EXPECT_TRUE(flat.model.materials[0].textureNames.empty());
  Decoded sandwich = decodeSample(kSamples[7]);
  EXPECT_EQ(namesOf(sandwich.model, 0), (V{"SandwichTex2", "PGAssets.Skins.SandwichTex2"}));
  EXPECT_EQ(namesOf(sandwich.model, 1), (V{"SandwichTex1", "PGAssets.Skins.SandwichTex1"}));
  Decoded kebab = decodeSample(kSamples[5]);
  EXPECT_EQ(namesOf(kebab.model, 1), (V{"Galvanzd", "CoreTexMetal.Metal.Galvanzd"}));
  Decoded booze = decodeSample(kSamples[8]);
  EXPECT_EQ(info(booze.model, "unmirror"), "1");
  EXPECT_EQ(namesOf(booze.model, 2), (V{"JBooze2"}));
  bool env = false;
  for (const Material& mat : booze.model.materials) env |= mat.environment;
  EXPECT_TRUE(env);
  Decoded burger = decodeSample(kSamples[9]);
  EXPECT_EQ(namesOf(burger.model, 7), (V{"burgerbunbottom", "JBBun2"}));
  Decoded coin100 = decodeSample(kSamples[15]);
  EXPECT_EQ(namesOf(coin100.model, 1), (V{"coin1001", "Jcointex2"}));
  EXPECT_EQ(namesOf(coin100.model, 3), (V{"treasure1", "Jtreasure1"}));
  Decoded hair = decodeSample(kSamples[17]);
  for (const Material& mat : hair.model.materials) EXPECT_EQ(mat.blend, Blend::Masked);
  Decoded lavender = decodeSample(kSamples[18]);
  for (const Material& mat : lavender.model.materials) EXPECT_TRUE(mat.textureNames.empty());
}

TEST(Ue1Samples, VertexAtAFrameMatchesRawBytesAndDocumentedTransform) {
  if (!haveSamples()) GTEST_SKIP() << "samples not found under " << samplesDir();
  // mar_rifle, frame 17, vertex 300: 11:11:10 decoded by masking and subtracting (not by the
  // decoder's shifts), then SCALE (0.1, 0.1, 0.2), ORIGIN 0, three = (−Y, Z, X).
  {
    Decoded r = decodeSample(kSamples[0]);
    ASSERT_TRUE(r.status.ok());
    std::vector<uint8_t> a = readFile(samplesDir() + "/assimp-mar_rifle/mar_rifle_a.3d");
    const size_t at = 4 + 17 * 1684 + 300 * 4;
    uint32_t w = uint32_t(a[at]) | uint32_t(a[at + 1]) << 8 | uint32_t(a[at + 2]) << 16 | uint32_t(a[at + 3]) << 24;
    int x = int(w & 0x7FF), y = int((w >> 11) & 0x7FF), z = int(w >> 22);
    if (x >= 1024) x -= 2048;
    if (y >= 1024) y -= 2048;
    if (z >= 512) z -= 1024;
    const float* p = framePos(r, 17, 300);
    ASSERT_NE(p, nullptr);
    EXPECT_NEAR(p[0], -y * 0.1, 1e-4);
    EXPECT_NEAR(p[1], z * 0.2, 1e-4);
    EXPECT_NEAR(p[2], x * 0.1, 1e-4);
    EXPECT_NE(framePos(r, 0, 300)[2], p[2] + 1000);  // (keeps the frames distinct in the trace)
  }
  // coin100: ORIGIN Z=-202 in raw units, before the (0.05, 0.05, 0.1) scale.
  {
    Decoded r = decodeSample(kSamples[15]);
    ASSERT_TRUE(r.status.ok());
    std::vector<uint8_t> a = readFile(samplesDir() + "/trashbag/Models/coin100_a.3d");
    const size_t at = 4 + 123 * 4;
    int32_t w =
        int32_t(uint32_t(a[at]) | uint32_t(a[at + 1]) << 8 | uint32_t(a[at + 2]) << 16 | uint32_t(a[at + 3]) << 24);
    int z = w / (1 << 22) - (w < 0 && w % (1 << 22) ? 1 : 0);  // floor division
    int y = int((uint32_t(w) >> 11) & 0x7FF);
    if (y >= 1024) y -= 2048;
    const float* p = framePos(r, 0, 123);
    EXPECT_NEAR(p[1], (z + 202) * 0.1, 1e-4);
    EXPECT_NEAR(p[0], -y * 0.05, 1e-4);
  }
  // kebab (Deus Ex 16-bit), vertex 200: int16 × 3 + pad, scale guess (1, 1, 1).
  {
    Decoded r = decodeSample(kSamples[5]);
    ASSERT_TRUE(r.status.ok());
    std::vector<uint8_t> a = readFile(samplesDir() + "/partystuff/Models/kebab_a.3d");
    const size_t at = 4 + 200 * 8;
    auto s16 = [&](size_t o) { return int(int16_t(uint16_t(a[o] | a[o + 1] << 8))); };
    const float* p = framePos(r, 0, 200);
    EXPECT_FLOAT_EQ(p[0], float(-s16(at + 2)));
    EXPECT_FLOAT_EQ(p[1], float(s16(at + 4)));
    EXPECT_FLOAT_EQ(p[2], float(s16(at)));
    EXPECT_EQ(s16(at + 6), 0);
    for (size_t i = 0; i < 264; ++i) EXPECT_LE(std::abs(s16(4 + i * 8)), 64);
  }
}

TEST(Ue1Samples, ClosedMeshesHavePositiveVolume) {
  if (!haveSamples()) GTEST_SKIP() << "samples not found under " << samplesDir();
  for (const SampleFacts& s : kSamples) {
    if (std::string(s.pair).find("FlatSheet") != std::string::npos) continue;
    SCOPED_TRACE(s.pair);
    Decoded r = decodeSample(s);
    ASSERT_TRUE(r.status.ok());
    EXPECT_GT(signedVolume(r.model), 0.0);
  }
}

TEST(Ue1Samples, UcSequenceTablesParse) {
  if (!haveSamples()) GTEST_SKIP() << "samples not found under " << samplesDir();
  std::vector<uint8_t> u = readFile(samplesDir() + "/trashbag/Classes/GoldCoins.uc");
  UcScript s = parseUc(std::string(u.begin(), u.end()));
  ASSERT_EQ(s.meshes.size(), 6u);
  int i = findUcMesh(s, "coin100_d.3d", "coin100_a.3d");
  ASSERT_GE(i, 0);
  const UcMesh& m = s.meshes[size_t(i)];
  EXPECT_EQ(m.name, "coin100");
  EXPECT_DOUBLE_EQ(m.origin[2], -202);
  EXPECT_DOUBLE_EQ(m.scale[2], 0.1);
  ASSERT_EQ(m.sequences.size(), 2u);
  EXPECT_EQ(m.sequences[1].name, "COIN100");
  EXPECT_EQ(m.textures.size(), 3u);
  u = readFile(samplesDir() + "/assimp-mar_rifle/mar_rifle.uc");
  s = parseUc(std::string(u.begin(), u.end()));
  ASSERT_EQ(s.meshes.size(), 1u);
  ASSERT_EQ(s.meshes[0].sequences.size(), 1u);  // the //#exec line is skipped
  EXPECT_DOUBLE_EQ(s.meshes[0].sequences[0].numFrames, 30);
  EXPECT_EQ(s.textureImports.size(), 2u);
  EXPECT_EQ(s.textureImports[0].flags, 2u);
}

TEST(Ue1Samples, PcxSamplesDecodeToTheirDocumentedSize) {
  if (!haveSamples()) GTEST_SKIP() << "samples not found under " << samplesDir();
  const struct {
    const char* path;
    uint32_t w, h;
  } pcx[] = {{"firetrucks/Models/bottle1.pcx", 128, 128},
             {"firetrucks/Models/key1.pcx", 128, 128},
             {"firetrucks/Models/tankard1.pcx", 128, 128},
             {"trashbag/Models/lavender1.pcx", 64, 128},
             {"trashbag/Models/scroll1.pcx", 128, 128}};
  for (const auto& p : pcx) {
    SCOPED_TRACE(p.path);
    std::vector<uint8_t> b = readFile(samplesDir() + "/" + p.path);
    Model m;
    Status st = decodePcx(b.data(), b.size(), p.path, true, m);
    ASSERT_TRUE(st.ok()) << st.error;
    EXPECT_EQ(m.textures[0].width, p.w);
    EXPECT_EQ(m.textures[0].height, p.h);
    EXPECT_TRUE(m.warnings.empty()) << m.warnings[0];
  }
  const char* all[] = {"JBooze2", "burgerbun", "burgerbunbottom", "cheeseslice", "coin11",   "onionslice",
                       "patty",   "salad",     "steak1",          "tomatoslice", "trashbag1"};
  for (const char* n : all) {
    SCOPED_TRACE(n);
    std::vector<uint8_t> b = readFile(samplesDir() + "/trashbag/Models/" + n + ".pcx");
    Model m;
    Status st = decodePcx(b.data(), b.size(), n, false, m);
    ASSERT_TRUE(st.ok()) << st.error;
    EXPECT_GE(m.textures[0].width, 64u);
    EXPECT_LE(m.textures[0].width, 256u);
    EXPECT_TRUE(m.warnings.empty()) << m.warnings[0];
  }
}
