// 0 A.D. PMD (v1-v4) and PSA (PSSA): writer round trips, the real samples against their README
// facts, skinning at a frame, and hostile input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "formats/zeroad/pmd.h"
#include "formats/zeroad/pssa.h"
#include "io/bytes.h"
#include "writers/zeroad_writer.h"

#include "test_support.h"

using namespace rs;
using rs::test::allWarnings;
using rs::test::countOf;
using rs::test::hasWarning;

namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();

Model pmd(const std::vector<uint8_t>& b, const char* name = "t.pmd") {
  Model m;
  Status s = decodePmd(b.data(), b.size(), name, m);
  EXPECT_TRUE(s.ok()) << s.error;
  return m;
}

Model pssa(const std::vector<uint8_t>& b, const char* name = "t.psa") {
  Model m;
  Status s = decodePssa(b.data(), b.size(), name, m);
  EXPECT_TRUE(s.ok()) << s.error;
  return m;
}

std::vector<uint8_t> readFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return {};
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// --- Independent maths for the checks (column vectors, 3x4 rigid matrices). ---
struct M34 {
  double m[3][4];
};
M34 compose(const float* t, const float* q) {
  const double x = q[0], y = q[1], z = q[2], w = q[3];
  M34 r = {{{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y), t[0]},
            {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x), t[1]},
            {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y), t[2]}}};
  return r;
}
M34 inverseRigid(const M34& a) {
  M34 r;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) r.m[i][j] = a.m[j][i];
    r.m[i][3] = -(a.m[0][i] * a.m[0][3] + a.m[1][i] * a.m[1][3] + a.m[2][i] * a.m[2][3]);
  }
  return r;
}
M34 mul(const M34& a, const M34& b) {
  M34 r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      r.m[i][j] = a.m[i][0] * b.m[0][j] + a.m[i][1] * b.m[1][j] + a.m[i][2] * b.m[2][j] + (j == 3 ? a.m[i][3] : 0);
    }
  return r;
}
void apply(const M34& a, const double* p, double* out) {
  for (int i = 0; i < 3; ++i) out[i] = a.m[i][0] * p[0] + a.m[i][1] * p[1] + a.m[i][2] * p[2] + a.m[i][3];
}

double signedVolume(const Mesh& me) {
  double vol = 0;
  for (size_t t = 0; t < me.indices.size(); t += 3) {
    const float* a = &me.positions[me.indices[t] * 3];
    const float* b = &me.positions[me.indices[t + 1] * 3];
    const float* c = &me.positions[me.indices[t + 2] * 3];
    vol += (double(a[0]) * (double(b[1]) * c[2] - double(b[2]) * c[1]) -
            double(a[1]) * (double(b[0]) * c[2] - double(b[2]) * c[0]) +
            double(a[2]) * (double(b[0]) * c[1] - double(b[1]) * c[0])) /
           6.0;
  }
  return vol;
}

void range(const std::vector<float>& v, int axis, float& lo, float& hi) {
  lo = std::numeric_limits<float>::max();
  hi = -lo;
  for (size_t i = axis; i < v.size(); i += 3) {
    lo = std::min(lo, v[i]);
    hi = std::max(hi, v[i]);
  }
}

int influencesOf(const Mesh& me, size_t v) {
  int n = 0;
  for (int k = 0; k < 4; ++k) n += me.skinWeight[v * 4 + k] > 0.0f;
  return n;
}

void expectSkinSane(const Mesh& me, size_t bones) {
  const size_t nv = me.positions.size() / 3;
  ASSERT_EQ(me.skinIndex.size(), nv * 4);
  ASSERT_EQ(me.skinWeight.size(), nv * 4);
  for (size_t v = 0; v < nv; ++v) {
    float sum = 0;
    for (int k = 0; k < 4; ++k) {
      EXPECT_TRUE(std::isfinite(me.skinWeight[v * 4 + k]));
      EXPECT_LT(me.skinIndex[v * 4 + k], bones);
      sum += me.skinWeight[v * 4 + k];
    }
    EXPECT_NEAR(sum, 1.0f, 1e-5f) << "vertex " << v;
  }
  for (float p : me.positions) EXPECT_TRUE(std::isfinite(p));
  for (float n : me.normals) EXPECT_TRUE(std::isfinite(n));
}

// A two-triangle v4 model with 2 bones, for targeted edits.
PmdDesc smallModel(uint32_t version = 4) {
  PmdDesc d;
  d.version = version;
  d.positions = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0.5f};
  d.normals = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
  d.uvs = {0, 0, 1, 0, 0, 1, 1, 1};
  d.blendBones = {0, 0xFF, 0xFF, 0xFF, 1, 0xFF, 0xFF, 0xFF, 0, 1, 0xFF, 0xFF, 1, 0xFF, 0xFF, 0xFF};
  d.blendWeights = {1, 0, 0, 0, 1, 0, 0, 0, 0.25f, 0.75f, 0, 0, 1, 0, 0, 0};
  d.indices = {0, 1, 2, 2, 1, 3};
  d.bones.resize(2);
  d.bones[1].translation[0] = 1;
  if (version >= 2) {
    d.props.resize(1);
    d.props[0].name = "weapon";
    d.props[0].bone = 1;
    d.props[0].translation[2] = 0.5f;
  }
  return d;
}

const std::string kSamples = std::string(RIGSCOPE_SAMPLES) + "/zeroad/";

#define NEED_SAMPLES()                             \
  if (readFile(kSamples + "skeleton.pmd").empty()) \
  GTEST_SKIP() << "samples not found at " << kSamples << " (RIGSCOPE_SAMPLES); skipping real-file checks"

Model sample(const char* rel) {
  std::vector<uint8_t> b = readFile(kSamples + rel);
  Model m;
  Status s =
      rel[std::strlen(rel) - 1] == 'd' ? decodePmd(b.data(), b.size(), rel, m) : decodePssa(b.data(), b.size(), rel, m);
  EXPECT_TRUE(s.ok()) << s.error;
  return m;
}

}  // namespace

// ---------------------------------------------------------------- writer round trips: PMD

TEST(PmdRoundTrip, V4ArmFixture) {
  const PmdDesc d = zeroadArmModel();
  Model m = pmd(writePmd(d), "dir/arm.pmd");
  EXPECT_TRUE(m.warnings.empty()) << allWarnings(m);
  EXPECT_EQ(m.format, "pmd");
  EXPECT_EQ(countOf(m, "version"), 4);
  EXPECT_EQ(countOf(m, "vertices"), 112);
  EXPECT_EQ(countOf(m, "faces"), 100);
  EXPECT_EQ(countOf(m, "triangles"), 100);
  EXPECT_EQ(countOf(m, "uvSets"), 1);
  EXPECT_EQ(countOf(m, "bones"), 3);
  EXPECT_EQ(countOf(m, "props"), 2);
  ASSERT_EQ(m.meshes.size(), 1u);
  const Mesh& me = m.meshes[0];
  ASSERT_EQ(me.positions.size(), d.positions.size());
  for (size_t i = 0; i < me.positions.size(); ++i) {
    const float expect = i % 3 == 2 ? -d.positions[i] : d.positions[i];  // z mirrored back
    EXPECT_EQ(me.positions[i], expect);
    EXPECT_EQ(me.normals[i], i % 3 == 2 ? -d.normals[i] : d.normals[i]);
  }
  ASSERT_EQ(me.uvs.size(), 1u);
  EXPECT_EQ(me.uvs[0], d.uvs);  // COLLADA v-up UVs are three's flipY convention already
  std::vector<uint32_t> idx(d.indices.begin(), d.indices.end());
  EXPECT_EQ(me.indices, idx);        // index order kept
  EXPECT_GT(signedVolume(me), 0.0);  // authored CCW-outward in three space
  EXPECT_NEAR(signedVolume(me), 3.0 * 0.5 * 0.5, 1e-5);
  ASSERT_EQ(me.groups.size(), 1u);
  EXPECT_EQ(me.groups[0].count, 300u);
  ASSERT_EQ(m.materials.size(), 1u);
  EXPECT_EQ(m.materials[0].name, "arm");
  EXPECT_EQ(m.materials[0].blend, Blend::Opaque);
  expectSkinSane(me, 3);
  for (size_t v = 0; v < 112; ++v) {
    const float x = me.positions[v * 3];
    if (x == 1.0f || x == 2.0f) {
      EXPECT_EQ(influencesOf(me, v), 2);
    } else {
      EXPECT_EQ(influencesOf(me, v), 1);
      EXPECT_EQ(me.skinIndex[v * 4], x < 1 ? 0 : x < 2 ? 1 : 2);
    }
  }
  ASSERT_TRUE(m.hasSkeleton);
  EXPECT_EQ(m.bindBy, "index");
  EXPECT_TRUE(m.skeleton.flat);
  EXPECT_EQ(m.skeleton.helper, -1);  // every vertex has a real bone: no bind-shape bone appended
  EXPECT_EQ(m.skeleton.names, (std::vector<std::string>{"bone_0", "bone_1", "bone_2"}));
  EXPECT_EQ(m.skeleton.parents, (std::vector<int32_t>{-1, -1, -1}));
  EXPECT_EQ(m.skeleton.restTranslation, (std::vector<float>{0, 0, 0, 1, 0, 0, 2, 0, 0}));
  ASSERT_EQ(m.attachments.size(), 2u);
  EXPECT_EQ(m.attachments[0].name, "prop_hand");
  EXPECT_EQ(m.attachments[0].bone, 2);
  EXPECT_FLOAT_EQ(m.attachments[0].translation[0], 1.0f);
  EXPECT_FLOAT_EQ(m.attachments[0].translation[2], -0.25f);
  EXPECT_EQ(m.attachments[1].name, "prop_head");
  EXPECT_EQ(m.attachments[1].bone, 0);
  EXPECT_FLOAT_EQ(m.attachments[1].translation[1], 0.5f);
  EXPECT_NEAR(m.attachments[1].rotation[1], -0.7071068f, 1e-6f);  // mirror rule: -x, -y, z, w
  EXPECT_NEAR(m.attachments[1].rotation[3], 0.7071068f, 1e-6f);
}

TEST(PmdRoundTrip, V4AnyUvSetCountAndMirroredRotations) {
  PmdDesc d = smallModel(4);
  d.uvSets = 3;
  d.uvs.clear();
  for (int v = 0; v < 4; ++v)
    for (int s = 0; s < 3; ++s) d.uvs.insert(d.uvs.end(), {float(v) + 0.1f * s, float(s)});
  d.bones[1].rotation[0] = 0.5f;
  d.bones[1].rotation[1] = 0.5f;
  d.bones[1].rotation[2] = 0.5f;
  d.bones[1].rotation[3] = 0.5f;
  Model m = pmd(writePmd(d));
  EXPECT_EQ(countOf(m, "uvSets"), 3);
  ASSERT_EQ(m.meshes[0].uvs.size(), 3u);
  for (int v = 0; v < 4; ++v)
    for (int s = 0; s < 3; ++s) {
      EXPECT_FLOAT_EQ(m.meshes[0].uvs[s][v * 2], float(v) + 0.1f * s);
      EXPECT_FLOAT_EQ(m.meshes[0].uvs[s][v * 2 + 1], float(s));
    }
  EXPECT_EQ(m.skeleton.restRotation, (std::vector<float>{-0.0f, -0.0f, 0, 1, -0.5f, -0.5f, 0.5f, 0.5f}));
  const Mesh& me = m.meshes[0];
  float w0 = 0, w1 = 0;
  for (int k = 0; k < 4; ++k) (me.skinIndex[8 + k] == 0 ? w0 : w1) += me.skinWeight[8 + k];
  EXPECT_FLOAT_EQ(w0, 0.25f);
  EXPECT_FLOAT_EQ(w1, 0.75f);
  EXPECT_FLOAT_EQ(m.attachments[0].translation[2], -0.5f);
}

TEST(PmdRoundTrip, V4ZeroUvSets) {
  PmdDesc d = smallModel(4);
  d.uvSets = 0;
  Model m = pmd(writePmd(d));
  EXPECT_EQ(countOf(m, "uvSets"), 0);
  EXPECT_TRUE(m.meshes[0].uvs.empty());
  EXPECT_EQ(m.meshes[0].positions.size(), 12u);
}

TEST(PmdRoundTrip, V3ModelSpaceWithProps) {
  PmdDesc d = smallModel(3);
  const std::vector<uint8_t> bytes = writePmd(d);
  EXPECT_EQ(bytes.size(), 12 + 4 + 4 * 52 + 4 + 12 + 4 + 2 * 28 + 4 + (4 + 6 + 29));
  Model m = pmd(bytes);
  EXPECT_TRUE(m.warnings.empty()) << allWarnings(m);
  EXPECT_EQ(countOf(m, "version"), 3);
  EXPECT_EQ(countOf(m, "uvSets"), 1);
  const Mesh& me = m.meshes[0];
  EXPECT_FLOAT_EQ(me.positions[9], 1);
  EXPECT_FLOAT_EQ(me.positions[11], -0.5f);
  ASSERT_EQ(m.attachments.size(), 1u);  // no implied root from v3 on
  EXPECT_EQ(m.attachments[0].name, "weapon");
  EXPECT_EQ(m.attachments[0].bone, 1);
}

// v1/v2: positions are stored relative to their bone; the decoder pre-skins with the rest pose.
TEST(PmdRoundTrip, V1BoneRelativeFixtureDecodesToModelSpace) {
  const PmdDesc d = zeroadOldV1Model();
  const std::vector<uint8_t> bytes = writePmd(d);
  EXPECT_EQ(bytes.size(), 12 + 4 + 48 * 52 + 4 + 36 * 6 + 4 + 2 * 28);  // no prop section
  Model m = pmd(bytes, "old_v1.pmd");
  EXPECT_TRUE(m.warnings.empty()) << allWarnings(m);
  EXPECT_EQ(countOf(m, "version"), 1);
  EXPECT_EQ(countOf(m, "vertices"), 48);
  EXPECT_EQ(countOf(m, "triangles"), 36);
  EXPECT_EQ(countOf(m, "props"), 0);
  ASSERT_EQ(m.attachments.size(), 1u);
  EXPECT_EQ(m.attachments[0].name, "root");
  EXPECT_EQ(m.attachments[0].bone, -1);
  // Vertices on bone 1 were written rotated (bone 1 turns 90 degrees about Y): the raw file
  // values differ from the box, the decoded ones are the box again.
  bool rawDiffers = false;
  const Mesh& me = m.meshes[0];
  float lo, hi;
  range(me.positions, 0, lo, hi);
  EXPECT_NEAR(lo, 0.0f, 1e-6f);
  EXPECT_NEAR(hi, 2.0f, 1e-6f);
  for (int axis = 1; axis < 3; ++axis) {
    range(me.positions, axis, lo, hi);
    EXPECT_NEAR(lo, -0.25f, 1e-6f);
    EXPECT_NEAR(hi, 0.25f, 1e-6f);
  }
  EXPECT_GT(signedVolume(me), 0.0);
  EXPECT_NEAR(signedVolume(me), 2.0 * 0.5 * 0.5, 1e-5);
  for (size_t v = 0; v < 48; ++v) {
    if (std::fabs(d.positions[v * 3] - me.positions[v * 3]) > 1e-3f) rawDiffers = true;
    // every normal is an axis direction of the box again
    const float* n = &me.normals[v * 3];
    EXPECT_NEAR(std::fabs(n[0]) + std::fabs(n[1]) + std::fabs(n[2]), 1.0f, 1e-5f);
  }
  EXPECT_TRUE(rawDiffers);
  expectSkinSane(me, 2);
  EXPECT_NEAR(m.skeleton.restRotation[5], -0.7071068f, 1e-6f);
}

TEST(PmdRoundTrip, V2BoneRelativeWithPropsAndImpliedRoot) {
  PmdDesc d = smallModel(2);
  // Model-space targets, bone 1 rotated 90 degrees about Z and moved; single influences only.
  d.blendBones = {0, 0xFF, 0xFF, 0xFF, 1, 0xFF, 0xFF, 0xFF, 1, 0xFF, 0xFF, 0xFF, 1, 0xFF, 0xFF, 0xFF};
  d.blendWeights = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
  d.bones[1].translation[1] = 2;
  d.bones[1].translation[2] = -1;
  d.bones[1].rotation[2] = 0.70710678f;
  d.bones[1].rotation[3] = 0.70710678f;
  const std::vector<float> target = d.positions;
  makeBoneRelative(d);
  Model m = pmd(writePmd(d));
  EXPECT_TRUE(m.warnings.empty()) << allWarnings(m);
  EXPECT_EQ(countOf(m, "version"), 2);
  const Mesh& me = m.meshes[0];
  for (size_t i = 0; i < target.size(); ++i)
    EXPECT_NEAR(me.positions[i], i % 3 == 2 ? -target[i] : target[i], 1e-5f) << i;
  for (size_t v = 0; v < 4; ++v) EXPECT_NEAR(me.normals[v * 3 + 2], -1.0f, 1e-5f);
  ASSERT_EQ(m.attachments.size(), 2u);
  EXPECT_EQ(m.attachments[0].name, "root");
  EXPECT_EQ(m.attachments[0].bone, -1);
  EXPECT_EQ(m.attachments[1].name, "weapon");
}

// The engine's v1/v2 pre-skin: p = sum w_k (T_k R_k p), raw weights; normals renormalised.
TEST(PmdRoundTrip, V1MultiInfluencePreSkinFollowsTheEngine) {
  PmdDesc d = smallModel(1);
  d.bones[1].rotation[1] = 1;  // 180 degrees about Y
  d.bones[1].rotation[3] = 0;
  d.positions[6] = 0.5f;
  d.positions[7] = 1;
  d.positions[8] = 0;
  Model m = pmd(writePmd(d));
  const Mesh& me = m.meshes[0];
  // vertex 2: 0.25 * (identity p) + 0.75 * (T(1,0,0) R_y(180) p), p = (0.5, 1, 0)
  // R_y(180) p = (-0.5, 1, 0) -> + (1,0,0) = (0.5, 1, 0). Sum = (0.5, 1, 0).
  EXPECT_NEAR(me.positions[6], 0.5f, 1e-6f);
  EXPECT_NEAR(me.positions[7], 1.0f, 1e-6f);
  // normal (0,0,1): 0.25 (0,0,1) + 0.75 (0,0,-1) = (0,0,-0.5) -> renormalised (0,0,-1) -> mirrored +1
  EXPECT_NEAR(me.normals[8], 1.0f, 1e-6f);
  // vertex 1 on bone 1: p = (1,0,0) -> R_y(180) = (-1,0,0) + (1,0,0) = (0,0,0)
  EXPECT_NEAR(me.positions[3], 0.0f, 1e-6f);
}

TEST(PmdRoundTrip, VersionFiveReadAsFourWithAWarning) {
  PmdDesc d = smallModel(4);
  d.version = 5;
  Model m = pmd(writePmd(d));
  EXPECT_EQ(countOf(m, "version"), 5);
  EXPECT_TRUE(hasWarning(m, "newer than 4"));
  EXPECT_EQ(m.attachments.size(), 1u);
}

TEST(PmdRoundTrip, StaticMeshHasNoSkeleton) {
  PmdDesc d = smallModel(4);
  d.bones.clear();
  d.props.clear();
  d.blendBones.assign(16, 0xFF);
  Model m = pmd(writePmd(d));
  EXPECT_TRUE(m.warnings.empty()) << allWarnings(m);
  EXPECT_FALSE(m.hasSkeleton);
  EXPECT_TRUE(m.meshes[0].skinIndex.empty());
  EXPECT_TRUE(m.skeleton.names.empty());
  EXPECT_FALSE(m.skeleton.flat);
  EXPECT_EQ(m.skeleton.helper, -1);
}

// ---------------------------------------------------------------- blends

TEST(PmdBlends, BindShapeIndexIsTheLastIdentityBone) {
  PmdDesc d = smallModel(4);
  d.blendBones[4] = 2;      // vertex 1 on the bind shape (== numBones)
  d.blendBones[12] = 0xFF;  // vertex 3: no influences at all -> bind shape, warned
  Model m = pmd(writePmd(d));
  ASSERT_EQ(m.skeleton.names.size(), 3u);
  EXPECT_EQ(m.skeleton.names[2], "bind shape");
  EXPECT_EQ(m.skeleton.helper, 2);
  EXPECT_TRUE(m.skeleton.flat);
  EXPECT_EQ(m.skeleton.parents[2], -1);
  EXPECT_EQ(std::vector<float>(m.skeleton.restTranslation.begin() + 6, m.skeleton.restTranslation.end()),
            (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(std::vector<float>(m.skeleton.restRotation.begin() + 8, m.skeleton.restRotation.end()),
            (std::vector<float>{0, 0, 0, 1}));
  EXPECT_EQ(countOf(m, "bones"), 2);  // the file's bones
  const Mesh& me = m.meshes[0];
  EXPECT_EQ(me.skinIndex[4], 2);
  EXPECT_FLOAT_EQ(me.skinWeight[4], 1.0f);
  EXPECT_EQ(me.skinIndex[12], 2);
  EXPECT_TRUE(hasWarning(m, "no influences"));
  expectSkinSane(me, 3);
}

TEST(PmdBlends, FirstFFEndsTheListAndZeroWeightsAreNotInfluences) {
  PmdDesc d = smallModel(4);
  d.blendBones = {1, 0xFF, 0, 0, 0, 1, 0, 0, 0, 1, 0xFF, 0xFF, 1, 0xFF, 0xFF, 0xFF};
  d.blendWeights = {1, 0, 0.5f, 0.5f, 0, 1, 0, 0, 0.25f, 0.75f, 0, 0, 1, 0, 0, 0};
  Model m = pmd(writePmd(d));
  EXPECT_TRUE(m.warnings.empty()) << allWarnings(m);
  const Mesh& me = m.meshes[0];
  EXPECT_EQ(influencesOf(me, 0), 1);  // slots after the 0xFF ignored
  EXPECT_EQ(me.skinIndex[0], 1);
  EXPECT_EQ(influencesOf(me, 1), 1);  // bone 0 with weight 0 is not an influence
  EXPECT_EQ(me.skinIndex[4], 1);
  EXPECT_FLOAT_EQ(me.skinWeight[4], 1.0f);
  EXPECT_EQ(countOf(m, "influences"), 5);
  EXPECT_EQ(m.skeleton.names.size(), 2u);  // no bind-shape bone
}

TEST(PmdBlends, ZeroWeightBlendsBindToTheirBoneWithoutCollapsing) {
  PmdDesc d = smallModel(1);  // v1: the engine would pre-skin them to the origin
  d.blendBones.assign(16, 0);
  d.blendBones[4] = 1;
  d.blendWeights.assign(16, 0.0f);
  d.bones[1].translation[0] = 3;
  Model m = pmd(writePmd(d));
  EXPECT_TRUE(hasWarning(m, "only zero-weight blends"));
  const Mesh& me = m.meshes[0];
  expectSkinSane(me, 2);
  EXPECT_EQ(me.skinIndex[4], 1);
  EXPECT_FLOAT_EQ(me.positions[3], 4.0f);  // (1,0,0) relative to bone 1 at x = 3
  EXPECT_FLOAT_EQ(me.positions[9], 1.0f);
}

TEST(PmdBlends, BadBonesWeightsAndIndicesAreWarnedAndDropped) {
  PmdDesc d = smallModel(4);
  d.blendBones[0] = 7;  // past numBones + 1
  d.blendBones[1] = 1;
  d.blendWeights[1] = 1;
  d.blendWeights[4] = -1;  // vertex 1: only a negative weight -> bound to its bone
  d.blendWeights[12] = kNaN;
  d.indices.insert(d.indices.end(), {0, 1, 9});
  d.props[0].bone = 9;
  Model m = pmd(writePmd(d));
  EXPECT_TRUE(hasWarning(m, "past the 2 bones")) << allWarnings(m);
  EXPECT_TRUE(hasWarning(m, "negative or non-finite"));
  EXPECT_TRUE(hasWarning(m, "faces index past"));
  EXPECT_TRUE(hasWarning(m, "prop points name a bone past"));
  EXPECT_EQ(countOf(m, "faces"), 3);
  EXPECT_EQ(countOf(m, "triangles"), 2);
  EXPECT_EQ(m.attachments[0].bone, -1);
  const Mesh& me = m.meshes[0];
  expectSkinSane(me, 2);
  EXPECT_EQ(me.skinIndex[0], 1);
}

// ---------------------------------------------------------------- header

TEST(PmdHeader, PayloadMismatchAndTrailingBytesWarn) {
  PmdDesc d = smallModel(4);
  d.overridePayloadSize = true;
  d.payloadSize = 5;
  std::vector<uint8_t> bytes = writePmd(d);
  bytes.push_back(0);
  Model m = pmd(bytes);
  EXPECT_TRUE(hasWarning(m, "payloadSize is 5"));
  EXPECT_TRUE(hasWarning(m, "1 bytes after the last section"));
  EXPECT_EQ(countOf(m, "vertices"), 4);
}

TEST(PmdHeader, BadMagicVersionZeroAndShortFiles) {
  std::vector<uint8_t> bytes = writePmd(smallModel(4));
  Model m;
  std::vector<uint8_t> bad = bytes;
  bad[0] = 'X';
  EXPECT_NE(decodePmd(bad.data(), bad.size(), "x.pmd", m).error.find("magic is not PSMD"), std::string::npos);
  bad = bytes;
  bad[4] = 0;
  Status s = decodePmd(bad.data(), bad.size(), "x.pmd", m);
  EXPECT_NE(s.error.find("version 0"), std::string::npos) << s.error;
  EXPECT_FALSE(decodePmd(bytes.data(), 5, "x.pmd", m).ok());
  EXPECT_FALSE(decodePmd(nullptr, 0, "x.pmd", m).ok());
}

// ---------------------------------------------------------------- PSSA

TEST(PssaRoundTrip, ArmWaveFixture) {
  const PssaDesc d = zeroadArmWave();
  Model m = pssa(writePssa(d), "arm_wave.psa");
  EXPECT_TRUE(m.warnings.empty()) << allWarnings(m);
  EXPECT_EQ(m.format, "pssa");
  EXPECT_EQ(m.bindBy, "index");
  EXPECT_EQ(countOf(m, "bones"), 3);
  EXPECT_EQ(countOf(m, "frames"), 20);
  EXPECT_NEAR(countOf(m, "frameLengthMs"), 33.3, 1e-4);
  ASSERT_EQ(m.clips.size(), 1u);
  const Clip& c = m.clips[0];
  EXPECT_EQ(c.name, "arm_wave");
  EXPECT_EQ(c.frameCount, 20u);
  EXPECT_TRUE(c.loop);
  EXPECT_TRUE(c.notifies.empty());
  EXPECT_NEAR(c.duration, 0.666, 1e-6);
  EXPECT_NEAR(c.fps, 1000.0 / 33.3, 1e-4);
  ASSERT_EQ(c.tracks.size(), 3u);
  for (int b = 0; b < 3; ++b) {
    const Track& t = c.tracks[b];
    EXPECT_EQ(t.bone, b);
    ASSERT_EQ(t.times.size(), 20u);  // exactly the file's frames; the loop period is the duration
    EXPECT_NEAR(t.times[1], 0.0333f, 1e-6f);
    EXPECT_NEAR(t.times[19], 0.6327f, 1e-6f);
    ASSERT_EQ(t.translation.size(), 60u);
    ASSERT_EQ(t.rotation.size(), 80u);
    EXPECT_TRUE(t.scale.empty());
    EXPECT_FLOAT_EQ(t.translation[0], float(b));
  }
  const Track& t2 = c.tracks[2];
  for (int f = 0; f < 20; ++f) {
    const double half = f * 5.0 * M_PI / 360.0;
    EXPECT_NEAR(t2.rotation[f * 4 + 2], std::sin(half), 1e-6) << f;
    EXPECT_NEAR(t2.rotation[f * 4 + 3], std::cos(half), 1e-6) << f;
  }
}

TEST(PssaRoundTrip, MirrorsKeysAndMakesSignsContinuous) {
  PssaDesc d;
  d.name = "";
  d.frameLength = 40;
  d.bones = 1;
  d.frames = 3;
  d.keys.resize(3);
  const float q[3][4] = {{0.1f, 0.2f, 0.3f, 0.927362f}, {-0.1f, -0.2f, -0.3f, -0.927362f}, {0, 0, 0, 1}};
  for (int f = 0; f < 3; ++f) {
    std::memcpy(d.keys[f].rotation, q[f], sizeof q[f]);
    d.keys[f].translation[2] = float(f + 1);
  }
  Model m = pssa(writePssa(d), "dir/walk.psa");
  const Clip& c = m.clips[0];
  EXPECT_EQ(c.name, "walk");  // empty name field -> file name
  EXPECT_NEAR(c.duration, 0.12, 1e-9);
  const Track& t = c.tracks[0];
  EXPECT_FLOAT_EQ(t.translation[2], -1.0f);
  EXPECT_FLOAT_EQ(t.translation[5], -2.0f);
  EXPECT_NEAR(t.rotation[0], -0.1f, 1e-5f);  // (x, y, z, w) -> (-x, -y, z, w)
  EXPECT_NEAR(t.rotation[1], -0.2f, 1e-5f);
  EXPECT_NEAR(t.rotation[2], 0.3f, 1e-5f);
  ASSERT_EQ(t.rotation.size(), 3u * 4);
  for (size_t k = 1; k < 3; ++k) {
    const float* a = &t.rotation[(k - 1) * 4];
    const float* b = &t.rotation[k * 4];
    EXPECT_GE(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3], 0.0f) << k;
  }
}

TEST(PssaFrameLength, UnitBugZeroNegativeNaNAndZeroFrames) {
  PssaDesc d = zeroadArmBad();
  d.frameLength = 0.04f;
  Model m = pssa(writePssa(d));
  EXPECT_TRUE(hasWarning(m, "read as seconds"));
  EXPECT_NEAR(countOf(m, "frameLengthMs"), 40.0, 1e-3);
  EXPECT_NEAR(m.clips[0].duration, 0.08, 1e-6);
  for (float bad : {0.0f, -33.0f, kNaN, std::numeric_limits<float>::infinity()}) {
    d.frameLength = bad;
    Model b = pssa(writePssa(d));
    EXPECT_TRUE(hasWarning(b, "not a positive number")) << bad;
    EXPECT_NEAR(countOf(b, "frameLengthMs"), 33.333, 1e-3);
    EXPECT_TRUE(std::isfinite(b.clips[0].duration));
  }
  d.frameLength = 33;
  d.frames = 0;
  d.keys.clear();
  std::vector<uint8_t> bytes = writePssa(d);
  Model z;
  Status s = decodePssa(bytes.data(), bytes.size(), "z.psa", z);
  EXPECT_NE(s.error.find("numFrames is 0"), std::string::npos) << s.error;
}

TEST(ZeroadPairing, RefusesABoneCountMismatch) {
  Model arm = pmd(writePmd(zeroadArmModel()), "fixtures/arm.pmd");
  Model wave = pssa(writePssa(zeroadArmWave()), "fixtures/arm_wave.psa");
  Model bad = pssa(writePssa(zeroadArmBad()), "fixtures/arm_bad.psa");
  EXPECT_EQ(zeroadPairingError(arm, wave), "");
  EXPECT_EQ(zeroadPairingError(arm, bad), "animation arm_bad.psa has 4 bones, model arm.pmd has 3");
}

// The fixture wave skinned on the fixture arm: the tip centre is at (2, 1, 0) on frame 18.
TEST(ZeroadPairing, ArmWaveSkinsAsDocumented) {
  Model arm = pmd(writePmd(zeroadArmModel()));
  Model wave = pssa(writePssa(zeroadArmWave()));
  const Track& t = wave.clips[0].tracks[2];
  const M34 pose = compose(&t.translation[18 * 3], &t.rotation[18 * 4]);
  const M34 inv = inverseRigid(compose(&arm.skeleton.restTranslation[6], &arm.skeleton.restRotation[8]));
  const double tip[3] = {3, 0, 0};
  double out[3];
  apply(mul(pose, inv), tip, out);
  EXPECT_NEAR(out[0], 2.0, 1e-6);
  EXPECT_NEAR(out[1], 1.0, 1e-6);
  EXPECT_NEAR(out[2], 0.0, 1e-6);
}

// ---------------------------------------------------------------- hostile input

TEST(ZeroadHostile, TruncationAtEveryByteFails) {
  const std::vector<std::vector<uint8_t>> files = {writePmd(zeroadArmModel()), writePmd(zeroadOldV1Model()),
                                                   writePmd(smallModel(2)), writePssa(zeroadArmWave())};
  for (size_t i = 0; i < files.size(); ++i) {
    const std::vector<uint8_t>& full = files[i];
    const bool isPmd = i < 3;
    for (size_t n = 0; n < full.size(); ++n) {
      std::vector<uint8_t> cut(full.begin(), full.begin() + n);  // own buffer: ASan sees overreads
      Model m;
      Status s = isPmd ? decodePmd(cut.data(), n, "cut", m) : decodePssa(cut.data(), n, "cut", m);
      ASSERT_FALSE(s.ok()) << "file " << i << " cut at " << n;
      ASSERT_NE(s.error.find("at byte"), std::string::npos) << s.error;
    }
  }
}

TEST(ZeroadHostile, HugeCountsAreRefusedBeforeAllocating) {
  const uint32_t huge[] = {0x7FFFFFFFu, 0x80000000u, 0x80000001u, 0xFFFFFFFEu, 0xFFFFFFFFu};
  for (uint32_t n : huge) {
    for (int field = 0; field < 4; ++field) {
      PmdDesc d = smallModel(4);
      d.overrideCounts = true;
      d.numVertices = field == 0 ? n : 4;
      d.numFaces = field == 1 ? n : 2;
      d.numBones = field == 2 ? n : 2;
      d.numProps = field == 3 ? n : 1;
      std::vector<uint8_t> b = writePmd(d);
      Model m;
      Status s = decodePmd(b.data(), b.size(), "huge.pmd", m);
      EXPECT_FALSE(s.ok()) << field << " " << n;
      EXPECT_NE(s.error.find("do not fit"), std::string::npos) << s.error;
    }
    PmdDesc d = smallModel(4);
    d.uvSets = n;
    std::vector<uint8_t> b = writePmd(d);
    Model m;
    EXPECT_FALSE(decodePmd(b.data(), b.size(), "uv.pmd", m).ok());
    // nothing to read but a huge UV count: still refused
    PmdDesc e;
    e.uvSets = n;
    b = writePmd(e);
    EXPECT_FALSE(decodePmd(b.data(), b.size(), "uv0.pmd", m).ok());

    for (int field = 0; field < 3; ++field) {
      PssaDesc p = zeroadArmWave();
      p.overrideCounts = true;
      if (field == 0) p.bones = n;
      if (field == 1) p.frames = n;
      if (field == 2) p.bones = p.frames = n;
      b = writePssa(p);
      Model a;
      Status s = decodePssa(b.data(), b.size(), "huge.psa", a);
      EXPECT_FALSE(s.ok()) << field << " " << n;
    }
    // Zero bones and a huge frame count: no bytes back it, nothing may be allocated for it.
    PssaDesc p = zeroadArmWave();
    p.overrideCounts = true;
    p.bones = 0;
    p.frames = n;
    p.keys.clear();
    b = writePssa(p);
    Model a;
    Status s = decodePssa(b.data(), b.size(), "empty.psa", a);
    if (s.ok()) {
      EXPECT_TRUE(a.clips[0].tracks.empty());
      EXPECT_TRUE(hasWarning(a, "numBones is 0"));
    }
  }
  // A huge prop name length and PSA name length.
  std::vector<uint8_t> b = writePmd(smallModel(4));
  const size_t propAt = b.size() - (4 + 6 + 29);
  b[propAt] = b[propAt + 1] = b[propAt + 2] = b[propAt + 3] = 0xFF;
  Model m;
  EXPECT_FALSE(decodePmd(b.data(), b.size(), "name.pmd", m).ok());
  b = writePssa(zeroadArmWave());
  b[12] = b[13] = b[14] = b[15] = 0xFF;
  EXPECT_FALSE(decodePssa(b.data(), b.size(), "name.psa", m).ok());
}

TEST(ZeroadHostile, NaNFloatsNeverReachTheOutput) {
  PmdDesc d = smallModel(2);
  d.positions[0] = kNaN;
  d.positions[4] = std::numeric_limits<float>::infinity();
  d.normals[3] = kNaN;
  d.bones[1].rotation[0] = kNaN;
  d.bones[0].translation[1] = kNaN;
  d.props[0].translation[0] = kNaN;
  d.props[0].rotation[2] = kNaN;
  Model m = pmd(writePmd(d));
  EXPECT_TRUE(hasWarning(m, "rest bone states hold NaN"));
  EXPECT_TRUE(hasWarning(m, "vertex positions hold NaN"));
  EXPECT_TRUE(hasWarning(m, "vertex normals hold NaN"));
  EXPECT_TRUE(hasWarning(m, "1 prop points have a non-finite translation"));
  expectSkinSane(m.meshes[0], 2);
  for (float v : m.skeleton.restTranslation) EXPECT_TRUE(std::isfinite(v));
  for (float v : m.skeleton.restRotation) EXPECT_TRUE(std::isfinite(v));
  for (const Attachment& a : m.attachments) {
    for (float v : a.translation) EXPECT_TRUE(std::isfinite(v));
    for (float v : a.rotation) EXPECT_TRUE(std::isfinite(v));
  }

  PssaDesc p = zeroadArmWave();
  p.keys[0].translation[0] = kNaN;
  p.keys[5].rotation[3] = kNaN;
  p.keys[59].rotation[1] = std::numeric_limits<float>::infinity();
  Model a = pssa(writePssa(p));
  EXPECT_TRUE(hasWarning(a, "keys hold NaN"));
  for (const Track& t : a.clips[0].tracks) {
    for (float v : t.translation) EXPECT_TRUE(std::isfinite(v));
    for (float v : t.rotation) EXPECT_TRUE(std::isfinite(v));
  }
}

// ---------------------------------------------------------------- the real samples

TEST(ZeroadSamples, RichManV1IsPreSkinnedUpright) {
  NEED_SAMPLES();
  Model m = sample("rich-man.pmd");
  EXPECT_EQ(countOf(m, "version"), 1);
  EXPECT_EQ(countOf(m, "vertices"), 2628);
  EXPECT_EQ(countOf(m, "faces"), 3888);
  EXPECT_EQ(countOf(m, "triangles"), 3888);
  EXPECT_EQ(countOf(m, "uvSets"), 1);
  EXPECT_EQ(countOf(m, "bones"), 25);
  EXPECT_EQ(countOf(m, "props"), 0);
  ASSERT_EQ(m.attachments.size(), 1u);  // v1: no prop section, the engine's implied root
  EXPECT_EQ(m.attachments[0].name, "root");
  EXPECT_EQ(m.attachments[0].bone, -1);
  const Mesh& me = m.meshes[0];
  for (float uv : me.uvs[0]) EXPECT_EQ(uv, 0.0f);  // all UVs are (0, 0)
  for (size_t v = 0; v < 2628; ++v) ASSERT_EQ(influencesOf(me, v), 1) << v;
  expectSkinSane(me, 25);
  EXPECT_EQ(m.skeleton.names.size(), 25u);
  // Raw file x spans -0.4..1.3 (bone-relative); pre-skinned the figure stands y 0..4.9.
  const std::vector<uint8_t> raw = readFile(kSamples + "rich-man.pmd");
  float rlo = 1e9f, rhi = -1e9f;
  for (size_t v = 0; v < 2628; ++v) {
    const float x = load_f32le(raw.data() + 16 + v * 52);
    rlo = std::min(rlo, x);
    rhi = std::max(rhi, x);
  }
  EXPECT_NEAR(rlo, -0.4f, 0.05f);
  EXPECT_NEAR(rhi, 1.3f, 0.05f);
  float lo, hi;
  range(me.positions, 1, lo, hi);
  EXPECT_NEAR(lo, 0.0f, 0.05f);
  EXPECT_NEAR(hi, 4.9f, 0.05f);
  range(me.positions, 0, lo, hi);  // measured after conversion: x -0.96..0.41
  EXPECT_NEAR(lo, -0.96f, 0.02f);
  EXPECT_NEAR(hi, 0.41f, 0.02f);
  EXPECT_GT(signedVolume(me), 0.0);  // index order kept: outward CCW in three space
}

TEST(ZeroadSamples, SkeletonV2TPose) {
  NEED_SAMPLES();
  Model m = sample("skeleton.pmd");
  EXPECT_EQ(countOf(m, "version"), 2);
  EXPECT_EQ(countOf(m, "vertices"), 378);
  EXPECT_EQ(countOf(m, "faces"), 630);
  EXPECT_EQ(countOf(m, "uvSets"), 1);
  EXPECT_EQ(countOf(m, "bones"), 29);
  EXPECT_EQ(countOf(m, "props"), 0);
  ASSERT_EQ(m.attachments.size(), 1u);
  EXPECT_EQ(m.attachments[0].name, "root");
  const Mesh& me = m.meshes[0];
  for (size_t v = 0; v < 378; ++v) ASSERT_EQ(influencesOf(me, v), 1) << v;
  EXPECT_TRUE(hasWarning(m, "2 vertex normals hold NaN"));  // the file really has two
  expectSkinSane(me, 29);
  const std::vector<uint8_t> raw = readFile(kSamples + "skeleton.pmd");
  float rlo = 1e9f, rhi = -1e9f;
  for (size_t v = 0; v < 378; ++v) {
    const float x = load_f32le(raw.data() + 16 + v * 52);
    rlo = std::min(rlo, x);
    rhi = std::max(rhi, x);
  }
  EXPECT_NEAR(rlo, -2.0f, 0.05f);
  EXPECT_NEAR(rhi, 1.0f, 0.05f);
  float lo, hi;
  range(me.positions, 1, lo, hi);
  EXPECT_NEAR(lo, 0.0f, 0.05f);
  EXPECT_NEAR(hi, 4.1f, 0.1f);
  range(me.positions, 0, lo, hi);
  EXPECT_NEAR(lo, -1.9f, 0.05f);
  EXPECT_NEAR(hi, 1.8f, 0.05f);
  EXPECT_GT(signedVolume(me), 0.0);
}

TEST(ZeroadSamples, SyntheticCubes) {
  NEED_SAMPLES();
  struct Fact {
    const char* file;
    int bones, props;
  };
  const Fact facts[] = {{"synthetic/cube_nobones.pmd", 0, 0},
                        {"synthetic/cube_4bones.pmd", 4, 0},
                        {"synthetic/cube_5bones.pmd", 5, 0},
                        {"synthetic/cube_2bones_2props.pmd", 2, 2}};
  for (const Fact& f : facts) {
    Model m = sample(f.file);
    SCOPED_TRACE(f.file);
    EXPECT_EQ(countOf(m, "version"), 4);
    EXPECT_EQ(countOf(m, "vertices"), 8);
    EXPECT_EQ(countOf(m, "faces"), 12);
    EXPECT_EQ(countOf(m, "uvSets"), 1);
    EXPECT_EQ(countOf(m, "bones"), f.bones);
    EXPECT_EQ(countOf(m, "props"), f.props);
    EXPECT_EQ(m.hasSkeleton, f.bones > 0);
    EXPECT_NEAR(signedVolume(m.meshes[0]), 8.0, 1e-4);  // a 2x2x2 cube, outward in three space
    if (f.bones) expectSkinSane(m.meshes[0], size_t(f.bones));
  }
  Model nb = sample("synthetic/cube_nobones.pmd");
  EXPECT_TRUE(nb.meshes[0].skinIndex.empty());
  Model c4 = sample("synthetic/cube_4bones.pmd");
  for (size_t v = 0; v < 8; ++v) EXPECT_EQ(influencesOf(c4.meshes[0], v), 1);
  Model c5 = sample("synthetic/cube_5bones.pmd");
  int ones = 0, twos = 0;
  for (size_t v = 0; v < 8; ++v) (influencesOf(c5.meshes[0], v) == 1 ? ones : twos)++;
  EXPECT_EQ(ones, 4);
  EXPECT_EQ(twos, 4);

  Model p = sample("synthetic/cube_2bones_2props.pmd");
  EXPECT_TRUE(hasWarning(p, "8 vertices have only zero-weight blends"));
  const Mesh& me = p.meshes[0];
  expectSkinSane(me, 2);
  float lo, hi;
  for (int axis = 0; axis < 3; ++axis) {  // not collapsed
    range(me.positions, axis, lo, hi);
    EXPECT_FLOAT_EQ(lo, -1.0f);
    EXPECT_FLOAT_EQ(hi, 1.0f);
  }
  ASSERT_EQ(p.attachments.size(), 2u);
  EXPECT_EQ(p.attachments[0].name, "prop_weapon");
  EXPECT_EQ(p.attachments[0].bone, 0);
  EXPECT_FLOAT_EQ(p.attachments[0].translation[0], 0.5f);
  EXPECT_EQ(p.attachments[1].name, "prop_shield");
  EXPECT_EQ(p.attachments[1].bone, 1);
  EXPECT_FLOAT_EQ(p.attachments[1].translation[0], -0.5f);
  for (const Attachment& a : p.attachments) {
    EXPECT_FLOAT_EQ(a.translation[1], 0.0f);
    EXPECT_FLOAT_EQ(a.translation[2], 0.0f);
    EXPECT_FLOAT_EQ(a.rotation[3], 1.0f);
  }

  Model t = sample("synthetic/test_minimal.pmd");
  EXPECT_EQ(countOf(t, "vertices"), 3);
  EXPECT_EQ(countOf(t, "faces"), 1);
  EXPECT_EQ(countOf(t, "bones"), 2);
  for (float uv : t.meshes[0].uvs[0]) EXPECT_EQ(uv, 0.0f);
  for (size_t v = 0; v < 3; ++v) EXPECT_EQ(influencesOf(t.meshes[0], v), 1);  // zero-weight slots dropped
  expectSkinSane(t.meshes[0], 2);
}

TEST(ZeroadSamples, Animations) {
  NEED_SAMPLES();
  for (const char* f : {"rich-man_idle.psa", "skeleton_idle.psa"}) {
    Model m = sample(f);
    SCOPED_TRACE(f);
    EXPECT_TRUE(m.warnings.empty()) << allWarnings(m);
    EXPECT_EQ(countOf(m, "bones"), 29);
    EXPECT_EQ(countOf(m, "frames"), 141);
    EXPECT_EQ(countOf(m, "frameLengthMs"), 33.0);
    EXPECT_EQ(m.clips[0].name, "God Knows");
    EXPECT_NEAR(m.clips[0].duration, 4.653, 1e-9);
    EXPECT_EQ(m.clips[0].tracks.size(), 29u);
    ASSERT_EQ(m.clips[0].tracks[0].times.size(), 141u);
    EXPECT_NEAR(m.clips[0].tracks[0].times.back(), 4.62f, 1e-5f);  // frame 140 at 33 ms
  }
  const std::pair<const char*, int> synthetic[] = {
      {"synthetic/cube_4bones_anim.psa", 4}, {"synthetic/cube_5bones_anim.psa", 5}, {"synthetic/test_minimal.psa", 1}};
  for (const auto& s : synthetic) {
    Model m = sample(s.first);
    SCOPED_TRACE(s.first);
    EXPECT_EQ(countOf(m, "bones"), s.second);
    EXPECT_EQ(countOf(m, "frames"), s.second == 1 ? 1 : 10);
    EXPECT_NEAR(countOf(m, "frameLengthMs"), 33.33, 1e-3);  // 0.03333 s written as ms
    EXPECT_TRUE(hasWarning(m, "read as seconds"));
    EXPECT_EQ(m.clips[0].name, "test_anim");
  }
}

TEST(ZeroadSamples, PairsByBoneCount) {
  NEED_SAMPLES();
  EXPECT_EQ(zeroadPairingError(sample("rich-man.pmd"), sample("rich-man_idle.psa")),
            "animation rich-man_idle.psa has 29 bones, model rich-man.pmd has 25");
  EXPECT_EQ(zeroadPairingError(sample("synthetic/test_minimal.pmd"), sample("synthetic/test_minimal.psa")),
            "animation test_minimal.psa has 1 bones, model test_minimal.pmd has 2");
  EXPECT_EQ(zeroadPairingError(sample("skeleton.pmd"), sample("skeleton_idle.psa")), "");
  EXPECT_EQ(zeroadPairingError(sample("synthetic/cube_4bones.pmd"), sample("synthetic/cube_4bones_anim.psa")), "");
  EXPECT_EQ(zeroadPairingError(sample("synthetic/cube_5bones.pmd"), sample("synthetic/cube_5bones_anim.psa")), "");
}

// skeleton.pmd posed by frame 0 of skeleton_idle.psa, skinned here with independent maths
// (Pose_b * inverse(Rest_b) * p, weights summed), keeps its height with the arms down. The same
// skinning done in the file's game space from the raw bytes, then mirrored, must agree: that checks
// the quaternion mirror rule against the position mirror.
TEST(ZeroadSamples, SkeletonIdleFrameZeroSkinsUpright) {
  NEED_SAMPLES();
  Model mesh = sample("skeleton.pmd");
  Model anim = sample("skeleton_idle.psa");
  const Mesh& me = mesh.meshes[0];
  const size_t nb = 29, nv = me.positions.size() / 3;
  std::vector<M34> skin3(nb), skinGame(nb);
  const std::vector<uint8_t> rawMesh = readFile(kSamples + "skeleton.pmd");
  const std::vector<uint8_t> rawAnim = readFile(kSamples + "skeleton_idle.psa");
  const size_t restAt = 16 + 378 * 52 + 4 + 630 * 6 + 4;
  const size_t keysAt = 12 + 4 + 9 + 4 + 4 + 4;  // name "God Knows"
  for (size_t b = 0; b < nb; ++b) {
    const Track& t = anim.clips[0].tracks[b];
    skin3[b] = mul(compose(&t.translation[0], &t.rotation[0]),
                   inverseRigid(compose(&mesh.skeleton.restTranslation[b * 3], &mesh.skeleton.restRotation[b * 4])));
    float rt[3], rq[4], kt[3], kq[4];
    for (int k = 0; k < 3; ++k) rt[k] = load_f32le(&rawMesh[restAt + b * 28 + 4 * k]);
    for (int k = 0; k < 4; ++k) rq[k] = load_f32le(&rawMesh[restAt + b * 28 + 12 + 4 * k]);
    for (int k = 0; k < 3; ++k) kt[k] = load_f32le(&rawAnim[keysAt + b * 28 + 4 * k]);
    for (int k = 0; k < 4; ++k) kq[k] = load_f32le(&rawAnim[keysAt + b * 28 + 12 + 4 * k]);
    skinGame[b] = mul(compose(kt, kq), inverseRigid(compose(rt, rq)));
  }
  std::vector<float> posed(nv * 3);
  double maxDiff = 0;
  for (size_t v = 0; v < nv; ++v) {
    const double p[3] = {me.positions[v * 3], me.positions[v * 3 + 1], me.positions[v * 3 + 2]};
    const double g[3] = {p[0], p[1], -p[2]};
    double acc[3] = {0, 0, 0}, accG[3] = {0, 0, 0};
    for (int k = 0; k < 4; ++k) {
      const float w = me.skinWeight[v * 4 + k];
      if (w == 0) continue;
      double o[3], og[3];
      apply(skin3[me.skinIndex[v * 4 + k]], p, o);
      apply(skinGame[me.skinIndex[v * 4 + k]], g, og);
      for (int i = 0; i < 3; ++i) {
        acc[i] += w * o[i];
        accG[i] += w * og[i];
      }
    }
    for (int i = 0; i < 3; ++i) posed[v * 3 + i] = float(acc[i]);
    maxDiff =
        std::max({maxDiff, std::fabs(acc[0] - accG[0]), std::fabs(acc[1] - accG[1]), std::fabs(acc[2] + accG[2])});
  }
  EXPECT_LT(maxDiff, 1e-4);
  float lo, hi, xlo, xhi;
  range(posed, 1, lo, hi);
  EXPECT_NEAR(lo, 0.0f, 0.15f);
  EXPECT_NEAR(hi - lo, 4.0f, 0.25f);  // keeps its ~4-unit height
  range(posed, 0, xlo, xhi);
  EXPECT_LT(xhi - xlo, 2.0f);  // arms down: far narrower than the 3.7-unit T-pose
  float tlo, thi;
  range(me.positions, 0, tlo, thi);
  EXPECT_GT(thi - tlo, 3.5f);
  std::printf("skeleton_idle frame 0: y %.3f..%.3f, x %.3f..%.3f\n", lo, hi, xlo, xhi);
}
