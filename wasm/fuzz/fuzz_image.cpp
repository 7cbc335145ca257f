// libFuzzer target: TGA, BMP and DDS. Seeds are whole image files (write_image_fixtures), so each
// reaches its decoder through decodeImage's choice by content; every decoder also reads the same
// bytes directly, so BMP and DDS paths past a mutated signature stay reachable.
#include <cstddef>
#include <cstdint>

#include "formats/image/image.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rs::Model byContent, tga, bmp, dds;
  rs::decodeImage(data, size, "fuzz.img", byContent);
  rs::decodeTga(data, size, "fuzz.tga", tga);
  rs::decodeBmp(data, size, "fuzz.bmp", bmp);
  rs::decodeDds(data, size, "fuzz.dds", dds);
  return 0;
}
