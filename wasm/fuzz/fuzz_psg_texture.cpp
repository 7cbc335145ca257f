// libFuzzer target: PS3 texture arenas. An input of one part is decoded as an arena (seed with
// texture arenas such as box_textures.psg). An input of two parts (writers/fuzz_input.h) is a
// Texture object and a payload: the object's first 40 bytes (format, mips, size, cube, buffer
// reference) replace the Texture object of a valid writer-made texture arena and the payload
// becomes its graphics block, so the mip-chain, cube and swizzle paths are reached without the
// fuzzer first having to rebuild the arena header. write_fuzz_seeds emits both kinds.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "formats/psg/psg.h"
#include "writers/fuzz_input.h"
#include "writers/psg_writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<rs::fuzz::Part> parts = rs::fuzz::splitParts(data, size, 2);
  if (parts[1].data) {
    const std::vector<uint8_t> arena =
        rs::psgTextureArenaSpliced(parts[0].data, parts[0].size, parts[1].data, parts[1].size);
    rs::Model model;
    rs::decodePsg(arena.data(), arena.size(), "fuzz_texture.psg", model);
  } else {
    rs::Model model;
    rs::decodePsg(data, size, "fuzz.psg", model);
  }
  return 0;
}
