// Pins every decoder's output: each fixture the writers make, each fuzz seed (every chunk type,
// version and count extreme, in its harness's layout), each committed fuzz finding and each real
// sample under ../shared/samples (read in place) is decoded, and a digest of the whole result
// (model_digest.h: every array byte for byte, names, counts, warnings, or the error) must equal
// the one committed in decoder_digests.txt. The decoders can then be restructured or sped up with
// proof that nothing they return changed.
//
// A deliberate change of output is recorded with
//   RIGSCOPE_UPDATE_DIGESTS=1 build/native/digest_test
// and the diff of decoder_digests.txt shows which inputs and which parts (meshes, clips, ...) moved.
#include <gtest/gtest.h>

#include <unistd.h>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "formats/detect.h"
#include "formats/image/image.h"
#include "formats/psg/psg.h"
#include "formats/psk/psa.h"
#include "formats/psk/psk.h"
#include "formats/ue1/ue1.h"
#include "formats/upackage/upackage.h"
#include "formats/zeroad/pmd.h"
#include "formats/zeroad/pssa.h"
#include "model_digest.h"
#include "test_support.h"
#include "writers/fuzz_input.h"
#include "writers/psg_writer.h"

namespace fs = std::filesystem;
using namespace rs;
using rs::test::Digest;
using rs::test::digestOf;

namespace {

using Digests = std::map<std::string, std::string>;  // "set/path" -> Digest::line()

const std::string kDigestFile = std::string(RIGSCOPE_SOURCE) + "/tests/native/decoder_digests.txt";

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool endsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::vector<uint8_t> readAll(const fs::path& p) {
  std::vector<uint8_t> b;
  test::readBytes(p.string(), b);
  return b;
}

std::string text(const std::vector<uint8_t>& b) { return std::string(b.begin(), b.end()); }

// Every regular file under `root`, sorted, as paths relative to it.
std::vector<std::string> filesUnder(const fs::path& root) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file()) out.push_back(fs::relative(e.path(), root).generic_string());
  std::sort(out.begin(), out.end());
  return out;
}

// The file in `dir` whose name matches `name` case-insensitively, or an empty path.
fs::path findInDir(const fs::path& dir, const std::string& name) {
  if (!fs::is_directory(dir)) return {};
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && lower(e.path().filename().string()) == lower(name)) return e.path();
  return {};
}

// The .uc beside a _d.3d (same folder or ../Classes) that imports it: first by sorted path.
fs::path ucFor(const fs::path& data, const std::string& animName) {
  std::vector<fs::path> candidates;
  for (const fs::path& dir : {data.parent_path(), data.parent_path().parent_path() / "Classes"}) {
    if (!fs::is_directory(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_regular_file() && endsWith(lower(e.path().filename().string()), ".uc")) candidates.push_back(e.path());
  }
  std::sort(candidates.begin(), candidates.end());
  for (const fs::path& uc : candidates)
    if (findUcMesh(parseUc(text(readAll(uc))), data.filename().string(), animName) >= 0) return uc;
  return {};
}

// Decodes one file the way the front end would (companions found beside it) and records the
// digest of every result under `key`; files that are companions or not models record nothing.
void digestFile(const fs::path& path, const std::string& key, Digests& out) {
  const std::vector<uint8_t> b = readAll(path);
  const std::string name = path.filename().string();
  const std::string lname = lower(name);
  const std::string kind = detectFormat(b.data(), b.size(), b.size(), name);
  Model m;
  Status s;
  if (kind == "psk") {
    s = decodePsk(b.data(), b.size(), name, m);
  } else if (kind == "psa") {
    const fs::path config = findInDir(path.parent_path(), path.stem().string() + ".config");
    s = decodePsa(b.data(), b.size(), name, config.empty() ? "" : text(readAll(config)), m);
  } else if (kind == "pmd") {
    s = decodePmd(b.data(), b.size(), name, m);
  } else if (kind == "pssa") {
    s = decodePssa(b.data(), b.size(), name, m);
  } else if (kind == "psg") {
    s = decodePsg(b.data(), b.size(), name, m);
  } else if (kind == "uc") {
    out[key] = digestOf(parseUc(text(b))).line();
    return;
  } else if (kind == "pcx") {
    Model masked;
    const Status sm = decodePcx(b.data(), b.size(), name, true, masked);
    out[key + "#masked"] = digestOf(sm, masked).line();
    s = decodePcx(b.data(), b.size(), name, false, m);
  } else if (kind == "ue1-data" && endsWith(lname, "_d.3d")) {
    const std::string animName = name.substr(0, name.size() - 5) + (name[name.size() - 5] == 'D' ? "_A.3d" : "_a.3d");
    const fs::path anim = findInDir(path.parent_path(), animName);
    const std::vector<uint8_t> a = anim.empty() ? std::vector<uint8_t>() : readAll(anim);
    const fs::path uc = ucFor(path, animName);
    Ue1Details details;
    s = decodeUe1(b.data(), b.size(), name, a.data(), a.size(), anim.empty() ? animName : anim.filename().string(),
                  uc.empty() ? "" : text(readAll(uc)), uc.empty() ? "" : uc.filename().string(), m, &details);
    out[key] = digestOf(s, m, &details).line();
    return;
  } else if (endsWith(lname, ".bmp") || endsWith(lname, ".tga") || endsWith(lname, ".dds")) {
    s = decodeImage(b.data(), b.size(), name, m);
  } else {
    return;  // a companion (_a.3d, .config), a README, an actor .xml
  }
  out[key] = digestOf(s, m).line();
}

// A fuzz input decoded exactly as its harness in wasm/fuzz/ decodes it.
void digestFuzzInput(const std::string& target, const std::vector<uint8_t>& b, const std::string& key, Digests& out) {
  Model m;
  Status s;
  if (target == "fuzz_psk") {
    s = decodePsk(b.data(), b.size(), "fuzz.psk", m);
  } else if (target == "fuzz_psa") {
    const auto parts = fuzz::splitParts(b.data(), b.size(), 2);
    s = decodePsa(parts[0].data, parts[0].size, "fuzz.psa", parts[1].text(), m);
  } else if (target == "fuzz_pmd") {
    s = decodePmd(b.data(), b.size(), "fuzz.pmd", m);
  } else if (target == "fuzz_pssa") {
    s = decodePssa(b.data(), b.size(), "fuzz.psa", m);
  } else if (target == "fuzz_psg") {
    s = decodePsg(b.data(), b.size(), "fuzz.psg", m);
  } else if (target == "fuzz_psg_texture") {
    const auto parts = fuzz::splitParts(b.data(), b.size(), 2);
    if (parts[1].data) {
      const std::vector<uint8_t> arena =
          psgTextureArenaSpliced(parts[0].data, parts[0].size, parts[1].data, parts[1].size);
      s = decodePsg(arena.data(), arena.size(), "fuzz_texture.psg", m);
    } else {
      s = decodePsg(b.data(), b.size(), "fuzz.psg", m);
    }
  } else if (target == "fuzz_ue1") {
    const auto parts = fuzz::splitParts(b.data(), b.size(), 3);
    Ue1Details details;
    s = decodeUe1(parts[0].data, parts[0].size, "fuzz_d.3d", parts[1].data, parts[1].size, "fuzz_a.3d", parts[2].text(),
                  "Fuzz.uc", m, &details);
    out[key] = digestOf(s, m, &details).line();
    return;
  } else if (target == "fuzz_uc") {
    out[key] = digestOf(parseUc(text(b))).line();
    return;
  } else if (target == "fuzz_upackage") {
    // The listing, then each object the listing names, as the harness decodes them.
    PackageListing listing;
    s = listPackage(b.data(), b.size(), "Fuzz.u", listing);
    out[key] = digestOf(s, m).line();
    if (!s.ok()) return;
    for (const auto* list : {&listing.meshes, &listing.textures, &listing.animations}) {
      for (const PackageEntry& e : *list) {
        Model object;
        const Status os = decodePackageObject(listing.package, b.data(), e.index, object);
        out[key + "#" + e.name] = digestOf(os, object).line();
      }
    }
    return;
  } else if (target == "fuzz_pcx") {
    s = decodePcx(b.data(), b.size(), "fuzz.pcx", !b.empty() && (b.back() & 1), m);
  } else if (target == "fuzz_image") {
    const char* names[] = {"fuzz.img", "fuzz.tga", "fuzz.bmp", "fuzz.dds"};
    Status (*decoders[])(const uint8_t*, size_t, const std::string&, Model&) = {decodeImage, decodeTga, decodeBmp,
                                                                                decodeDds};
    for (int i = 0; i < 4; ++i) {
      Model im;
      const Status is = decoders[i](b.data(), b.size(), names[i], im);
      out[key + "#" + names[i]] = digestOf(is, im).line();
    }
    return;
  } else {
    ADD_FAILURE() << "no decoder for fuzz target " << target << " (" << key << ")";
    return;
  }
  out[key] = digestOf(s, m).line();
}

Digests readCommitted() {
  Digests d;
  std::ifstream f(kDigestFile);
  std::string line;
  while (std::getline(f, line)) {
    const size_t tab = line.find('\t');
    if (tab != std::string::npos) d[line.substr(0, tab)] = line.substr(tab + 1);
  }
  return d;
}

bool updating() {
  const char* v = std::getenv("RIGSCOPE_UPDATE_DIGESTS");
  return v && *v && std::string(v) != "0";
}

// Compares the digests of one set ("fixtures/", "samples/", ...) with the committed ones, or
// rewrites that set's lines when updating.
void check(const std::string& set, const Digests& got) {
  ASSERT_FALSE(got.empty()) << "no input decoded for " << set;
  Digests committed = readCommitted();
  if (updating()) {
    for (auto it = committed.begin(); it != committed.end();)
      it = it->first.compare(0, set.size(), set) == 0 ? committed.erase(it) : std::next(it);
    for (const auto& g : got) committed[g.first] = g.second;
    std::ofstream f(kDigestFile);
    for (const auto& c : committed) f << c.first << '\t' << c.second << '\n';
    std::printf("wrote %zu digests of %s to %s\n", got.size(), set.c_str(), kDigestFile.c_str());
    return;
  }
  size_t compared = 0;
  for (const auto& c : committed) {
    if (c.first.compare(0, set.size(), set) != 0) continue;
    auto g = got.find(c.first);
    if (g == got.end()) {
      ADD_FAILURE() << c.first << ": committed digest, but the input is gone";
      continue;
    }
    ++compared;
    EXPECT_EQ(g->second, c.second) << c.first << ": decoded output changed (parts that differ show different hashes)";
  }
  for (const auto& g : got)
    if (!committed.count(g.first)) ADD_FAILURE() << g.first << ": no committed digest (new input? update the digests)";
  std::printf("%s: %zu decoder outputs equal their committed digests\n", set.c_str(), compared);
}

}  // namespace

TEST(Digests, Fixtures) {
  const fs::path root = RIGSCOPE_FIXTURES;
  ASSERT_TRUE(fs::is_directory(root)) << root << " is missing: run scripts/build.sh";
  Digests got;
  for (const std::string& rel : filesUnder(root)) digestFile(root / rel, "fixtures/" + rel, got);
  check("fixtures/", got);
}

TEST(Digests, FuzzSeeds) {
  // write_fuzz_seeds shapes the fixtures into every harness's layout, plus every chunk type,
  // version and count extreme.
  const fs::path out = fs::temp_directory_path() / ("rigscope_digest_seeds_" + std::to_string(::getpid()));
  fs::remove_all(out);
  fs::create_directories(out);
  const std::string cmd =
      std::string(RIGSCOPE_TOOLS) + "/write_fuzz_seeds " + RIGSCOPE_FIXTURES + " " + out.string() + " > /dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  Digests got;
  for (const std::string& rel : filesUnder(out)) {
    const std::string target = rel.substr(0, rel.find('/'));
    digestFuzzInput(target, readAll(out / rel), "seeds/" + rel, got);
  }
  fs::remove_all(out);
  check("seeds/", got);
}

TEST(Digests, FuzzRegressions) {
  const fs::path root = std::string(RIGSCOPE_SOURCE) + "/tests/fuzz-regressions";
  Digests got;
  for (const std::string& rel : filesUnder(root)) {
    const std::string target = rel.substr(0, rel.find('/'));
    digestFuzzInput(target, readAll(root / rel), "regressions/" + rel, got);
  }
  check("regressions/", got);
}

TEST(Digests, Samples) {
  const fs::path root = test::samplesDir("");
  if (!fs::is_directory(root)) GTEST_SKIP() << "samples not found in " << root << ": their digests are not checked";
  Digests got;
  for (const std::string& rel : filesUnder(root)) digestFile(root / rel, "samples/" + rel, got);
  check("samples/", got);
}
