// Errors are values: the core builds with -fno-exceptions, and a message must reach JavaScript
// intact. Every message names format, file, field and byte offset.
#pragma once
#include <cstdarg>
#include <cstddef>
#include <string>

namespace rs {

struct Status {
  std::string error;  // empty = success
  bool ok() const { return error.empty(); }
};

// printf-style message builder.
std::string format(const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

// "<FORMAT> <file>: <what> at byte <offset>"-style failure.
// Usage: return fail("PSK", file, offset, "chunk %s declares %d records", id, n);
Status fail(const char* formatName, const std::string& file, size_t offset, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

}  // namespace rs
