// Hostile input for every decoder, with the allocator and the clock watched: truncation at every
// byte, seeded byte flips, count fields overwritten with 0 and values near 2^31 and 2^32, pairs of
// count fields set to 0 and to a huge value together, and files built to multiply work (zero-sized
// records x huge counts, frames x bones, nested counts, shared objects). Every case must return (an
// error or a model), allocate at most a small multiple of the input size, and finish well under a
// second: no loop may run more iterations than the input could describe.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "formats/psg/psg.h"
#include "formats/psk/psa.h"
#include "formats/psk/psk.h"
#include "formats/ue1/ue1.h"
#include "formats/zeroad/pmd.h"
#include "formats/zeroad/pssa.h"
#include "writers/psg_writer.h"
#include "writers/psk_writer.h"
#include "writers/ue1_writer.h"
#include "writers/zeroad_writer.h"

#include "counting_allocator.h"
#include "test_support.h"

using Bytes = std::vector<uint8_t>;
using Decode = std::function<rs::Status(const Bytes&, rs::Model&)>;

static Bytes readFixture(const std::string& name) {
  std::ifstream f(std::string(RIGSCOPE_FIXTURES) + "/" + name, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(f), {});
}

// Allowed peak: a small multiple of the input. UE1 is the exception that proves the rule: every
// 4-byte packed vertex of every frame becomes a float position and normal per render vertex
// (UV seams split vertices), so its output is tens of times its input; it is still proportional.
constexpr size_t kFactor = 8;
constexpr size_t kUe1Factor = 80;
constexpr size_t kSlack = 1 << 20;
// The time budget per case: a bound on complexity, not a speed test (npm run bench measures
// speed). The slowest case takes a few milliseconds of CPU on a Release build, and every
// work-multiplying input here would take seconds to hours unbounded, so 250 ms is a wide margin;
// sanitizer and debug builds run several times slower and get a second. Each case is timed with
// two clocks: the budget applies to this thread's CPU clock (the work the case did), because on
// two busy cores the steady clock also counts the time other processes held the CPU; the steady
// clock gets ten times the budget (the best of three runs), so a case that waits fails too.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define RIGSCOPE_SLOW_BUILD 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || !defined(NDEBUG)
#define RIGSCOPE_SLOW_BUILD 1
#endif
#ifdef RIGSCOPE_SLOW_BUILD
constexpr double kCaseBudgetMs = 1000;
#else
constexpr double kCaseBudgetMs = 250;
#endif

struct Result {
  size_t cases = 0, errors = 0;
  double worstRatio = 0;  // over inputs of at least half the fixture's size
  double slowestMs = 0;   // CPU time of the slowest case
  double slowestWallMs = 0;
};

static double threadCpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

struct Timing {
  double cpuMs, wallMs;
};

static Timing timeDecode(const Decode& decode, const Bytes& input, rs::Status& status) {
  const double cpu = threadCpuMs();
  const auto start = std::chrono::steady_clock::now();
  {
    rs::Model m;
    status = decode(input, m);
  }
  return {threadCpuMs() - cpu,
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count()};
}

// `companions`: bytes of the other files decoded with this one (UE1 data + anim + script).
static void runCase(const Decode& decode, const Bytes& input, size_t companions, size_t fullSize, size_t factor,
                    Result& r) {
  size_t base = gLive.load();
  gPeak = base;
  rs::Status s;
  Timing t = timeDecode(decode, input, s);
  if (!s.ok()) {
    ++r.errors;
    EXPECT_NE(s.error.find("at byte"), std::string::npos) << s.error;
  }
  size_t used = gPeak.load() - base;
  for (int retry = 0; retry < 2 && t.wallMs >= 10 * kCaseBudgetMs; ++retry) {
    rs::Status again;
    t.wallMs = std::min(t.wallMs, timeDecode(decode, input, again).wallMs);
  }
  r.slowestMs = std::max(r.slowestMs, t.cpuMs);
  r.slowestWallMs = std::max(r.slowestWallMs, t.wallMs);
  size_t total = input.size() + companions;
  ASSERT_LE(used, factor * total + kSlack) << "input of " << total << " bytes";
  ASSERT_LT(t.cpuMs, kCaseBudgetMs) << "input of " << input.size() << " bytes took " << t.cpuMs << " ms of CPU";
  ASSERT_LT(t.wallMs, 10 * kCaseBudgetMs) << "input of " << input.size() << " bytes took " << t.wallMs << " ms";
  if (input.size() * 2 >= fullSize) r.worstRatio = std::max(r.worstRatio, double(used) / double(total));
  ++r.cases;
}

static void putLe(Bytes& b, size_t at, uint32_t v, int width) {
  for (int k = 0; k < width; ++k) b[at + k] = uint8_t(v >> (8 * k));
}
static void putBe(Bytes& b, size_t at, uint32_t v, int width) {
  for (int k = 0; k < width; ++k) b[at + k] = uint8_t(v >> (8 * (width - 1 - k)));
}
static uint32_t getLe(const Bytes& b, size_t at, int width) {
  uint32_t v = 0;
  for (int k = width - 1; k >= 0; --k) v = (v << 8) | b[at + k];
  return v;
}
static uint32_t getBe(const Bytes& b, size_t at, int width) {
  uint32_t v = 0;
  for (int k = 0; k < width; ++k) v = (v << 8) | b[at + k];
  return v;
}

// Counts that multiply: every pair of fields that look like counts (a small non-zero value, 16 or
// 32 bits, either byte order) with one set to 0 and the other to a huge value (zero-sized records
// x huge counts, no bones x 2^31 frames, ...).
static void countPairs(const Decode& decode, const Bytes& original, size_t companions, size_t factor, Result& r) {
  struct Field {
    size_t at;
    int width;
    bool bigEndian;
  };
  std::vector<Field> fields;
  const size_t limit = std::min<size_t>(original.size(), 1024);
  for (int width : {2, 4}) {
    for (bool bigEndian : {false, true}) {
      size_t found = 0;
      for (size_t at = 0; at + size_t(width) <= limit && found < 32; ++at) {
        const uint32_t v = bigEndian ? getBe(original, at, width) : getLe(original, at, width);
        if (v == 0 || v > 4096) continue;
        fields.push_back({at, width, bigEndian});
        ++found;
      }
    }
  }
  for (const Field& zero : fields) {
    for (const Field& huge : fields) {
      if (zero.width != huge.width || zero.bigEndian != huge.bigEndian) continue;
      if (zero.at < huge.at + size_t(huge.width) && huge.at < zero.at + size_t(zero.width)) continue;  // overlap
      const uint32_t big = huge.width == 2 ? 0xFFFFu : 0x7FFFFFFFu;
      Bytes b = original;
      if (zero.bigEndian) {
        putBe(b, zero.at, 0, zero.width);
        putBe(b, huge.at, big, huge.width);
      } else {
        putLe(b, zero.at, 0, zero.width);
        putLe(b, huge.at, big, huge.width);
      }
      runCase(decode, b, companions, original.size(), factor, r);
    }
  }
}

static void hostileSuite(const char* label, const Bytes& original, const Decode& decode, size_t companions = 0,
                         size_t factor = kFactor) {
  ASSERT_FALSE(original.empty()) << "fixture missing: run scripts/build.sh first";
  Result r;
  for (size_t n = 0; n < original.size(); ++n)
    runCase(decode, Bytes(original.begin(), original.begin() + long(n)), companions, original.size(), factor, r);
  std::mt19937 rng(1234);
  for (int i = 0; i < 1500; ++i) {
    Bytes b = original;
    for (int k = 0; k < 1 + i % 4; ++k) b[rng() % b.size()] ^= uint8_t(1 + rng() % 255);
    runCase(decode, b, companions, original.size(), factor, r);
  }
  const uint32_t evil[] = {0u, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu, 0xFFFFFFFEu, 0x0000FFFFu, 0x00010000u};
  size_t limit = std::min<size_t>(original.size() - 3, 1024);
  for (size_t at = 0; at < limit; ++at) {
    for (uint32_t v : evil) {
      Bytes b = original;
      putLe(b, at, v, 4);
      runCase(decode, b, companions, original.size(), factor, r);
      putBe(b, at, v, 4);  // PSG
      runCase(decode, b, companions, original.size(), factor, r);
    }
  }
  countPairs(decode, original, companions, factor, r);
  std::printf(
      "[ hostile ] %s: %zu cases, %zu errors, peak allocation at most %.1fx the input, slowest %.1f ms of CPU "
      "(%.1f ms on the clock)\n",
      label, r.cases, r.errors, r.worstRatio, r.slowestMs, r.slowestWallMs);
}

TEST(Hostile, Psk) {
  hostileSuite("PSK", readFixture("two_bone.psk"),
               [](const Bytes& b, rs::Model& m) { return rs::decodePsk(b.data(), b.size(), "h.psk", m); });
}

TEST(Hostile, Psa) {
  hostileSuite("PSA", readFixture("two_bone.psa"), [](const Bytes& b, rs::Model& m) {
    return rs::decodePsa(b.data(), b.size(), "h.psa", "[RemoveTracks]\nBend.1=all\n", m);
  });
}

TEST(Hostile, Pmd) {
  hostileSuite("PMD", readFixture("arm.pmd"),
               [](const Bytes& b, rs::Model& m) { return rs::decodePmd(b.data(), b.size(), "h.pmd", m); });
}

TEST(Hostile, Pssa) {
  hostileSuite("PSSA", readFixture("arm_wave.psa"),
               [](const Bytes& b, rs::Model& m) { return rs::decodePssa(b.data(), b.size(), "h.psa", m); });
}

TEST(Hostile, Ue1Data) {
  Bytes anim = readFixture("flag_a.3d");
  std::string uc;
  {
    Bytes t = readFixture("flag.uc");
    uc.assign(t.begin(), t.end());
  }
  hostileSuite(
      "UE1 data", readFixture("flag_d.3d"),
      [&](const Bytes& b, rs::Model& m) {
        return rs::decodeUe1(b.data(), b.size(), "h_d.3d", anim.data(), anim.size(), "h_a.3d", uc, "h.uc", m);
      },
      anim.size() + uc.size(), kUe1Factor);
}

TEST(Hostile, Ue1Anim) {
  Bytes data = readFixture("flag_d.3d");
  hostileSuite(
      "UE1 anim", readFixture("flag_a.3d"),
      [&](const Bytes& b, rs::Model& m) {
        return rs::decodeUe1(data.data(), data.size(), "h_d.3d", b.data(), b.size(), "h_a.3d", "", "", m);
      },
      data.size(), kUe1Factor);
}

TEST(Hostile, Ue1Script) {
  Bytes data = readFixture("flag_d.3d");
  Bytes anim = readFixture("flag_a.3d");
  hostileSuite(
      "UE1 .uc", readFixture("flag.uc"),
      [&](const Bytes& b, rs::Model& m) {
        return rs::decodeUe1(data.data(), data.size(), "h_d.3d", anim.data(), anim.size(), "h_a.3d",
                             std::string(b.begin(), b.end()), "h.uc", m);
      },
      data.size() + anim.size(), kUe1Factor);
}

TEST(Hostile, Pcx) {
  hostileSuite("PCX", readFixture("flag.pcx"),
               [](const Bytes& b, rs::Model& m) { return rs::decodePcx(b.data(), b.size(), "h.pcx", true, m); });
}

TEST(Hostile, PsgModel) {
  hostileSuite("PSG model", readFixture("skinned_box.psg"),
               [](const Bytes& b, rs::Model& m) { return rs::decodePsg(b.data(), b.size(), "h.psg", m); });
}

TEST(Hostile, PsgTextures) {
  hostileSuite("PSG textures", readFixture("box_textures.psg"),
               [](const Bytes& b, rs::Model& m) { return rs::decodePsg(b.data(), b.size(), "h.psg", m); });
}

// ---- Files built to multiply work -------------------------------------------------------------
// Each is decoded once through runCase (allocation and time budgets) and, when it must be refused,
// the message names the field and a byte offset.

static rs::Status boundedCase(const Decode& decode, const Bytes& input, size_t companions = 0, size_t factor = kFactor,
                              rs::Model* model = nullptr) {
  Result r;
  runCase(decode, input, companions, input.size(), factor, r);
  std::printf("[ hostile ] %s: %zu bytes, peak allocation %.1fx the input, %.1f ms of CPU (%.1f ms on the clock)\n",
              ::testing::UnitTest::GetInstance()->current_test_info()->name(), input.size() + companions, r.worstRatio,
              r.slowestMs, r.slowestWallMs);
  rs::Model m;
  return decode(input, model ? *model : m);
}

static Decode psaWith(const std::string& config) {
  return [config](const Bytes& b, rs::Model& m) { return rs::decodePsa(b.data(), b.size(), "w.psa", config, m); };
}

static rs::psk::Bone namedBone(const std::string& name) {
  rs::psk::Bone b;
  b.name = name;
  return b;
}

TEST(HostileWork, PsaWithoutBonesDeclaringFrames) {
  rs::psk::Animation a;
  rs::psk::Sequence s;
  s.name = "Endless";
  s.frames = 0x7FFFFFFF;
  a.sequences = {s};
  rs::Status st = boundedCase(psaWith(""), rs::psk::writePsa(a));
  EXPECT_NE(st.error.find("declares 2147483647 frames but BONENAMES has no bones"), std::string::npos) << st.error;
  EXPECT_NE(st.error.find("(at byte "), std::string::npos) << st.error;
}

TEST(HostileWork, PsaFramesTimesBones) {
  rs::psk::Animation a;
  a.bones = {namedBone("Root"), namedBone("A"), namedBone("B")};
  rs::psk::Sequence s;
  s.name = "Long";
  s.frames = 0x40000000;
  a.sequences = {s};
  rs::Status st = boundedCase(psaWith(""), rs::psk::writePsa(a));
  EXPECT_NE(st.error.find("ANIMKEYS has 0 keys"), std::string::npos) << st.error;
  EXPECT_NE(st.error.find("(at byte "), std::string::npos) << st.error;
}

TEST(HostileWork, PsaConfigNamingThousandsOfSequencesAndBones) {
  const size_t n = 4000;
  rs::psk::Animation a;
  rs::psk::Config c;
  for (size_t i = 0; i < n; ++i) {
    a.bones.push_back(namedBone("Bone" + std::to_string(i)));
    rs::psk::Sequence s;
    s.name = "Seq" + std::to_string(i % 7);  // many sequences share a name
    a.sequences.push_back(s);
    c.useTranslation.push_back("bone" + std::to_string(i));
    c.removeTracks.push_back({"seq" + std::to_string(i % 7), int32_t(i), "trans"});
    c.removeTracks.push_back({"Seq0", int32_t(i), "rot"});
  }
  a.sequences[0].frames = 1;
  a.sequences[0].keys.resize(n);
  c.rotationOnly = true;
  rs::Status st = boundedCase(psaWith(rs::psk::writePsaConfig(c)), rs::psk::writePsa(a));
  EXPECT_TRUE(st.ok()) << st.error;
}

static Decode pskDecode() {
  return [](const Bytes& b, rs::Model& m) { return rs::decodePsk(b.data(), b.size(), "w.psk", m); };
}

static rs::psk::Mesh triangleMesh() {
  rs::psk::Mesh m;
  m.points = {0, 0, 0, 1, 0, 0, 0, 0, 1};
  for (uint32_t i = 0; i < 3; ++i) m.wedges.push_back({i, 0, 0, 0});
  rs::psk::Face f;
  f.wedge[0] = 0, f.wedge[1] = 1, f.wedge[2] = 2;
  m.faces = {f};
  m.materials = {{"M", 0, 0}};
  return m;
}

TEST(HostileWork, PskThousandsOfSocketsAgainstThousandsOfBones) {
  rs::psk::Mesh m = triangleMesh();
  for (int i = 0; i < 5000; ++i) {
    m.bones.push_back(namedBone("Bone" + std::to_string(i)));
    rs::psk::Socket s;
    s.name = "Socket" + std::to_string(i);
    s.bone = "BONE" + std::to_string(4999 - i);  // found by the case-insensitive lookup
    m.sockets.push_back(s);
  }
  rs::Status st = boundedCase(pskDecode(), rs::psk::writePsk(m));
  EXPECT_TRUE(st.ok()) << st.error;
}

TEST(HostileWork, PskMorphTargetsTimesWedges) {
  // 10,000 morph targets without deltas over 4,000 wedges would be 120 M zero floats; the morph
  // budget (8 floats per input byte) keeps the first few hundred and warns.
  rs::psk::Mesh m = triangleMesh();
  for (uint32_t i = 3; i < 4000; ++i) {
    m.points.insert(m.points.end(), {float(i), 0, 0});
    m.wedges.push_back({i, 0, 0, 0});
  }
  m.morphs.resize(10000, rs::psk::MorphTarget{"Empty", {}});
  rs::Model model;
  rs::Status st = boundedCase(pskDecode(), rs::psk::writePsk(m), 0, 34, &model);  // up to 32 bytes per input byte
  EXPECT_TRUE(st.ok()) << st.error;
  EXPECT_LT(model.meshes[0].morphs.size(), 1000u);
  EXPECT_TRUE(rs::test::hasWarning(model, "exceed the memory budget")) << rs::test::allWarnings(model);
}

TEST(HostileWork, PskZeroSizedRecordsRepeated) {
  Bytes file = rs::psk::writePsk(triangleMesh());
  for (int i = 0; i < 20000; ++i) {  // unknown chunks of 2^31 - 1 zero-byte records
    Bytes h(32, 0);
    std::memcpy(h.data(), "ZERO", 4);
    putLe(h, 28, 0x7FFFFFFF, 4);
    file.insert(file.end(), h.begin(), h.end());
  }
  EXPECT_TRUE(boundedCase(pskDecode(), file).ok());
}

TEST(HostileWork, PssaWithoutBonesDeclaringFrames) {
  rs::PssaDesc d;
  d.bones = 0;
  d.frames = 0xFFFFFFFF;
  d.overrideCounts = true;
  const Decode decode = [](const Bytes& b, rs::Model& m) { return rs::decodePssa(b.data(), b.size(), "w.psa", m); };
  const Bytes file = rs::writePssa(d);
  EXPECT_TRUE(boundedCase(decode, file).ok());
  d.bones = 0xFFFF;
  d.frames = 0xFFFF;
  rs::Status st = boundedCase(decode, rs::writePssa(d));
  EXPECT_NE(st.error.find("65535 frames of 65535 bones"), std::string::npos) << st.error;
}

TEST(HostileWork, PmdNestedCounts) {
  rs::PmdDesc d;
  d.version = 4;
  d.uvSets = 255;
  d.overrideCounts = true;
  d.numVertices = 0;
  d.numFaces = 0x7FFFFFFF;
  const Decode decode = [](const Bytes& b, rs::Model& m) { return rs::decodePmd(b.data(), b.size(), "w.pmd", m); };
  rs::Status st = boundedCase(decode, rs::writePmd(d));
  EXPECT_NE(st.error.find("2147483647 faces of 6 bytes"), std::string::npos) << st.error;
  d.numFaces = 0;
  d.numProps = 0x7FFFFFFF;
  st = boundedCase(decode, rs::writePmd(d));
  EXPECT_NE(st.error.find("2147483647 prop points"), std::string::npos) << st.error;
}

TEST(HostileWork, Ue1OneTriangleRepeatedOverEveryFrame) {
  // 65,535 copies of one triangle (1 MB) x 65,535 frames of 3 vertices (768 KB): 12.9 billion
  // normal updates unbounded.
  std::vector<rs::Ue1WriteTriangle> tris(65535);
  for (auto& t : tris) t.v[0] = 0, t.v[1] = 1, t.v[2] = 2;
  const Bytes data = rs::writeUe1Data(tris, 3);
  const Bytes anim = rs::writeUe1Anim(std::vector<int32_t>(size_t(65535) * 9, 1), 3, rs::Ue1Encoding::Packed);
  const Decode decode = [&anim](const Bytes& b, rs::Model& m) {
    return rs::decodeUe1(b.data(), b.size(), "w_d.3d", anim.data(), anim.size(), "w_a.3d", "", "", m);
  };
  rs::Status st = boundedCase(decode, data, anim.size(), kUe1Factor);
  EXPECT_NE(st.error.find("normal updates"), std::string::npos) << st.error;
  EXPECT_NE(st.error.find("(at byte 0)"), std::string::npos) << st.error;
}

TEST(HostileWork, Ue1ScriptOfThousandsOfNames) {
  const Bytes data = readFixture("flag_d.3d"), anim = readFixture("flag_a.3d");
  rs::UcBuilder uc;
  uc.meshImport("Flag", "flag_a.3d", "flag_d.3d");
  for (int i = 0; i < 5000; ++i) {
    const std::string n = std::to_string(i);
    uc.meshImport("Other" + n, "o" + n + "_a.3d", "o" + n + "_d.3d");
    uc.sequence("Flag", "Seq" + n, 0, 1);
    uc.line("#exec MESH NOTIFY MESH=Flag SEQ=seq" + n + " TIME=0.5 FUNCTION=F" + n);
    uc.meshmapNew("Map" + n, "Other" + n);
    uc.scale("Map" + n, 1, 1, 1);
    uc.textureImport("Skin", "Textures\\skin" + n + ".pcx");
  }
  uc.setTexture("Flag", 0, "Skin");
  const std::string text = uc.str();
  const Decode decode = [&](const Bytes& b, rs::Model& m) {
    return rs::decodeUe1(data.data(), data.size(), "flag_d.3d", anim.data(), anim.size(), "flag_a.3d",
                         std::string(b.begin(), b.end()), "w.uc", m);
  };
  rs::Model m;
  rs::Status st = boundedCase(decode, Bytes(text.begin(), text.end()), data.size() + anim.size(), kUe1Factor, &m);
  EXPECT_TRUE(st.ok()) << st.error;
  EXPECT_LE(m.materials[0].textureNames.size(), 18u);
}

TEST(HostileWork, PcxWindowBeyondItsData) {
  const Bytes flag = readFixture("flag.pcx");
  Bytes b = flag;
  putLe(b, 8, 0xFFFF, 2);
  putLe(b, 10, 0xFFFF, 2);
  putLe(b, 66, 0xFFFF, 2);
  const Decode decode = [](const Bytes& in, rs::Model& m) {
    return rs::decodePcx(in.data(), in.size(), "w.pcx", true, m);
  };
  rs::Status st = boundedCase(decode, b);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.error.find("at byte"), std::string::npos) << st.error;
}

// PSG rows of one type in a writer-made arena: their objects' file offsets.
static std::vector<size_t> psgObjects(const Bytes& arena, uint32_t typeId) {
  std::vector<size_t> out;
  const uint32_t rows = getBe(arena, 0x20, 4), dict = getBe(arena, 0x30, 4);
  for (uint32_t i = 0; i < rows; ++i)
    if (getBe(arena, dict + 24 * i + 20, 4) == typeId) out.push_back(getBe(arena, dict + 24 * i, 4));
  return out;
}

static Decode psgDecode() {
  return [](const Bytes& b, rs::Model& m) { return rs::decodePsg(b.data(), b.size(), "w.psg", m); };
}

TEST(HostileWork, PsgTexturesSharingOnePayload) {
  // 1,500 Texture objects all pointing at one 1024 x 1024 mip chain: 1 GB of decoding from < 1 MB.
  std::vector<rs::PsgTextureIn> textures;
  rs::PsgTextureIn big;
  big.guid = 1;
  big.format = 0x86;
  big.width = big.height = 1024;
  for (uint32_t l = 0; l < 11; ++l) big.levels.emplace_back(rs::psgLevelBytes(0x86, 1024, 1024, l), uint8_t(l));
  textures.push_back(big);
  for (int i = 0; i < 1500; ++i) {
    rs::PsgTextureIn t;
    t.guid = 2 + uint64_t(i);
    t.format = 0x86;
    t.width = t.height = 4;
    t.levels = {std::vector<uint8_t>(8, 0)};
    textures.push_back(t);
  }
  Bytes arena = rs::writePsgTextures(textures);
  const std::vector<size_t> objects = psgObjects(arena, 0x000200E8);
  ASSERT_EQ(objects.size(), 1501u);
  size_t bigAt = 0;
  for (size_t at : objects)
    if (getBe(arena, at + 8, 2) == 1024) bigAt = at;
  for (size_t at : objects)
    std::copy(arena.begin() + long(bigAt), arena.begin() + long(bigAt) + 0x1C, arena.begin() + long(at));
  rs::Status st = boundedCase(psgDecode(), arena);
  EXPECT_NE(st.error.find("more than 4 times its"), std::string::npos) << st.error;
  EXPECT_NE(st.error.find("(at byte "), std::string::npos) << st.error;
}

TEST(HostileWork, PsgMeshTableNamingOneMeshThousandsOfTimes) {
  rs::PsgModelIn model;
  model.bones = {rs::psgBone("root")};
  rs::PsgMeshIn bigMesh;
  bigMesh.layout = {{rs::psgv::F, 3, rs::psgv::XYZ}};
  for (int i = 0; i < 20000; ++i) bigMesh.positions.insert(bigMesh.positions.end(), {float(i), 0, 0});
  for (uint32_t i = 0; i + 2 < 20000; i += 3) bigMesh.indices.insert(bigMesh.indices.end(), {i, i + 1, i + 2});
  bigMesh.material = -1;
  model.meshes.push_back(bigMesh);
  rs::PsgMeshIn tiny = bigMesh;
  tiny.positions.resize(9);
  tiny.indices = {0, 1, 2};
  model.meshes.resize(2000, tiny);
  Bytes arena = rs::writePsgModel(model);
  const std::vector<size_t> models = psgObjects(arena, 0x00EB0001);
  ASSERT_EQ(models.size(), 1u);
  const size_t table = models[0] + getBe(arena, models[0] + 0x24, 4);
  const uint32_t first = getBe(arena, table, 4);
  for (size_t k = 1; k < 2000; ++k) putBe(arena, table + 8 * k, first, 4);
  rs::Status st = boundedCase(psgDecode(), arena);
  EXPECT_NE(st.error.find("more than 4 times its"), std::string::npos) << st.error;
}
