#include "io/error.h"

#include <cstdio>

namespace rs {

static std::string vformat(const char* fmt, va_list args) {
  char stackBuf[512];
  va_list copy;
  va_copy(copy, args);
  int n = std::vsnprintf(stackBuf, sizeof stackBuf, fmt, copy);
  va_end(copy);
  if (n < 0) return std::string(fmt);
  if (size_t(n) < sizeof stackBuf) return std::string(stackBuf, size_t(n));
  std::string out(size_t(n), '\0');
  std::vsnprintf(&out[0], size_t(n) + 1, fmt, args);
  return out;
}

std::string format(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::string s = vformat(fmt, args);
  va_end(args);
  return s;
}

Status fail(const char* formatName, const std::string& file, size_t offset, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::string what = vformat(fmt, args);
  va_end(args);
  Status s;
  s.error = format("%s %s: %s (at byte %zu)", formatName, file.c_str(), what.c_str(), offset);
  return s;
}

}  // namespace rs
