// libFuzzer target: a UE1 vertex mesh. Input: the _d.3d bytes, the part separator, the _a.3d bytes,
// the separator, and the .uc text (writers/fuzz_input.h); write_fuzz_seeds emits seeds in this
// layout. Missing parts are empty files.
#include <cstddef>
#include <cstdint>
#include <string>

#include "formats/ue1/ue1.h"
#include "writers/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<rs::fuzz::Part> parts = rs::fuzz::splitParts(data, size, 3);
  rs::Model model;
  rs::Status s = rs::decodeUe1(parts[0].data, parts[0].size, "fuzz_d.3d", parts[1].data, parts[1].size, "fuzz_a.3d",
                               parts[2].text(), "Fuzz.uc", model);
  (void)s;
  return 0;
}
