// libFuzzer: the .uc #exec parser on its own.
#include <cstddef>
#include <cstdint>
#include <string>

#include "formats/ue1/ue1.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  rs::UcScript script = rs::parseUc(text);
  rs::findUcMesh(script, "fuzz_d.3d", "fuzz_a.3d");
  for (const rs::UcTextureImport& t : script.textureImports) rs::ucBaseName(t.file, true);
  return 0;
}
