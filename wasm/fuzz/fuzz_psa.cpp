// libFuzzer target: the PSA decoder and the .config parser. The first byte picks how much of the
// tail becomes .config text, so one input exercises both.
#include <cstddef>
#include <cstdint>
#include <string>

#include "formats/psk/psa.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  size_t configBytes = size_t(data[0]) * 4;
  ++data;
  --size;
  if (configBytes > size) configBytes = size;
  const size_t psaBytes = size - configBytes;
  std::string config(reinterpret_cast<const char*>(data + psaBytes), configBytes);
  rs::Model model;
  rs::Status s = rs::decodePsa(data, psaBytes, "fuzz.psa", config, model);
  (void)s;
  return 0;
}
