// libFuzzer: PCX, with and without palette index 0 masked (chosen by the last byte).
#include <cstddef>
#include <cstdint>

#include "formats/ue1/ue1.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rs::Model model;
  rs::decodePcx(data, size, "fuzz.pcx", size > 0 && (data[size - 1] & 1), model);
  return 0;
}
