#include "io/byte_reader.h"

namespace rs {

std::string fixedName(const uint8_t* p, size_t width) {
  size_t n = 0;
  while (n < width && p[n] != 0) ++n;
  while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t')) --n;
  std::string s(reinterpret_cast<const char*>(p), n);
  // Latin-1/cp1252 bytes become U+0080..U+00FF so the string is valid UTF-8 for Embind.
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (c < 0x80) {
      out.push_back(char(c));
    } else {
      out.push_back(char(0xC0 | (c >> 6)));
      out.push_back(char(0x80 | (c & 0x3F)));
    }
  }
  return out;
}

}  // namespace rs
