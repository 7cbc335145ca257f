// libFuzzer target: PS3 texture arenas. The input is decoded as an arena (seed with texture arenas
// such as box_textures.psg), and also spliced into a valid writer-made texture arena: its first 40
// bytes replace the Texture object (format, mips, size, cube, buffer reference) and the rest
// become the payload, so the mip-chain, cube and swizzle paths are reached without the fuzzer
// first having to rebuild the arena header.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "formats/psg/psg.h"
#include "writers/psg_writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rs::Model direct;
  rs::decodePsg(data, size, "fuzz.psg", direct);
  if (size < 40) return 0;

  rs::PsgTextureIn t;
  t.guid = 0x1122334455667788ull;
  t.format = 0x86;
  t.width = 4;
  t.height = 4;
  t.levels.push_back(std::vector<uint8_t>(data + 40, data + size));
  t.levels[0].resize(8);
  std::vector<uint8_t> arena = rs::writePsgTextures({t});
  // Row 1 is the Texture object; its dictionary row holds the object's file offset.
  const uint32_t dict = (uint32_t(arena[0x30]) << 24) | (uint32_t(arena[0x31]) << 16) | (uint32_t(arena[0x32]) << 8) | arena[0x33];
  const size_t row = dict + 24;
  const uint32_t obj = (uint32_t(arena[row]) << 24) | (uint32_t(arena[row + 1]) << 16) | (uint32_t(arena[row + 2]) << 8) | arena[row + 3];
  std::memcpy(arena.data() + obj, data, 40);
  // Payload: replace the graphics block with the remaining input and fix the sizes.
  const uint32_t mainSize = (uint32_t(arena[0x44]) << 24) | (uint32_t(arena[0x45]) << 16) | (uint32_t(arena[0x46]) << 8) | arena[0x47];
  arena.resize(mainSize);
  arena.insert(arena.end(), data + 40, data + size);
  const uint32_t gfx = uint32_t(size - 40);
  const uint8_t be[4] = {uint8_t(gfx >> 24), uint8_t(gfx >> 16), uint8_t(gfx >> 8), uint8_t(gfx)};
  std::memcpy(arena.data() + 0x6C, be, 4);           // graphics block size
  const size_t resRow = dict;                         // row 0: the BaseResource
  std::memcpy(arena.data() + resRow + 8, be, 4);      // its size
  rs::Model spliced;
  rs::decodePsg(arena.data(), arena.size(), "fuzz_texture.psg", spliced);
  return 0;
}
