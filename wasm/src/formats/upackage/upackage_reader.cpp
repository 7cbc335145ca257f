// The package reader's primitives (§2) and tagged properties (§6).
#include <algorithm>
#include <cstdarg>
#include <cstdio>

#include "formats/upackage/upackage_internal.h"
#include "io/bytes.h"

namespace rs {
namespace upkg {

bool Reader::fail(size_t offset, const char* fmt, ...) {
  if (failed()) return false;
  char buf[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  status_ = rs::fail("UPACKAGE", pkg_.file, offset, "%s: %s", what().c_str(), buf);
  return false;
}

std::string Reader::what() const {
  return entry_ < 0 ? what_ : format("%s entry %lld", what_.c_str(), static_cast<long long>(entry_));
}

size_t presentEnd(const Package& pkg, size_t at) {
  if (pkg.present.empty()) return pkg.size;
  for (const auto& [begin, end] : pkg.present)
    if (begin <= at && at < end) return end;
  return at;
}

void noteMissing(const Package& pkg, size_t begin, size_t end) {
  end = std::min(end, pkg.size);
  if (begin >= end) return;
  for (const auto& span : pkg.missing)
    if (span.first <= begin && end <= span.second) return;
  pkg.missing.emplace_back(begin, end);
}

bool Reader::need(size_t n, const char* field) {
  if (failed()) return false;
  if (n <= avail_ - pos_) return true;
  return needMissing(n, field);
}

// Past the bytes present: within the range, the bytes are not there yet (noted as missing);
// past the range, the file is damaged.
bool Reader::needMissing(size_t n, const char* field) {
  if (n > end_ - pos_)
    return fail(pos_, "%s needs %zu bytes, %zu remain of the %zu-byte range", field, n, end_ - pos_, end_ - begin_);
  if (ask_)
    noteMissing(pkg_, pos_, std::min(end_, pos_ + std::max(ask_, n)));
  else
    noteMissing(pkg_, begin_, end_);
  return fail(pos_, "%s: bytes %zu to %zu are not read yet", field, pos_, pos_ + n);
}

uint8_t Reader::u8(const char* field) {
  if (!need(1, field)) return 0;
  return data_[pos_++];
}

uint16_t Reader::u16(const char* field) {
  if (!need(2, field)) return 0;
  pos_ += 2;
  return load_u16le(data_ + pos_ - 2);
}

uint32_t Reader::u32(const char* field) {
  if (!need(4, field)) return 0;
  pos_ += 4;
  return load_u32le(data_ + pos_ - 4);
}

float Reader::f32(const char* field) {
  if (!need(4, field)) return 0;
  pos_ += 4;
  return load_f32le(data_ + pos_ - 4);
}

// Byte 0: sign, "more", 6 value bits; bytes 1-3: "more", 7 value bits; byte 4: 8 value bits (§2).
int32_t Reader::index(const char* field) {
  const size_t start = pos_;
  const uint8_t b0 = u8(field);
  uint64_t v = b0 & 0x3F;
  if (b0 & 0x40) {
    int shift = 6;
    for (int i = 1; i < 5 && !failed(); ++i) {
      const uint8_t b = u8(field);
      if (i < 4) {
        v |= uint64_t(b & 0x7F) << shift;
        shift += 7;
        if (!(b & 0x80)) break;
      } else {
        v |= uint64_t(b) << 27;
      }
    }
  }
  if (failed()) return 0;
  if (v > 0x7FFFFFFFull) {
    fail(start, "%s: compact index needs more than 31 bits", field);
    return 0;
  }
  return (b0 & 0x80) ? -int32_t(v) : int32_t(v);
}

std::string Reader::name(const char* field) {
  const size_t start = pos_;
  const int32_t i = index(field);
  if (failed()) return std::string();
  if (i < 0 || size_t(i) >= pkg_.names.size()) {
    fail(start, "%s: name index %d is outside the name table of %zu names", field, i, pkg_.names.size());
    return std::string();
  }
  return pkg_.names[size_t(i)];
}

int32_t Reader::object(const char* field, bool compact) {
  const size_t start = pos_;
  const int32_t ref = compact ? index(field) : i32(field);
  if (failed()) return 0;
  const bool ok =
      ref > 0 ? size_t(ref) <= pkg_.exports.size() : ref == 0 || uint64_t(-int64_t(ref)) <= pkg_.imports.size();
  if (!ok) {
    fail(start, "%s: object reference %d is outside the %zu imports and %zu exports", field, ref, pkg_.imports.size(),
         pkg_.exports.size());
    return 0;
  }
  return ref;
}

uint32_t Reader::count(const char* field, size_t minBytes) {
  const size_t start = pos_;
  const int32_t n = index(field);
  if (failed()) return 0;
  if (n < 0) {
    fail(start, "%s: count %d is negative", field, n);
    return 0;
  }
  if (minBytes && uint64_t(n) > (end_ - pos_) / minBytes) {
    fail(start, "%s declares %d records of at least %zu bytes, %zu bytes remain", field, n, minBytes, end_ - pos_);
    return 0;
  }
  return uint32_t(n);
}

uint32_t Reader::skipPos(const char* field) {
  if (pkg_.version <= 61) return 0;
  return u32(field);
}

void Reader::checkSkip(uint32_t skip, const char* field) {
  if (failed() || pkg_.version <= 61) return;
  if (skip != pos_) fail(pos_, "%s: SkipPos %u does not point to the end of the array", field, skip);
}

bool Reader::skip(size_t n, const char* field) {
  if (!need(n, field)) return false;
  pos_ += n;
  return true;
}

const uint8_t* Reader::take(size_t n, const char* field) {
  if (!need(n, field)) return nullptr;
  pos_ += n;
  return data_ + pos_ - n;
}

bool Reader::expectEnd(const char* what) {
  if (failed()) return false;
  if (pos_ == end_) return true;
  return fail(pos_, "%s ends %zu bytes before the object's end (SerialSize %zu)", what, end_ - pos_, end_ - begin_);
}

// ---- properties (§6) ----------------------------------------------------------------------------

namespace {

enum PropertyType : uint8_t { kByte = 1, kInt = 2, kBool = 3, kObject = 5, kStruct = 10 };

// Integers come as Int (4 bytes) or Byte (1).
int32_t readInt(Reader& v, uint8_t type, uint32_t size) {
  if (type == kByte || size == 1) return v.u8("property value");
  if (size == 2) return v.u16("property value");
  return v.i32("property value");
}

void keep(Reader& v, const std::string& name, uint8_t type, uint32_t size, bool boolValue, Properties& p) {
  if (type == kBool) {
    if (equalsNoCase(name, "bMasked")) p.masked = boolValue;
    if (equalsNoCase(name, "bHasComp")) p.hasComp = boolValue;
    return;
  }
  if (equalsNoCase(name, "Format") && (type == kByte || type == kInt)) {
    p.format = readInt(v, type, size);
  } else if (equalsNoCase(name, "USize") && (type == kByte || type == kInt)) {
    p.uSize = readInt(v, type, size);
  } else if (equalsNoCase(name, "VSize") && (type == kByte || type == kInt)) {
    p.vSize = readInt(v, type, size);
  } else if (equalsNoCase(name, "CompFormat") && (type == kByte || type == kInt)) {
    p.compFormat = readInt(v, type, size);
  } else if (equalsNoCase(name, "Palette") && type == kObject) {
    p.palette = v.object("Palette property");
  } else if (equalsNoCase(name, "MipZero") && type == kStruct && size == 4) {
    for (int k = 0; k < 4; ++k) p.mipZero[k] = v.u8("MipZero");
    p.hasMipZero = true;
  }
}

}  // namespace

void readProperties(Reader& r, uint32_t objectFlags, Properties& props) {
  if (objectFlags & kHasStack) {
    const int32_t node = r.index("state frame Node");
    r.index("state frame StateNode");
    r.skip(8, "state frame ProbeMask");
    r.i32("state frame LatentAction");
    if (node != 0) r.index("state frame Offset");
  }
  // Every tag takes at least 2 bytes: the loop ends with the object's bytes.
  while (!r.failed()) {
    const size_t tagAt = r.pos();
    const std::string name = r.name("property name");
    if (r.failed() || equalsNoCase(name, "None")) return;
    const uint8_t info = r.u8("property info");
    const uint8_t type = info & 0x0F;
    if (type == 10) r.name("property struct name");
    uint32_t size = 0;
    switch ((info >> 4) & 7) {
      case 0: size = 1; break;
      case 1: size = 2; break;
      case 2: size = 4; break;
      case 3: size = 12; break;
      case 4: size = 16; break;
      case 5: size = r.u8("property size"); break;
      case 6: size = r.u16("property size"); break;
      default: {
        const int32_t s = r.i32("property size");
        if (s < 0) {
          r.fail(tagAt, "property %s: size %d is negative", name.c_str(), s);
          return;
        }
        size = uint32_t(s);
      }
    }
    uint32_t arrayIndex = 0;
    if ((info & 0x80) && type != kBool) {
      const uint8_t b = r.u8("property array index");
      if (b < 0x80) {
        arrayIndex = b;
      } else if ((b & 0xC0) == 0x80) {
        arrayIndex = (uint32_t(b & 0x7F) << 8) | r.u8("property array index");
      } else {
        arrayIndex = uint32_t(b & 0x3F) << 24;
        arrayIndex |= uint32_t(r.u8("property array index")) << 16;
        arrayIndex |= uint32_t(r.u8("property array index")) << 8;
        arrayIndex |= r.u8("property array index");
      }
    }
    if (type == 0) {
      r.fail(tagAt, "property %s has type 0", name.c_str());
      return;
    }
    const size_t valueAt = r.pos();
    if (!r.skip(size, "property value")) return;
    ++props.count;
    if (arrayIndex == 0) {
      Reader v(r.package(), r.at(0), valueAt, valueAt + size, r.what() + ": property " + name);
      keep(v, name, type, size, (info & 0x80) != 0, props);
      if (v.failed()) {
        r.fail(valueAt, "property %s: %zu-byte value does not hold its type %u", name.c_str(), size_t(size), type);
        return;
      }
    }
  }
}

}  // namespace upkg
}  // namespace rs
