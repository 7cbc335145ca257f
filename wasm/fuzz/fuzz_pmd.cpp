// libFuzzer target: decodePmd must return a Status (never crash, hang or over-allocate) on any input.
#include <cstddef>
#include <cstdint>

#include "formats/zeroad/pmd.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rs::Model model;
  rs::Status status = rs::decodePmd(data, size, "fuzz.pmd", model);
  (void)status;
  return 0;
}
