// libFuzzer: UE1 data + anim + .uc. Input layout: u16 data length, u16 anim length, then the
// data bytes, the anim bytes, and the rest as the .uc text (lengths are cut to what is present).
#include <cstddef>
#include <cstdint>
#include <string>

#include "formats/ue1/ue1.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  size_t dataLen = size_t(data[0] | (data[1] << 8));
  size_t animLen = size_t(data[2] | (data[3] << 8));
  const uint8_t* p = data + 4;
  size_t rest = size - 4;
  if (dataLen > rest) dataLen = rest;
  rest -= dataLen;
  if (animLen > rest) animLen = rest;
  rest -= animLen;
  std::string uc(reinterpret_cast<const char*>(p + dataLen + animLen), rest);
  rs::Model model;
  rs::decodeUe1(p, dataLen, "fuzz_d.3d", p + dataLen, animLen, "fuzz_a.3d", uc, "Fuzz.uc", model);
  return 0;
}
