// Shared by the package reader's files: a bounds-checked reader of one byte range (a table, an
// object's data) whose first failure sticks and names the object, the field and the byte.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "formats/upackage/upackage.h"
#include "io/ascii.h"
#include "io/error.h"

namespace rs {
namespace upkg {

constexpr uint32_t kTag = 0x9E2A83C1u;
constexpr uint32_t kHasStack = 0x02000000u;  // RF_HasStack (§6)
constexpr int kMaxOuterDepth = 32;

// Where the bytes of the file given stop being there from `at` on: the file's size when it is
// given whole, else the end of the present span holding `at` (`at` itself when none does).
size_t presentEnd(const Package& pkg, size_t at);

// Adds [begin, end) to what the call needs and was not given (pkg.missing), once.
void noteMissing(const Package& pkg, size_t begin, size_t end);

// Where a reader of [begin, end) may read up to: a table (`ask` > 0) as far as its bytes are
// present; an object all of its range or none of it, so a count checked against its range is
// never followed by a read that finds its bytes missing.
inline size_t availableEnd(const Package& pkg, size_t begin, size_t end, size_t ask) {
  const size_t present = std::max(begin, presentEnd(pkg, begin));
  if (ask) return std::min(end, present);
  return present >= end ? end : begin;
}

// Reads inside [begin, end) of the file; offsets are file offsets. After the first failure every
// read returns 0 without moving, so a caller checks `failed()` where it matters (before using a
// count, at the end) instead of after every field.
//
// Of a package given in parts, a read past the bytes present fails and notes what is missing:
// from where it stopped, `ask` bytes (a table: as far as its entries could reach), or the whole
// range (an object: its data is read whole or not at all).
class Reader {
 public:
  Reader(const Package& pkg, const uint8_t* data, size_t begin, size_t end, std::string what, size_t ask = 0)
      : pkg_(pkg),
        data_(data),
        pos_(begin),
        begin_(begin),
        end_(end),
        avail_(availableEnd(pkg, begin, end, ask)),
        ask_(ask),
        what_(std::move(what)) {}

  size_t pos() const { return pos_; }
  size_t end() const { return end_; }
  size_t remaining() const { return failed() ? 0 : end_ - pos_; }
  bool failed() const { return !status_.ok(); }
  const Status& status() const { return status_; }
  // What the reads are about, for messages: "<what> entry <i>" within a table.
  std::string what() const;
  // The table entry the next reads are about. Only its number is kept: a message is made only when
  // a read fails (a text per entry cost a third of reading a 7,531-export package's tables).
  void entry(uint32_t i) { entry_ = int64_t(i); }
  // How far a read that finds its bytes missing asks for from there (a table: its entries left).
  void ask(size_t bytes) { ask_ = bytes; }
  const Package& package() const { return pkg_; }
  const uint8_t* at(size_t offset) const { return data_ + offset; }

  // Records the first failure: "<what>: <field> ..." at byte `offset`.
  bool fail(size_t offset, const char* fmt, ...)
#if defined(__GNUC__)
      __attribute__((format(printf, 3, 4)))
#endif
      ;

  uint8_t u8(const char* field);
  uint16_t u16(const char* field);
  uint32_t u32(const char* field);
  int32_t i32(const char* field) { return int32_t(u32(field)); }
  float f32(const char* field);
  int32_t index(const char* field);  // compact index (§2)
  // A name (FName): an index into the name table.
  std::string name(const char* field);
  // An object reference: 0, export k-1 (k > 0) or import -k-1 (k < 0), checked against the tables.
  int32_t object(const char* field, bool compact = true);
  // A TArray count: refused when `count` items of at least `minBytes` cannot fit in what remains.
  uint32_t count(const char* field, size_t minBytes);
  // A TLazyArray's SkipPos (v > 61), 0 otherwise.
  uint32_t skipPos(const char* field);
  // SkipPos must point exactly here.
  void checkSkip(uint32_t skip, const char* field);
  bool skip(size_t n, const char* field);
  // `n` raw bytes here (checked), or null.
  const uint8_t* take(size_t n, const char* field);
  // Fails unless the range was read exactly to its end (§6).
  bool expectEnd(const char* what);

 private:
  bool need(size_t n, const char* field);
  bool needMissing(size_t n, const char* field);
  const Package& pkg_;
  const uint8_t* data_;
  size_t pos_, begin_, end_;
  size_t avail_;  // the end of the bytes present (end_ when the file is given whole)
  size_t ask_;
  std::string what_;
  int64_t entry_ = -1;  // the table entry being read, -1 outside a table
  Status status_;
};

// Texture properties a viewer needs (§10), from the tagged property block.
struct Properties {
  int32_t format = 0;  // Format (absent = P8)
  int32_t uSize = 0, vSize = 0;
  int32_t palette = 0;  // object reference
  bool masked = false, hasComp = false;
  int32_t compFormat = -1;
  bool hasMipZero = false;
  uint8_t mipZero[4] = {0, 0, 0, 255};
  uint32_t count = 0;  // tags read
};

// The optional state frame and the tagged properties up to `None` (§6).
void readProperties(Reader& r, uint32_t objectFlags, Properties& props);

// "<Class> <path>" for messages.
std::string describeExport(const Package& pkg, uint32_t exportIndex);

// A reader over one export's data, or a failure when its range is outside the file.
Status objectRange(const Package& pkg, uint32_t exportIndex, size_t& begin, size_t& end);

// Object decoders (upackage_mesh.cpp, upackage_texture.cpp, upackage_animation.cpp).
Status decodeVertexMesh(const Package& pkg, const uint8_t* data, uint32_t exportIndex, Model& out);
Status decodeSkeletalMesh(const Package& pkg, const uint8_t* data, uint32_t exportIndex, Model& out);
Status decodeTexture(const Package& pkg, const uint8_t* data, uint32_t exportIndex, Model& out);
Status decodePalette(const Package& pkg, const uint8_t* data, uint32_t exportIndex, Model& out);
Status decodeAnimation(const Package& pkg, const uint8_t* data, uint32_t exportIndex, Model& out);
Status decodeTextBuffer(const Package& pkg, const uint8_t* data, uint32_t exportIndex, Model& out);

// Whether a Texture export of this package is masked (bMasked), from its property block only.
bool textureMasked(const Package& pkg, const uint8_t* data, int32_t ref);

// The facts every object model carries: package, object path, class.
void recordObjectInfo(const Package& pkg, uint32_t exportIndex, Model& out);

}  // namespace upkg
}  // namespace rs
