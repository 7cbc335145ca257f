// libFuzzer target: a UE1 package, whole (writeUpackage output is a seed as it is). The tables are
// listed, then every mesh, texture, palette and animation export the listing names is decoded (the first 32:
// a hostile table of thousands of exports must not make one input take minutes).
#include <cstddef>
#include <cstdint>

#include "formats/upackage/upackage.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rs::PackageListing listing;
  if (!rs::listPackage(data, size, "Fuzz.u", listing).ok()) return 0;
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
