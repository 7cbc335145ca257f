// libFuzzer target: a UE1 package, whole (writeUpackage output is a seed as it is). The tables are
// listed, then every mesh, texture, palette and animation export the listing names is decoded (the first 32:
// a hostile table of thousands of exports must not make one input take minutes). Then the same
// package given in parts (a link read by ranges): its first half, and what the calls name as
// missing, round by round; every byte outside the parts is overwritten, so a read outside them
// would list the package differently from the whole file.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "formats/upackage/upackage.h"

namespace {

// The file with every byte outside `present` overwritten.
std::vector<uint8_t> poisoned(const uint8_t* data, size_t size, const rs::Spans& present) {
  std::vector<uint8_t> out(size, 0xAA);
  for (const auto& [b, e] : present)
    for (size_t i = b; i < e && i < size; ++i) out[i] = data[i];
  return out;
}

// Listed in parts, round by round (at most 8, as core/ranged.js): once it lists, it must list as
// the whole file does.
void listInParts(const uint8_t* data, size_t size, const rs::PackageListing& whole) {
  rs::Spans present = {{0, size / 2}};
  for (int round = 0; round < 8; ++round) {
    const std::vector<uint8_t> parts = poisoned(data, size, present);
    rs::PackageListing listing;
    const rs::Status s = rs::listPackage(parts.data(), size, "Fuzz.u", listing, present);
    if (listing.package.missing.empty()) {
      if (!s.ok() || listing.package.names != whole.package.names ||
          listing.package.exports.size() != whole.package.exports.size() ||
          listing.meshes.size() != whole.meshes.size())
        std::abort();
      return;
    }
    for (const auto& span : listing.package.missing) present.push_back(span);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rs::PackageListing listing;
  if (!rs::listPackage(data, size, "Fuzz.u", listing).ok()) return 0;
  listInParts(data, size, listing);
  size_t decoded = 0;
  for (const auto* list : {&listing.meshes, &listing.textures, &listing.animations, &listing.texts}) {
    for (const rs::PackageEntry& e : *list) {
      if (decoded++ >= 32) return 0;
      rs::Model model;
      rs::Status s = rs::decodePackageObject(listing.package, data, e.index, model);
      (void)s;
    }
  }
  return 0;
}
