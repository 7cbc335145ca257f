// libFuzzer target: the PSK decoder must return an error or a model for any input, never crash.
#include <cstddef>
#include <cstdint>

#include "formats/psk/psk.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rs::Model model;
  rs::Status s = rs::decodePsk(data, size, "fuzz.psk", model);
  (void)s;
  return 0;
}
