// libFuzzer target: decodePssa must return a Status (never crash, hang or over-allocate) on any input.
#include <cstddef>
#include <cstdint>

#include "formats/zeroad/pssa.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rs::Model model;
  rs::Status status = rs::decodePssa(data, size, "fuzz.psa", model);
  (void)status;
  return 0;
}
