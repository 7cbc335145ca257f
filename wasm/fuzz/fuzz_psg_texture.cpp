// libFuzzer target: PS3 texture arenas. An input of one part is decoded as an arena (seed with
// texture arenas such as box_textures.psg). An input of two parts (writers/fuzz_input.h) is a
// Texture object and a payload: the object's first 40 bytes (format, mips, size, cube, buffer
// reference) replace the Texture object of a valid writer-made texture arena and the payload
// becomes its graphics block, so the mip-chain, cube and swizzle paths are reached without the
// fuzzer first having to rebuild the arena header. write_fuzz_seeds emits both kinds.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "formats/psg/psg.h"
#include "writers/fuzz_input.h"
#include "writers/psg_writer.h"

namespace {

uint32_t be32(const std::vector<uint8_t>& b, size_t at) {
  return (uint32_t(b[at]) << 24) | (uint32_t(b[at + 1]) << 16) | (uint32_t(b[at + 2]) << 8) | b[at + 3];
}

void spliceAndDecode(const rs::fuzz::Part& object, const rs::fuzz::Part& payload) {
  rs::PsgTextureIn t;
  t.guid = 0x1122334455667788ull;
  t.format = 0x86;
  t.width = 4;
  t.height = 4;
  t.levels.push_back(std::vector<uint8_t>(8, 0));
  std::vector<uint8_t> arena = rs::writePsgTextures({t});
  // Row 1 is the Texture object; its dictionary row holds the object's file offset.
  const uint32_t dict = be32(arena, 0x30);
  const uint32_t obj = be32(arena, dict + 24);
  uint8_t fields[40] = {};
  std::memcpy(fields, object.data, object.size < 40 ? object.size : 40);
  std::memcpy(arena.data() + obj, fields, 40);
  // Payload: replace the graphics block with the second part and fix the sizes.
  arena.resize(be32(arena, 0x44));
  arena.insert(arena.end(), payload.data, payload.data + payload.size);
  const uint32_t gfx = uint32_t(payload.size);
  const uint8_t be[4] = {uint8_t(gfx >> 24), uint8_t(gfx >> 16), uint8_t(gfx >> 8), uint8_t(gfx)};
  std::memcpy(arena.data() + 0x6C, be, 4);  // graphics block size
  std::memcpy(arena.data() + dict + 8, be, 4);  // row 0, the BaseResource: its size
  rs::Model model;
  rs::decodePsg(arena.data(), arena.size(), "fuzz_texture.psg", model);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<rs::fuzz::Part> parts = rs::fuzz::splitParts(data, size, 2);
  if (parts[1].data) {
    spliceAndDecode(parts[0], parts[1]);
  } else {
    rs::Model model;
    rs::decodePsg(data, size, "fuzz.psg", model);
  }
  return 0;
}
