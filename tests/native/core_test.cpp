// Core pieces shared by every decoder: the bounds-checked reader, errors, skin limiting, detection.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "convert/skin.h"
#include "formats/detect.h"
#include "io/byte_reader.h"
#include "io/error.h"

using namespace rs;

TEST(ByteReader, RefusesReadsPastTheEnd) {
  const uint8_t bytes[6] = {1, 0, 0, 0, 2, 0};
  ByteReader r(bytes, sizeof bytes);
  uint32_t a = 0;
  uint32_t b = 0;
  EXPECT_TRUE(r.u32le(a));
  EXPECT_EQ(a, 1u);
  EXPECT_FALSE(r.u32le(b));
  EXPECT_EQ(r.offset(), 4u);
  EXPECT_TRUE(r.has(2));
  EXPECT_FALSE(r.has(3));
}

TEST(ByteReader, HasDoesNotOverflow) {
  const uint8_t bytes[4] = {};
  ByteReader r(bytes, sizeof bytes);
  EXPECT_FALSE(r.has(0x100000000ull, 0x100000000ull));
  EXPECT_FALSE(r.has(~0ull, 2));
  EXPECT_TRUE(r.has(0, 1000));
}

TEST(FixedName, StopsAtNulTrimsSpacesAndKeepsLatin1AsUtf8) {
  const uint8_t raw[8] = {'b', 'i', 'p', 0xE9, ' ', ' ', 0, 'x'};
  EXPECT_EQ(fixedName(raw, 8), std::string("bip\xC3\xA9"));
}

TEST(Fail, NamesFormatFileFieldAndOffset) {
  Status s = fail("PSK", "a.psk", 41232, "chunk %s declares %d records", "FACE0000", 91000);
  EXPECT_EQ(s.error, "PSK a.psk: chunk FACE0000 declares 91000 records (at byte 41232)");
}

TEST(SkinBuilder, KeepsFourStrongestAndRenormalises) {
  SkinBuilder skin(2);
  const float w[6] = {0.1f, 0.3f, 0.05f, 0.2f, 0.25f, 0.12f};
  for (uint16_t b = 0; b < 6; ++b) skin.add(0, b, w[b]);
  SkinStats st = skin.finish(7);
  EXPECT_EQ(st.truncated, 1u);
  EXPECT_FLOAT_EQ(st.maxDropped, 0.1f);
  EXPECT_EQ(st.unweighted, 1u);  // vertex 1 had nothing
  float sum = 0;
  std::vector<int> bones;
  for (int k = 0; k < 4; ++k) {
    sum += skin.weight[k];
    bones.push_back(skin.index[k]);
  }
  EXPECT_NEAR(sum, 1.0f, 1e-6f);
  std::sort(bones.begin(), bones.end());
  EXPECT_EQ(bones, (std::vector<int>{1, 3, 4, 5}));
  EXPECT_EQ(skin.index[4], 7);
  EXPECT_FLOAT_EQ(skin.weight[4], 1.0f);
}

TEST(SkinBuilder, MergesDuplicateBonesAndRejectsBadWeights) {
  SkinBuilder skin(1);
  skin.add(0, 2, 0.25f);
  skin.add(0, 2, 0.25f);
  skin.add(0, 3, std::numeric_limits<float>::quiet_NaN());
  skin.add(0, 4, -1.0f);
  SkinStats st = skin.finish(0);
  EXPECT_EQ(st.rejected, 2u);
  EXPECT_EQ(skin.index[0], 2);
  EXPECT_FLOAT_EQ(skin.weight[0], 1.0f);
}

TEST(Detect, ByMagicNotExtension) {
  std::vector<uint8_t> psk(32, 0);
  std::memcpy(psk.data(), "ACTRHEAD", 8);
  EXPECT_EQ(detectFormat(psk.data(), psk.size(), psk.size(), "x.psa"), "psk");
  std::vector<uint8_t> pssa = {'P', 'S', 'S', 'A', 1, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(detectFormat(pssa.data(), pssa.size(), pssa.size(), "x.psa"), "pssa");
  std::vector<uint8_t> anim(32, 0);
  std::memcpy(anim.data(), "ANIMHEAD", 8);
  EXPECT_EQ(detectFormat(anim.data(), anim.size(), anim.size(), "x.psa"), "psa");
  // A UE1 package by its tag, whatever it is called (a .u, a .utx, a renamed .tmp).
  std::vector<uint8_t> package = {0xC1, 0x83, 0x2A, 0x9E, 69, 0, 0, 0};
  EXPECT_EQ(detectFormat(package.data(), package.size(), package.size(), "Siege.tmp"), "upackage");
  std::vector<uint8_t> junk(10, 0xEE);
  EXPECT_EQ(detectFormat(junk.data(), junk.size(), junk.size(), "x.psk"), "unknown");
}

TEST(Detect, Ue1BySizeArithmetic) {
  std::vector<uint8_t> data(48 + 16 * 2, 0);
  data[0] = 2;  // NumPolys
  data[2] = 4;  // NumVertices
  EXPECT_EQ(detectFormat(data.data(), data.size(), data.size(), "thing_d.3d"), "ue1-data");
  std::vector<uint8_t> anim(4 + 3 * 16, 0);
  anim[0] = 3;   // NumFrames
  anim[2] = 16;  // FrameSize
  EXPECT_EQ(detectFormat(anim.data(), anim.size(), anim.size(), "thing_a.3d"), "ue1-anim");
}

TEST(Detect, Ue1FilesCutShortAreClaimedByTheirName) {
  // An _a.3d declaring 1 frame of 184 bytes (46 packed vertices) with 180 bytes after the header.
  std::vector<uint8_t> anim(4 + 180, 0);
  anim[0] = 1;    // NumFrames
  anim[2] = 184;  // FrameSize
  EXPECT_EQ(detectFormat(anim.data(), anim.size(), anim.size(), "foo_a.3d"), "ue1-anim");
  EXPECT_EQ(detectFormat(anim.data(), anim.size(), anim.size(), "Models/FOO_A.3D"), "ue1-anim");
  EXPECT_EQ(detectFormat(anim.data(), anim.size(), anim.size(), "foo.bin"), "unknown");  // no name, no claim
  EXPECT_EQ(detectFormat(anim.data(), 4, 1u << 20, "foo_a.3d"), "ue1-anim");  // trailing bytes: only the head read
  anim[2] = 182;  // no vertex encoding has frames of a size that is not a multiple of 4
  EXPECT_EQ(detectFormat(anim.data(), anim.size(), anim.size(), "foo_a.3d"), "unknown");
  anim[0] = 0, anim[2] = 184;  // no frames
  EXPECT_EQ(detectFormat(anim.data(), anim.size(), anim.size(), "foo_a.3d"), "unknown");

  // A _d.3d declaring 5 triangles of 16 bytes with 30 bytes after its 48-byte header.
  std::vector<uint8_t> data(48 + 30, 0);
  data[0] = 5;  // NumPolys
  data[2] = 4;  // NumVertices
  EXPECT_EQ(detectFormat(data.data(), data.size(), data.size(), "foo_d.3d"), "ue1-data");
  EXPECT_EQ(detectFormat(data.data(), data.size(), data.size(), "Foo_D.3d"), "ue1-data");
  EXPECT_EQ(detectFormat(data.data(), 20, 20, "foo_d.3d"), "ue1-data");  // shorter than the header: the decoder says so
  EXPECT_EQ(detectFormat(data.data(), data.size(), data.size(), "foo.bin"), "unknown");
  data[2] = 2;  // fewer than 3 vertices cannot make a triangle
  EXPECT_EQ(detectFormat(data.data(), data.size(), data.size(), "foo_d.3d"), "unknown");
}
