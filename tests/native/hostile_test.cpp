// Hostile input for every decoder, with the allocator watched: truncation at every byte, seeded
// byte flips, and count fields overwritten with values near 2^31 and 2^32. Every case must return
// (an error or a model) and allocate at most a small multiple of the input size.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
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

// Counting allocator for this test binary only.
static std::atomic<size_t> gLive{0}, gPeak{0};
static void* counted(size_t n) {
  void* p = std::malloc(n + 16);
  if (!p) throw std::bad_alloc();
  *static_cast<size_t*>(p) = n;
  size_t live = gLive += n;
  size_t peak = gPeak.load();
  while (live > peak && !gPeak.compare_exchange_weak(peak, live)) {}
  return static_cast<char*>(p) + 16;
}
static void uncounted(void* p) {
  if (!p) return;
  char* base = static_cast<char*>(p) - 16;
  gLive -= *reinterpret_cast<size_t*>(base);
  std::free(base);
}
void* operator new(size_t n) { return counted(n); }
void* operator new[](size_t n) { return counted(n); }
void operator delete(void* p) noexcept { uncounted(p); }
void operator delete[](void* p) noexcept { uncounted(p); }
void operator delete(void* p, size_t) noexcept { uncounted(p); }
void operator delete[](void* p, size_t) noexcept { uncounted(p); }

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
// A hang detector, not a speed test (npm run bench measures speed): no tiny input may take long.
constexpr double kSlowMs = 1000;

struct Result {
  size_t cases = 0, errors = 0;
  double worstRatio = 0;  // over inputs of at least half the fixture's size
  double slowestMs = 0;
};

// `companions`: bytes of the other files decoded with this one (UE1 data + anim + script).
static void runCase(const Decode& decode, const Bytes& input, size_t companions, size_t fullSize, size_t factor,
                    Result& r) {
  size_t base = gLive.load();
  gPeak = base;
  auto start = std::chrono::steady_clock::now();
  {
    rs::Model m;
    rs::Status s = decode(input, m);
    if (!s.ok()) {
      ++r.errors;
      EXPECT_NE(s.error.find("at byte"), std::string::npos) << s.error;
    }
  }
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  r.slowestMs = std::max(r.slowestMs, ms);
  size_t used = gPeak.load() - base;
  size_t total = input.size() + companions;
  ASSERT_LE(used, factor * total + kSlack) << "input of " << total << " bytes";
  ASSERT_LT(ms, kSlowMs) << "input of " << input.size() << " bytes took " << ms << " ms";
  if (input.size() * 2 >= fullSize) r.worstRatio = std::max(r.worstRatio, double(used) / double(total));
  ++r.cases;
}

static void hostileSuite(const char* label, const Bytes& original, const Decode& decode, size_t companions = 0,
                         size_t factor = kFactor) {
  ASSERT_FALSE(original.empty()) << "fixture missing: run scripts/build.sh first";
  Result r;
  for (size_t n = 0; n < original.size(); ++n) runCase(decode, Bytes(original.begin(), original.begin() + long(n)), companions, original.size(), factor, r);
  std::mt19937 rng(1234);
  for (int i = 0; i < 1500; ++i) {
    Bytes b = original;
    for (int k = 0; k < 1 + i % 4; ++k) b[rng() % b.size()] ^= uint8_t(1 + rng() % 255);
    runCase(decode, b, companions, original.size(), factor, r);
  }
  const uint32_t evil[] = {0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu, 0xFFFFFFFEu, 0x0000FFFFu, 0x00010000u};
  size_t limit = std::min<size_t>(original.size() - 3, 1024);
  for (size_t at = 0; at < limit; ++at) {
    for (uint32_t v : evil) {
      Bytes b = original;
      for (int k = 0; k < 4; ++k) b[at + k] = uint8_t(v >> (8 * k));  // little-endian
      runCase(decode, b, companions, original.size(), factor, r);
      for (int k = 0; k < 4; ++k) b[at + k] = uint8_t(v >> (24 - 8 * k));  // big-endian (PSG)
      runCase(decode, b, companions, original.size(), factor, r);
    }
  }
  std::printf("[ hostile ] %s: %zu cases, %zu errors, peak allocation at most %.1fx the input, slowest %.1f ms\n",
              label, r.cases, r.errors, r.worstRatio, r.slowestMs);
}

TEST(Hostile, Psk) {
  hostileSuite("PSK", readFixture("two_bone.psk"), [](const Bytes& b, rs::Model& m) {
    return rs::decodePsk(b.data(), b.size(), "h.psk", m);
  });
}

TEST(Hostile, Psa) {
  hostileSuite("PSA", readFixture("two_bone.psa"), [](const Bytes& b, rs::Model& m) {
    return rs::decodePsa(b.data(), b.size(), "h.psa", "[RemoveTracks]\nBend.1=all\n", m);
  });
}

TEST(Hostile, Pmd) {
  hostileSuite("PMD", readFixture("arm.pmd"), [](const Bytes& b, rs::Model& m) {
    return rs::decodePmd(b.data(), b.size(), "h.pmd", m);
  });
}

TEST(Hostile, Pssa) {
  hostileSuite("PSSA", readFixture("arm_wave.psa"), [](const Bytes& b, rs::Model& m) {
    return rs::decodePssa(b.data(), b.size(), "h.psa", m);
  });
}

TEST(Hostile, Ue1Data) {
  Bytes anim = readFixture("flag_a.3d");
  std::string uc;
  {
    Bytes t = readFixture("flag.uc");
    uc.assign(t.begin(), t.end());
  }
  hostileSuite("UE1 data", readFixture("flag_d.3d"), [&](const Bytes& b, rs::Model& m) {
    return rs::decodeUe1(b.data(), b.size(), "h_d.3d", anim.data(), anim.size(), "h_a.3d", uc, "h.uc", m);
  }, anim.size() + uc.size(), kUe1Factor);
}

TEST(Hostile, Ue1Anim) {
  Bytes data = readFixture("flag_d.3d");
  hostileSuite("UE1 anim", readFixture("flag_a.3d"), [&](const Bytes& b, rs::Model& m) {
    return rs::decodeUe1(data.data(), data.size(), "h_d.3d", b.data(), b.size(), "h_a.3d", "", "", m);
  }, data.size(), kUe1Factor);
}

TEST(Hostile, Ue1Script) {
  Bytes data = readFixture("flag_d.3d");
  Bytes anim = readFixture("flag_a.3d");
  hostileSuite("UE1 .uc", readFixture("flag.uc"), [&](const Bytes& b, rs::Model& m) {
    return rs::decodeUe1(data.data(), data.size(), "h_d.3d", anim.data(), anim.size(), "h_a.3d",
                         std::string(b.begin(), b.end()), "h.uc", m);
  }, data.size() + anim.size(), kUe1Factor);
}

TEST(Hostile, Pcx) {
  hostileSuite("PCX", readFixture("flag.pcx"), [](const Bytes& b, rs::Model& m) {
    return rs::decodePcx(b.data(), b.size(), "h.pcx", true, m);
  });
}

TEST(Hostile, PsgModel) {
  hostileSuite("PSG model", readFixture("skinned_box.psg"), [](const Bytes& b, rs::Model& m) {
    return rs::decodePsg(b.data(), b.size(), "h.psg", m);
  });
}

TEST(Hostile, PsgTextures) {
  hostileSuite("PSG textures", readFixture("box_textures.psg"), [](const Bytes& b, rs::Model& m) {
    return rs::decodePsg(b.data(), b.size(), "h.psg", m);
  });
}
