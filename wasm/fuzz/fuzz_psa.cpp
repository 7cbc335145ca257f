// libFuzzer target: the PSA decoder with its .config sidecar. Input: the .psa bytes, optionally
// followed by the part separator and the .config text (writers/fuzz_input.h). A plain .psa is a
// whole input; write_fuzz_seeds emits seeds of both kinds.
#include <cstddef>
#include <cstdint>
#include <string>

#include "formats/psk/psa.h"
#include "writers/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<rs::fuzz::Part> parts = rs::fuzz::splitParts(data, size, 2);
  rs::Model model;
  rs::Status s = rs::decodePsa(parts[0].data, parts[0].size, "fuzz.psa", parts[1].text(), model);
  (void)s;
  return 0;
}
