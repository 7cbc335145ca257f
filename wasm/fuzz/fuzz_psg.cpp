// libFuzzer target: PS3 model arenas. Seed with writePsgModel output (e.g. write_psg_fixtures'
// skinned_box.psg) and shared/samples/psg/*.psg.
#include <cstddef>
#include <cstdint>

#include "formats/psg/psg.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rs::Model model;
  rs::decodePsg(data, size, "fuzz.psg", model);
  return 0;
}
