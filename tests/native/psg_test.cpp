// Skate 3 PS3 PSG arenas: writer round trips for every vertex element type, palettes, islands,
// materials and textures; the real and synthetic samples against shared/samples/README.md; and
// damaged or foreign arenas.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "formats/psg/psg.h"
#include "writers/psg_writer.h"

#include "test_support.h"

using namespace rs;
using rs::test::countOf;
using rs::test::infoOf;

namespace {

std::vector<uint8_t> readSample(const char* rel) {
#ifdef RIGSCOPE_SAMPLES
  std::ifstream f(std::string(RIGSCOPE_SAMPLES) + "/" + rel, std::ios::binary);
  if (!f) return {};
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
#else
  (void)rel;
  return {};
#endif
}

#define SAMPLE_OR_SKIP(var, rel)              \
  std::vector<uint8_t> var = readSample(rel); \
  if (var.empty()) GTEST_SKIP() << "sample " rel " not found (RIGSCOPE_SAMPLES=../shared/samples absent)"

uint32_t be32(const std::vector<uint8_t>& b, size_t at) {
  return (uint32_t(b[at]) << 24) | (uint32_t(b[at + 1]) << 16) | (uint32_t(b[at + 2]) << 8) | b[at + 3];
}
void put32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  b[at] = uint8_t(v >> 24);
  b[at + 1] = uint8_t(v >> 16);
  b[at + 2] = uint8_t(v >> 8);
  b[at + 3] = uint8_t(v);
}
// File offset of dictionary row i, and of the object it describes (main-block objects only).
size_t rowAt(const std::vector<uint8_t>& b, uint32_t i) { return be32(b, 0x30) + 24 * size_t(i); }
size_t objectAt(const std::vector<uint8_t>& b, uint32_t i) { return be32(b, rowAt(b, i)); }

Model decode(const std::vector<uint8_t>& b, Status* status = nullptr, const char* name = "t.psg") {
  Model m;
  Status s = decodePsg(b.data(), b.size(), name, m);
  if (status)
    *status = s;
  else
    EXPECT_TRUE(s.ok()) << s.error;
  return m;
}

// The synthetic skinned quad of spec §10 (shared/samples/psg/synthetic/skinned_quad_*.psg).
PsgModelIn quadModel(bool s16) {
  PsgModelIn m;
  m.name = "fixture_skinned_quad";
  m.guid = 0x0123456789ABCDEFull;
  m.bones = {psgBone("ROOT"), psgBone("HIPS", 0, -1, 0), psgBone("SPINE", 0, -1.5f, 0)};
  m.materials = {PsgMaterialIn{{{"diffuse", 0x1122334455667788ull, ""}}}};
  PsgMeshIn q;
  q.layout = {{s16 ? psgv::S1 : psgv::F, 3, psgv::XYZ},
              {psgv::CMP, 1, psgv::NORMAL},
              {psgv::SF, 2, psgv::TEX0},
              {psgv::UB, 4, psgv::BLENDWEIGHT},
              {psgv::UB256, 4, psgv::BLENDINDICES}};
  q.positions = {-0.5f, 0, 0, 0.5f, 0, 0, -0.5f, 2, 0, 0.5f, 2, 0};
  q.normals = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
  q.uvs = {{0, 1, 1, 1, 0, 0, 1, 0}};
  q.skinWeights = {1, 0, 0, 0, 128 / 255.f, 127 / 255.f, 0, 0, 200 / 255.f, 55 / 255.f, 0, 0, 1, 0, 0, 0};
  q.skinSlots = {0, 0, 0, 0, 0, 2, 0, 0, 1, 2, 0, 0, 1, 0, 0, 0};
  q.palette = {0, 2, 1};
  q.indices = {0, 1, 2, 2, 1, 3};
  m.meshes = {q};
  return m;
}

// Weight of global bone `bone` at vertex v (0 when absent).
float weightOf(const Mesh& mesh, size_t v, int bone) {
  float w = 0;
  for (int k = 0; k < 4; ++k)
    if (mesh.skinIndex[v * 4 + k] == bone) w += mesh.skinWeight[v * 4 + k];
  return w;
}

void expectQuad(const Model& m, const char* what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(m.meshes.size(), 1u);
  const Mesh& q = m.meshes[0];
  EXPECT_EQ(m.format, "psg");
  EXPECT_EQ(m.bindBy, "guid");
  EXPECT_EQ(m.name, "fixture_skinned_quad");
  ASSERT_EQ(q.positions.size(), 12u);
  const float pos[12] = {-0.5f, 0, 0, 0.5f, 0, 0, -0.5f, 2, 0, 0.5f, 2, 0};
  for (int i = 0; i < 12; ++i) EXPECT_FLOAT_EQ(q.positions[i], pos[i]) << i;
  ASSERT_EQ(q.normals.size(), 12u);
  for (int v = 0; v < 4; ++v) {
    EXPECT_FLOAT_EQ(q.normals[v * 3 + 2], 1.0f);
    EXPECT_FLOAT_EQ(q.normals[v * 3], 0.0f);
  }
  ASSERT_EQ(q.uvs.size(), 1u);
  const float uv[8] = {0, 0, 1, 0, 0, 1, 1, 1};  // (u, 1 - v)
  for (int i = 0; i < 8; ++i) EXPECT_FLOAT_EQ(q.uvs[0][i], uv[i]) << i;
  EXPECT_EQ(q.indices, (std::vector<uint32_t>{0, 1, 2, 2, 1, 3}));
  ASSERT_EQ(q.groups.size(), 1u);
  EXPECT_EQ(q.groups[0].count, 6u);
  ASSERT_EQ(q.skinIndex.size(), 16u);
  // Palette [0, 2, 1]: slot 1 is global bone 2 (SPINE), slot 2 is global bone 1 (HIPS).
  EXPECT_FLOAT_EQ(weightOf(q, 0, 0), 1.0f);
  EXPECT_NEAR(weightOf(q, 1, 0), 128 / 255.f, 1e-6);
  EXPECT_NEAR(weightOf(q, 1, 1), 127 / 255.f, 1e-6);
  EXPECT_NEAR(weightOf(q, 2, 2), 200 / 255.f, 1e-6);
  EXPECT_NEAR(weightOf(q, 2, 1), 55 / 255.f, 1e-6);
  EXPECT_FLOAT_EQ(weightOf(q, 3, 2), 1.0f);
  ASSERT_TRUE(m.hasSkeleton);
  EXPECT_EQ(m.skeleton.names, (std::vector<std::string>{"ROOT", "HIPS", "SPINE"}));
  EXPECT_EQ(m.skeleton.parents, (std::vector<int32_t>{-1, -1, 1}));  // HIPS -> SPINE from the rig table
  const float t[9] = {0, 0, 0, 0, 1, 0, 0, 0.5f, 0};
  for (int i = 0; i < 9; ++i) EXPECT_NEAR(m.skeleton.restTranslation[i], t[i], 1e-6) << i;
  for (int b = 0; b < 3; ++b) EXPECT_FLOAT_EQ(m.skeleton.restRotation[b * 4 + 3], 1.0f);
  ASSERT_EQ(m.materials.size(), 1u);
  EXPECT_EQ(m.materials[0].guid, "1122334455667788");
  ASSERT_FALSE(m.materials[0].textureNames.empty());
  EXPECT_EQ(m.materials[0].textureNames[0], "0x1122334455667788.Texture");
  EXPECT_EQ(countOf(m, "objects"), 11);
  EXPECT_EQ(countOf(m, "bones"), 3);
  EXPECT_EQ(countOf(m, "vertices"), 4);
  EXPECT_EQ(countOf(m, "triangles"), 2);
  EXPECT_EQ(countOf(m, "islands"), 1);
}

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = uint8_t(seed + i * 7 + (i >> 8));
  return v;
}

PsgTextureIn dxtTexture(uint64_t guid, uint8_t fmt, uint16_t w, uint16_t h, uint32_t mips, bool cube = false) {
  PsgTextureIn t;
  t.guid = guid;
  t.format = fmt;
  t.width = w;
  t.height = h;
  t.cube = cube;
  for (uint32_t l = 0; l < mips; ++l)
    t.levels.push_back(pattern(psgLevelBytes(fmt, w, h, l) * (cube ? 6 : 1), uint8_t(l * 31 + fmt)));
  return t;
}

}  // namespace

// ---------------------------------------------------------------- writer round trips

TEST(PsgWriter, SkinnedQuadRoundTripsF32AndS16) {
  expectQuad(decode(writePsgModel(quadModel(false))), "f32");
  Model s16 = decode(writePsgModel(quadModel(true)));
  expectQuad(s16, "s16");
  EXPECT_NE(infoOf(s16, "fixture_skinned_quad position scale").find("0.00390625"), std::string::npos);
  EXPECT_EQ(infoOf(s16, "fixture_skinned_quad layout"),
            "XYZ S1\xC3\x97"
            "3 @0, NORMAL CMP @8, TEX0 SF\xC3\x97"
            "2 @12, BLENDWEIGHT UB\xC3\x97"
            "4 @16, "
            "BLENDINDICES UB256\xC3\x97"
            "4 @20");
}

TEST(PsgWriter, EveryElementTypeRoundTrips) {
  struct Case {
    uint8_t pos, nrm, uv, wgt, idx, col;
    float posTol, nrmTol, uvTol, wTol;
  };
  const Case cases[] = {
      {psgv::F, psgv::F, psgv::F, psgv::F, psgv::UB256, psgv::UB, 0, 1e-6f, 0, 1e-6f},
      {psgv::S1, psgv::S1, psgv::S1, psgv::UB, psgv::UB, psgv::F, 1.0f / 512, 1e-4f, 1e-4f, 1e-6f},
      {psgv::S32K, psgv::SF, psgv::SF, psgv::SF, psgv::S32K, psgv::UB, 1.0f / 512, 1e-3f, 1e-3f, 1e-3f},
      {psgv::SF, psgv::CMP, psgv::UB, psgv::S1, psgv::F, psgv::UB256, 2e-3f, 3e-3f, 3e-3f, 1e-4f},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message() << "pos " << int(c.pos) << " nrm " << int(c.nrm) << " uv " << int(c.uv));
    PsgModelIn m;
    m.name = "types";
    for (int b = 0; b < 5; ++b) m.bones.push_back(psgBone("B" + std::to_string(b), 0, -float(b), 0));
    PsgMeshIn mesh;
    mesh.layout = {{c.pos, 3, psgv::XYZ},          {c.nrm, uint8_t(c.nrm == psgv::CMP ? 1 : 3), psgv::NORMAL},
                   {c.uv, 2, psgv::TEX0},          {psgv::F, 2, psgv::TEX1},
                   {c.col, 4, psgv::COLOR0},       {c.wgt, 4, psgv::BLENDWEIGHT},
                   {c.idx, 4, psgv::BLENDINDICES}, {psgv::F, 4, psgv::TANGENT}};
    const int n = 16;
    for (int v = 0; v < n; ++v) {
      float x = -1.5f + v * 0.25f, y = float(v % 4) * 0.5f, z = 0.75f - (v % 3) * 0.5f;
      mesh.positions.insert(mesh.positions.end(), {x, y, z});
      float nx = std::cos(v * 0.4f), ny = std::sin(v * 0.4f) * 0.6f, nz = std::sin(v * 0.4f) * 0.8f;
      mesh.normals.insert(mesh.normals.end(), {nx, ny, nz});
      mesh.colors.insert(mesh.colors.end(), {uint8_t(v * 15), uint8_t(255 - v * 15), 7, 200});
      mesh.skinSlots.insert(mesh.skinSlots.end(), {uint8_t(v % 4), uint8_t((v + 1) % 4), 0, 0});
      mesh.skinWeights.insert(mesh.skinWeights.end(), {0.75f, 0.25f, 0, 0});
    }
    mesh.uvs.resize(2);
    for (int v = 0; v < n; ++v) {
      mesh.uvs[0].insert(mesh.uvs[0].end(), {v / 16.0f, 1.0f - v / 32.0f});
      mesh.uvs[1].insert(mesh.uvs[1].end(), {0.5f, v / 8.0f});
    }
    for (int v = 0; v + 2 < n; v += 3)
      mesh.indices.insert(mesh.indices.end(), {uint32_t(v), uint32_t(v + 1), uint32_t(v + 2)});
    mesh.palette = {4, 3, 2, 1};
    m.meshes = {mesh};
    Model out = decode(writePsgModel(m));
    ASSERT_EQ(out.meshes.size(), 1u);
    const Mesh& d = out.meshes[0];
    ASSERT_EQ(d.positions.size(), mesh.positions.size());
    for (size_t i = 0; i < d.positions.size(); ++i) EXPECT_NEAR(d.positions[i], mesh.positions[i], c.posTol) << i;
    ASSERT_EQ(d.normals.size(), mesh.normals.size());
    for (size_t i = 0; i < d.normals.size(); ++i) EXPECT_NEAR(d.normals[i], mesh.normals[i], c.nrmTol) << i;
    ASSERT_EQ(d.uvs.size(), 2u);
    const float uvTol = c.uv == psgv::UB ? 1.0f / 255 : c.uvTol;
    for (int v = 0; v < n; ++v) {
      EXPECT_NEAR(d.uvs[0][v * 2], mesh.uvs[0][v * 2], uvTol);
      EXPECT_NEAR(d.uvs[0][v * 2 + 1], 1.0f - mesh.uvs[0][v * 2 + 1], uvTol);
      EXPECT_FLOAT_EQ(d.uvs[1][v * 2 + 1], 1.0f - v / 8.0f);
    }
    ASSERT_EQ(d.colors.size(), size_t(n * 4));
    for (size_t i = 0; i < d.colors.size(); ++i) EXPECT_NEAR(d.colors[i], mesh.colors[i], 1) << i;
    ASSERT_EQ(d.skinIndex.size(), size_t(n * 4));
    for (int v = 0; v < n; ++v) {
      // palette {4, 3, 2, 1}: slot s -> bone 4 - s
      EXPECT_NEAR(weightOf(d, v, 4 - v % 4), 0.75f, c.wTol + 1e-3f) << v;
      EXPECT_NEAR(weightOf(d, v, 4 - (v + 1) % 4), 0.25f, c.wTol + 1e-3f) << v;
    }
    EXPECT_EQ(d.indices, mesh.indices);
  }
}

TEST(PsgWriter, MeshesIslandsMaterialsAndStaticMeshes) {
  PsgModelIn m;
  m.name = "multi";
  m.bones = {psgBone("HIPS"), psgBone("SPINE", 0, -1, 0), psgBone("SPINE1", 0, -2, 0),
             psgBone("LEFTUPLEG", -0.2f, 0, 0)};
  m.materials = {
      PsgMaterialIn{
          {{"Name", 0xAAull, "shirt_shader"}, {"specular", 0x55ull, "spec"}, {"diffuse", 0xBEEFull, "shirt_d"}}},
      PsgMaterialIn{{{"specular", 0x77ull, "only_spec"}}}};
  // Mesh 0: skinned, 3 islands, palette [3, 1].
  PsgMeshIn a;
  a.layout = {{psgv::F, 3, psgv::XYZ}, {psgv::UB, 4, psgv::BLENDWEIGHT}, {psgv::UB256, 4, psgv::BLENDINDICES}};
  for (int v = 0; v < 9; ++v) {
    a.positions.insert(a.positions.end(), {float(v), float(v % 2), 0});
    a.skinWeights.insert(a.skinWeights.end(), {1, 0, 0, 0});
    a.skinSlots.insert(a.skinSlots.end(), {uint8_t(v % 2), 0, 0, 0});
  }
  a.indices = {0, 1, 2, 3, 4, 5, 6, 7, 8, 2, 1, 0};
  a.islands = {3, 6, 3};
  a.palette = {3, 1};
  a.material = 0;
  // Mesh 1: static (no skin elements), 32-bit indices, material 1.
  PsgMeshIn b;
  b.layout = {{psgv::F, 3, psgv::XYZ}, {psgv::SF, 2, psgv::TEX0}};
  b.positions = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  b.uvs = {{0, 0, 1, 0, 0, 1}};
  b.indices = {0, 1, 2};
  b.indexSize = 4;
  b.palette = {0};
  b.material = 1;
  m.meshes = {a, b};
  Model out = decode(writePsgModel(m));
  ASSERT_EQ(out.meshes.size(), 2u);
  const Mesh& d = out.meshes[0];
  ASSERT_EQ(d.groups.size(), 3u);
  EXPECT_EQ(d.groups[1].start, 3u);
  EXPECT_EQ(d.groups[1].count, 6u);
  EXPECT_EQ(d.groups[2].start, 9u);
  EXPECT_EQ(d.indices, a.indices);
  for (int v = 0; v < 9; ++v) EXPECT_EQ(d.skinIndex[v * 4], v % 2 ? 1 : 3) << v;
  EXPECT_EQ(d.groups[0].material, 0u);
  EXPECT_TRUE(out.meshes[1].skinIndex.empty());
  EXPECT_EQ(out.meshes[1].indices, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(out.meshes[1].groups[0].material, 1u);
  ASSERT_EQ(out.materials.size(), 2u);
  EXPECT_EQ(out.materials[0].name, "shirt_shader");
  EXPECT_EQ(out.materials[0].guid, "000000000000beef");  // diffuse wins over specular
  EXPECT_EQ(out.materials[0].textureNames.back(), "shirt_d");
  EXPECT_EQ(out.materials[1].guid, "0000000000000077");  // no diffuse: first texture channel
  EXPECT_EQ(out.skeleton.parents, (std::vector<int32_t>{-1, 0, 1, 0}));
  EXPECT_NEAR(out.skeleton.restTranslation[3 * 3], 0.2f, 1e-6);  // inverse of the IBP's -0.2
  EXPECT_EQ(countOf(out, "meshes"), 2);
  EXPECT_EQ(countOf(out, "islands"), 4);
  EXPECT_EQ(countOf(out, "indices"), 15);
  EXPECT_EQ(countOf(out, "materials"), 2);
}

TEST(PsgWriter, TextureArenasRoundTrip) {
  std::vector<PsgTextureIn> in = {dxtTexture(0x1111, 0x86, 64, 32, 7), dxtTexture(0x2222, 0x88, 16, 16, 5),
                                  dxtTexture(0x3333, 0x87, 8, 8, 1), dxtTexture(0x4444, 0x86, 16, 16, 3, true)};
  // A8R8G8B8, swizzled (0x85) and linear (0xA5): RGBA in, RGBA out.
  for (uint8_t fmt : {uint8_t(0x85), uint8_t(0xA5)}) {
    PsgTextureIn t;
    t.guid = 0x5555 + fmt;
    t.format = fmt;
    t.width = 8;
    t.height = 4;
    t.levels = {pattern(8 * 4 * 4, 3), pattern(4 * 2 * 4, 9)};
    in.push_back(t);
  }
  Model out = decode(writePsgTextures(in));
  ASSERT_EQ(out.textures.size(), in.size());
  const char* formats[] = {"dxt1", "dxt5", "dxt3", "dxt1", "rgba8", "rgba8"};
  for (size_t i = 0; i < in.size(); ++i) {
    SCOPED_TRACE(i);
    const Texture& t = out.textures[i];
    EXPECT_EQ(t.format, formats[i]);
    EXPECT_EQ(t.width, in[i].width);
    EXPECT_EQ(t.height, in[i].height);
    EXPECT_EQ(t.cube, in[i].cube);
    char guid[17];
    std::snprintf(guid, sizeof guid, "%016llx", (unsigned long long)in[i].guid);
    EXPECT_EQ(t.guid, guid);
    EXPECT_EQ(t.name, "0x" + std::string(guid) + ".Texture");
    ASSERT_EQ(t.mips.size(), in[i].levels.size());
    for (size_t l = 0; l < t.mips.size(); ++l) EXPECT_EQ(t.mips[l], in[i].levels[l]) << "level " << l;
  }
  EXPECT_EQ(countOf(out, "textures"), 6);
  EXPECT_EQ(countOf(out, "meshes"), 0);
  EXPECT_NE(infoOf(out, "texture 0").find("0000000000001111 dxt1 64x32, 7 mips"), std::string::npos);
}

TEST(PsgWriter, ModelArenaWithTexturesReturnsBoth) {
  PsgModelIn m = quadModel(false);
  m.textures = {dxtTexture(0x1122334455667788ull, 0x86, 64, 64, 7)};
  Model out = decode(writePsgModel(m));
  ASSERT_EQ(out.meshes.size(), 1u);
  ASSERT_EQ(out.textures.size(), 1u);
  EXPECT_EQ(out.textures[0].guid, out.materials[0].guid);
  EXPECT_EQ(out.textures[0].mips.size(), 7u);
}

// ---------------------------------------------------------------- samples

TEST(PsgSamples, WriterReproducesSyntheticSamplesByteForByte) {
  SAMPLE_OR_SKIP(f32, "psg/synthetic/skinned_quad_f32.psg");
  SAMPLE_OR_SKIP(s16, "psg/synthetic/skinned_quad_s16.psg");
  EXPECT_EQ(writePsgModel(quadModel(false)), f32);
  EXPECT_EQ(writePsgModel(quadModel(true)), s16);
}

TEST(PsgSamples, SyntheticSkinnedQuads) {
  SAMPLE_OR_SKIP(f32, "psg/synthetic/skinned_quad_f32.psg");
  SAMPLE_OR_SKIP(s16, "psg/synthetic/skinned_quad_s16.psg");
  Model a = decode(f32, nullptr, "skinned_quad_f32.psg");
  expectQuad(a, "f32 sample");
  EXPECT_EQ(infoOf(a, "fixture_skinned_quad layout"),
            "XYZ F32\xC3\x97"
            "3 @0, NORMAL CMP @12, TEX0 SF\xC3\x97"
            "2 @16, BLENDWEIGHT UB\xC3\x97"
            "4 @20, "
            "BLENDINDICES UB256\xC3\x97"
            "4 @24");
  Model b = decode(s16, nullptr, "skinned_quad_s16.psg");
  expectQuad(b, "s16 sample");  // raw/256: x raw -128..128, y raw 0..512
}

TEST(PsgSamples, SkyboxNight) {
  SAMPLE_OR_SKIP(bytes, "psg/skybox_night.psg");
  Model m = decode(bytes, nullptr, "skybox_night.psg");
  EXPECT_EQ(countOf(m, "objects"), 12);
  EXPECT_EQ(countOf(m, "subreferences"), 4);  // the README says 3; the section holds 4 (InstanceData's is the 4th)
  EXPECT_EQ(infoOf(m, "objects"),
            "VersionData\xC3\x97"
            "1, RenderMaterialData\xC3\x97"
            "1, InstanceData\xC3\x97"
            "1, BaseResource\xC3\x97"
            "2, "
            "VertexBuffer\xC3\x97"
            "1, IndexBuffer\xC3\x97"
            "1, RenderOptiMeshData\xC3\x97"
            "1, VertexDescriptor\xC3\x97"
            "1, "
            "MeshHelper\xC3\x97"
            "1, RenderModelData\xC3\x97"
            "1, TableOfContents\xC3\x97"
            "1");
  ASSERT_EQ(m.meshes.size(), 1u);
  const Mesh& d = m.meshes[0];
  EXPECT_EQ(d.positions.size(), 230u * 3);
  EXPECT_EQ(d.indices.size(), 1140u);
  EXPECT_EQ(countOf(m, "triangles"), 380);
  ASSERT_EQ(d.groups.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(d.groups[i].start, 285u * i);
    EXPECT_EQ(d.groups[i].count, 285u);
  }
  EXPECT_TRUE(d.normals.empty());
  EXPECT_TRUE(d.skinIndex.empty());
  ASSERT_EQ(d.uvs.size(), 1u);
  float mn[3] = {1e9f, 1e9f, 1e9f}, mx[3] = {-1e9f, -1e9f, -1e9f}, umin = 9, umax = -9;
  for (size_t v = 0; v < 230; ++v) {
    for (int k = 0; k < 3; ++k) {
      mn[k] = std::min(mn[k], d.positions[v * 3 + k]);
      mx[k] = std::max(mx[k], d.positions[v * 3 + k]);
    }
    umin = std::min(umin, d.uvs[0][v * 2]);
    umax = std::max(umax, d.uvs[0][v * 2]);
  }
  EXPECT_NEAR(mn[0], -7451, 1);
  EXPECT_NEAR(mx[0], 7451, 1);
  EXPECT_NEAR(mn[1], -285, 1);
  EXPECT_NEAR(mx[1], 4472, 1);
  EXPECT_NEAR(umin, -0.40f, 0.01f);  // S1 UVs / 32767
  EXPECT_NEAR(umax, 0.60f, 0.01f);
  EXPECT_EQ(infoOf(m, "skyboxSphere layout"),
            "XYZ F32\xC3\x97"
            "3 @0, TEX0 S1\xC3\x97"
            "2 @12");
  EXPECT_EQ(m.skeleton.names, (std::vector<std::string>{"skyboxSphere"}));
  EXPECT_EQ(m.skeleton.parents, (std::vector<int32_t>{-1}));
  for (int k = 0; k < 3; ++k) EXPECT_FLOAT_EQ(m.skeleton.restTranslation[k], 0);
  EXPECT_FLOAT_EQ(m.skeleton.restRotation[3], 1);
  ASSERT_EQ(m.materials.size(), 1u);
  EXPECT_EQ(m.materials[0].name, "night_skybox_shader_0x000133ab03e38717");
  EXPECT_EQ(m.materials[0].guid, "0a950eac2dfefc7b");
  std::string channels = infoOf(m, "material 0");
  EXPECT_NE(channels.find("AttribulatorMaterialName=0000000000000000 sky.default"), std::string::npos);
  EXPECT_NE(channels.find("specular=26e564982e587b70"), std::string::npos);
  EXPECT_NE(channels.find("detail=26e51b122e587b70"), std::string::npos);

  SAMPLE_OR_SKIP(tex, "psg/skybox_textures.psg");
  Model t = decode(tex, nullptr, "skybox_textures.psg");
  EXPECT_EQ(countOf(t, "objects"), 8);
  ASSERT_EQ(t.textures.size(), 3u);
  const struct {
    const char* guid;
    uint32_t w, h;
    size_t mips;
  } want[3] = {{"0a950eac2dfefc7b", 2048, 512, 1}, {"26e51b122e587b70", 16, 16, 5}, {"26e564982e587b70", 512, 16, 1}};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(t.textures[i].guid, want[i].guid);
    EXPECT_EQ(t.textures[i].name, "0x" + std::string(want[i].guid) + ".Texture");
    EXPECT_EQ(t.textures[i].format, "dxt1");
    EXPECT_EQ(t.textures[i].width, want[i].w);
    EXPECT_EQ(t.textures[i].height, want[i].h);
    EXPECT_EQ(t.textures[i].mips.size(), want[i].mips);
  }
  EXPECT_EQ(t.textures[1].mips[4].size(), 8u);
  // Every texture GUID of the sky-dome material is in the texture arena.
  for (const char* g : {"0a950eac2dfefc7b", "26e564982e587b70", "26e51b122e587b70"}) {
    EXPECT_NE(channels.find(g), std::string::npos);
    bool found = false;
    for (auto& x : t.textures) found |= x.guid == g;
    EXPECT_TRUE(found) << g;
  }
}

TEST(PsgSamples, CasTextureIsDxt5With10Mips) {
  SAMPLE_OR_SKIP(bytes, "psg/cas_texture_0x2c7f381800171902.psg");
  Model m = decode(bytes, nullptr, "cas_texture_0x2c7f381800171902.psg");
  EXPECT_EQ(countOf(m, "objects"), 4);
  ASSERT_EQ(m.textures.size(), 1u);
  const Texture& t = m.textures[0];
  EXPECT_EQ(t.format, "dxt5");
  EXPECT_EQ(t.width, 512u);
  EXPECT_EQ(t.height, 512u);
  EXPECT_EQ(t.guid, "2c7f381800171902");
  EXPECT_EQ(t.name, "0x2c7f381800171902.Texture");
  ASSERT_EQ(t.mips.size(), 10u);
  size_t total = 0;
  for (auto& l : t.mips) total += l.size();
  EXPECT_EQ(total, 0x55570u);
  EXPECT_EQ(t.mips[0].size(), 512u * 512u);
  EXPECT_TRUE(m.warnings.empty());
}

// ---------------------------------------------------------------- damaged and foreign arenas

TEST(PsgErrors, TruncationAtEveryByte) {
  for (const std::vector<uint8_t>& full :
       {writePsgModel(quadModel(true)), writePsgTextures({dxtTexture(1, 0x86, 8, 8, 2)})}) {
    for (size_t n = 0; n < full.size(); ++n) {
      std::vector<uint8_t> cut(full.begin(), full.begin() + n);
      Model m;
      Status s = decodePsg(cut.data(), cut.size(), "cut.psg", m);
      ASSERT_FALSE(s.ok()) << n;
      EXPECT_NE(s.error.find("PSG cut.psg"), std::string::npos);
    }
  }
}

TEST(PsgErrors, ForeignPlatformsAndCompression) {
  std::vector<uint8_t> b = writePsgModel(quadModel(false));
  for (const char* tag : {"xb2", "rev", "w32"}) {
    std::vector<uint8_t> x = b;
    std::memcpy(x.data() + 4, tag, 4);
    Status s;
    decode(x, &s);
    EXPECT_NE(s.error.find("X360/Wii/PC arenas are not supported"), std::string::npos) << s.error;
    EXPECT_NE(s.error.find("at byte 4"), std::string::npos) << s.error;
  }
  std::vector<uint8_t> r = {0x10, 0xFB, 0, 1, 0};
  Status s;
  decode(r, &s);
  EXPECT_NE(s.error.find("RefPack"), std::string::npos) << s.error;
  std::vector<uint8_t> le = b;
  le[0x0C] = 0;
  decode(le, &s);
  EXPECT_NE(s.error.find("endianness"), std::string::npos) << s.error;
  std::vector<uint8_t> v = b;
  v[0x12] = '3';
  decode(v, &s);
  EXPECT_NE(s.error.find("454"), std::string::npos) << s.error;
}

TEST(PsgErrors, SizeSumMustMatch) {
  std::vector<uint8_t> b = writePsgModel(quadModel(false));
  b.push_back(0);
  Status s;
  decode(b, &s);
  EXPECT_NE(s.error.find("add up to 1756 bytes"), std::string::npos) << s.error;
  EXPECT_NE(s.error.find("file has 1757"), std::string::npos) << s.error;
}

TEST(PsgErrors, DictionaryRowsOutsideTheFile) {
  const std::vector<uint8_t> b = writePsgModel(quadModel(false));
  Status s;
  {  // object row (RenderModelData, row 9) pointing past the main block
    std::vector<uint8_t> x = b;
    put32(x, rowAt(x, 9), 0x7FFFFFF0);
    decode(x, &s);
    EXPECT_NE(s.error.find("dictionary row 9"), std::string::npos) << s.error;
  }
  {  // base resource (row 2) larger than the graphics block
    std::vector<uint8_t> x = b;
    put32(x, rowAt(x, 2) + 8, 0x1000);
    decode(x, &s);
    EXPECT_NE(s.error.find("outside resource block 5"), std::string::npos) << s.error;
  }
  {  // typeId disagreeing with the types list
    std::vector<uint8_t> x = b;
    put32(x, rowAt(x, 3) + 20, 0x000200EB);
    decode(x, &s);
    EXPECT_NE(s.error.find("differs from types"), std::string::npos) << s.error;
  }
}

TEST(PsgErrors, AbsurdCounts) {
  const std::vector<uint8_t> b = writePsgModel(quadModel(false));
  Status s;
  struct Patch {
    uint32_t row;
    uint32_t at;
    uint32_t value;
    bool u16;
    const char* expect;
  };
  const Patch patches[] = {
      {9, 0x34, 0xFFFF, true, "declares 65535 bones"},
      {9, 0x32, 0x4000, true, "declares 16384 meshes"},
      {6, 0x38, 0x10000000, false, "islands"},
      {6, 0x48, 0x7FFFFFFF, false, "remap indices"},
      {7, 0x0A, 200, true, "200 elements"},
      {5, 0x08, 0x40000000, false, "IndexBuffer declares"},
      {3, 0x08, 0x40000000, false, "VertexBuffer declares"},
      {1, 0x00, 0x7FFFFFFF, false, "materials"},
      {10, 0x00, 0x0FFFFFFF, false, "TableOfContents declares"},
  };
  for (const Patch& p : patches) {
    std::vector<uint8_t> x = b;
    size_t at = objectAt(x, p.row) + p.at;
    if (p.u16) {
      x[at] = uint8_t(p.value >> 8);
      x[at + 1] = uint8_t(p.value);
    } else {
      put32(x, at, p.value);
    }
    decode(x, &s);
    EXPECT_NE(s.error.find(p.expect), std::string::npos) << p.expect << ": " << s.error;
  }
  std::vector<uint8_t> x = b;
  put32(x, 0x20, 0x10000000);
  put32(x, 0x24, 0x10000000);
  decode(x, &s);
  EXPECT_NE(s.error.find("dictionary declares 268435456 rows"), std::string::npos) << s.error;
}

TEST(PsgErrors, ReferencesOutOfRangeAndCycles) {
  const std::vector<uint8_t> b = writePsgModel(quadModel(false));
  const size_t opti = objectAt(b, 6);
  Status s;
  struct Patch {
    size_t at;
    uint32_t value;
    const char* expect;
  };
  const Patch patches[] = {
      {opti + 0x34, 99, "refers to dictionary row 99"},
      {opti + 0x34, 6, "of type RenderOptiMeshData"},  // VB -> the optimesh itself
      {opti + 0x28, 0x00800009, "refers to subreference 9"},
      {opti + 0x24, 0x00C00000, "not an arena reference"},
      {objectAt(b, 3), 3, "expected a BaseResource"},              // VB's resource -> the VB itself
      {objectAt(b, 9) + 0x100, 9, "expected RenderOptiMeshData"},  // mesh table -> the model itself
      {opti + 0x60 + 8, 0x06000000, "primitive type is 6"},        // strips are rejected
      {opti + 0x60 + 4, 9, "island 0 draws indices 0..9"},
  };
  for (const Patch& p : patches) {
    std::vector<uint8_t> x = b;
    put32(x, p.at, p.value);
    decode(x, &s);
    EXPECT_NE(s.error.find(p.expect), std::string::npos) << p.expect << ": " << s.error;
  }
  std::vector<uint8_t> x = b;  // subreference record naming a missing object
  put32(x, be32(x, 0x14C + 20), 77);
  decode(x, &s);
  EXPECT_NE(s.error.find("subreference 0 points at object 77"), std::string::npos) << s.error;
}

TEST(PsgErrors, TextureMipChainMustFitThePayload) {
  std::vector<uint8_t> b = writePsgTextures({dxtTexture(1, 0x88, 16, 16, 3)});
  Status s;
  std::vector<uint8_t> x = b;
  x[objectAt(x, 1) + 1] = 5;  // 5 mips, payload holds 3
  decode(x, &s);
  EXPECT_NE(s.error.find("needs 368 bytes"), std::string::npos) << s.error;
  x = b;
  x[objectAt(x, 1) + 1] = 9;  // more mips than a 16x16 image has
  decode(x, &s);
  EXPECT_NE(s.error.find("declares 9 mips"), std::string::npos) << s.error;
  x = b;
  x[objectAt(x, 1)] = 0x81;  // unsupported format: skipped with a warning, arena has nothing else
  Model m = decode(x, &s);
  EXPECT_TRUE(s.ok()) << s.error;
  EXPECT_TRUE(m.textures.empty());
  ASSERT_FALSE(m.warnings.empty());
  EXPECT_NE(m.warnings[0].find("0x81"), std::string::npos);
}
