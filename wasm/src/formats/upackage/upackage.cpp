// UE1 package tables (§3–§5), the listing, and the dispatch of one export to its decoder.
#include "formats/upackage/upackage.h"

#include <algorithm>

#include "convert/chunks.h"
#include "formats/upackage/upackage_internal.h"
#include "io/byte_reader.h"
#include "io/bytes.h"

namespace rs {

using upkg::Reader;

namespace {

// Smallest table entries: a name (v >= 64: length, flags), an import (3 indices and an INT), an
// export (Class, Super, Outer, Name, Flags, SerialSize). Counts are checked against these.
constexpr size_t kMinName = 5, kMinImport = 7, kMinExport = 12;
// Largest table entries, for what a package given in parts is asked to read next: a name (a
// compact length, the engine's 64 characters, flags), an import (3 indices and an INT), an
// export (5 indices, 2 INTs); a compact index takes at most 5 bytes.
constexpr size_t kMaxName = 5 + 64 + 4, kMaxImport = 3 * 5 + 4, kMaxExport = 5 * 5 + 2 * 4;
// What is asked for first when even the header is missing.
constexpr size_t kHeaderAsk = 64 * 1024;

std::string stem(const std::string& file) {
  const size_t slash = file.find_last_of("/\\");
  std::string base = slash == std::string::npos ? file : file.substr(slash + 1);
  const size_t dot = base.find_last_of('.');
  return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

// Latin-1 bytes to UTF-8, as every other decoder's names (fixedName).
std::string nameText(const uint8_t* p, size_t n) { return fixedName(p, n); }

// A table's count (the header field at `countAt`) against the bytes after its offset: every entry
// takes `minEntry` bytes at least, so a count no file could hold is refused before any is read.
Status tableFits(const Package& pkg, const char* field, size_t countAt, uint32_t count, uint32_t offset,
                 size_t minEntry) {
  if (uint64_t(count) <= (pkg.size - offset) / minEntry) return Status{};
  return fail("UPACKAGE", pkg.file, countAt, "%s %u needs at least %llu bytes from byte %u, %zu remain", field, count,
              (unsigned long long)count * minEntry, offset, pkg.size - offset);
}

RS_STEP Status readNames(Package& pkg, const uint8_t* data, uint32_t count, uint32_t offset) {
  if (Status s = tableFits(pkg, "NameCount", 12, count, offset, kMinName); !s.ok()) return s;
  Reader r(pkg, data, offset, pkg.size, "name table", size_t(count) * kMaxName);
  pkg.names.reserve(count);
  for (uint32_t i = 0; i < count && !r.failed(); ++i) {
    const size_t at = r.pos();
    r.entry(i);
    r.ask(size_t(count - i) * kMaxName);
    if (pkg.version >= 64) {
      const int32_t len = r.index("name length");
      if (r.failed()) break;
      if (len < 0 || size_t(len) > r.remaining())
        return fail("UPACKAGE", pkg.file, at, "name %u: length %d does not fit in the %zu bytes left", i, len,
                    r.remaining());
      const uint8_t* p = r.take(size_t(len), "name");
      if (!p) break;  // its bytes are not read yet (a package given in parts)
      pkg.names.push_back(nameText(p, size_t(len)));
    } else {
      // Before v64 a name is NUL-terminated text.
      const size_t stop = upkg::presentEnd(pkg, at);
      size_t n = 0;
      while (at + n < stop && data[at + n] != 0) ++n;
      if (at + n >= stop && stop < pkg.size) {
        upkg::noteMissing(pkg, stop, stop + size_t(count - i) * kMaxName);
        return fail("UPACKAGE", pkg.file, stop, "name %u: bytes from %zu are not read yet", i, stop);
      }
      if (at + n >= pkg.size) return fail("UPACKAGE", pkg.file, at, "name %u runs past the end of the file", i);
      pkg.names.push_back(nameText(data + at, n));
      r.skip(n + 1, "name");
    }
    r.u32("name flags");
  }
  return r.status();
}

RS_STEP Status readImports(Package& pkg, const uint8_t* data, uint32_t count, uint32_t offset) {
  if (Status s = tableFits(pkg, "ImportCount", 28, count, offset, kMinImport); !s.ok()) return s;
  Reader r(pkg, data, offset, pkg.size, "import table", size_t(count) * kMaxImport);
  pkg.imports.resize(count);
  for (uint32_t i = 0; i < count && !r.failed(); ++i) {
    PackageImport& im = pkg.imports[i];
    im.at = r.pos();
    r.entry(i);
    r.ask(size_t(count - i) * kMaxImport);
    im.classPackage = r.name("import ClassPackage");
    im.className = r.name("import ClassName");
    im.outer = r.i32("import Outer");
    im.name = r.name("import ObjectName");
  }
  return r.status();
}

RS_STEP Status readExports(Package& pkg, const uint8_t* data, uint32_t count, uint32_t offset) {
  if (Status s = tableFits(pkg, "ExportCount", 20, count, offset, kMinExport); !s.ok()) return s;
  Reader r(pkg, data, offset, pkg.size, "export table", size_t(count) * kMaxExport);
  pkg.exports.resize(count);
  for (uint32_t i = 0; i < count && !r.failed(); ++i) {
    PackageExport& ex = pkg.exports[i];
    ex.at = r.pos();
    r.entry(i);
    r.ask(size_t(count - i) * kMaxExport);
    ex.classRef = r.index("export Class");
    ex.superRef = r.index("export Super");
    ex.outer = r.i32("export Outer");
    ex.name = r.name("export ObjectName");
    ex.flags = r.u32("export ObjectFlags");
    const int32_t size = r.index("export SerialSize");
    if (size < 0)
      return fail("UPACKAGE", pkg.file, ex.at, "export %u (%s): SerialSize %d is negative", i, ex.name.c_str(), size);
    ex.serialSize = uint32_t(size);
    if (size > 0) {
      const int32_t off = r.index("export SerialOffset");
      if (off < 0)
        return fail("UPACKAGE", pkg.file, ex.at, "export %u (%s): SerialOffset %d is negative", i, ex.name.c_str(),
                    off);
      ex.serialOffset = uint32_t(off);
    }
  }
  return r.status();
}

// Spans sorted, overlapping and touching ones made one: a read is checked against one span.
Spans mergedSpans(Spans spans) {
  std::sort(spans.begin(), spans.end());
  Spans out;
  for (const auto& s : spans) {
    if (s.first >= s.second) continue;
    if (!out.empty() && s.first <= out.back().second)
      out.back().second = std::max(out.back().second, s.second);
    else
      out.push_back(s);
  }
  // Spans that were all empty still mean a file given in parts, of which nothing is present.
  if (out.empty() && !spans.empty()) out.emplace_back(0, 0);
  return out;
}

bool validRef(const Package& pkg, int32_t ref) {
  return ref > 0 ? size_t(ref) <= pkg.exports.size() : ref == 0 || uint64_t(-int64_t(ref)) <= pkg.imports.size();
}

int32_t outerOf(const Package& pkg, int32_t ref) {
  return ref > 0 ? pkg.exports[size_t(ref - 1)].outer : pkg.imports[size_t(-ref - 1)].outer;
}

const std::string& nameOf(const Package& pkg, int32_t ref) {
  return ref > 0 ? pkg.exports[size_t(ref - 1)].name : pkg.imports[size_t(-ref - 1)].name;
}

// Every object reference of the tables in range, every Outer chain ending within 32 steps (§5).
RS_STEP Status checkReferences(Package& pkg) {
  for (size_t i = 0; i < pkg.imports.size(); ++i) {
    const PackageImport& im = pkg.imports[i];
    if (!validRef(pkg, im.outer))
      return fail("UPACKAGE", pkg.file, im.at + 0,
                  "import %zu (%s): Outer %d is outside the %zu imports and %zu exports", i, im.name.c_str(), im.outer,
                  pkg.imports.size(), pkg.exports.size());
  }
  for (size_t i = 0; i < pkg.exports.size(); ++i) {
    PackageExport& ex = pkg.exports[i];
    if (!validRef(pkg, ex.outer) || !validRef(pkg, ex.classRef) || !validRef(pkg, ex.superRef))
      return fail("UPACKAGE", pkg.file, ex.at,
                  "export %zu (%s): Class %d, Super %d or Outer %d is outside the %zu imports and %zu exports", i,
                  ex.name.c_str(), ex.classRef, ex.superRef, ex.outer, pkg.imports.size(), pkg.exports.size());
    ex.className = ex.classRef == 0 ? std::string("Class") : nameOf(pkg, ex.classRef);
  }
  const auto walk = [&pkg](int32_t start, const char* kind, size_t i, size_t at) -> Status {
    int32_t ref = outerOf(pkg, start);
    for (int depth = 0; ref != 0; ++depth) {
      if (depth >= upkg::kMaxOuterDepth)
        return fail("UPACKAGE", pkg.file, at,
                    "%s %zu (%s): Outer chain loops or is deeper than %d (it passes %s again and again)", kind, i,
                    nameOf(pkg, start).c_str(), upkg::kMaxOuterDepth, nameOf(pkg, ref).c_str());
      ref = outerOf(pkg, ref);
    }
    return Status();
  };
  for (size_t i = 0; i < pkg.imports.size(); ++i) {
    Status s = walk(-int32_t(i) - 1, "import", i, pkg.imports[i].at);
    if (!s.ok()) return s;
  }
  for (size_t i = 0; i < pkg.exports.size(); ++i) {
    Status s = walk(int32_t(i) + 1, "export", i, pkg.exports[i].at);
    if (!s.ok()) return s;
  }
  return Status();
}

}  // namespace

RS_STEP Status readPackage(const uint8_t* data, size_t size, const std::string& file, Package& pkg,
                           const Spans& present) {
  pkg = Package();
  pkg.file = file;
  pkg.name = stem(file);
  pkg.size = size;
  pkg.present = mergedSpans(present);
  if (!data || size < 36) return fail("UPACKAGE", file, 0, "file is %zu bytes, shorter than the 36-byte header", size);
  if (upkg::presentEnd(pkg, 0) < 36) {
    upkg::noteMissing(pkg, 0, kHeaderAsk);
    return fail("UPACKAGE", file, 0, "the header is not read yet");
  }
  if (load_u32le(data) != upkg::kTag)
    return fail("UPACKAGE", file, 0, "tag 0x%08X is not 0x9E2A83C1 (not an Unreal package)", load_u32le(data));
  pkg.version = load_u16le(data + 4);
  pkg.licensee = load_u16le(data + 6);
  pkg.flags = load_u32le(data + 8);
  const uint32_t nameCount = load_u32le(data + 12), nameOffset = load_u32le(data + 16);
  const uint32_t exportCount = load_u32le(data + 20), exportOffset = load_u32le(data + 24);
  const uint32_t importCount = load_u32le(data + 28), importOffset = load_u32le(data + 32);
  if (pkg.version < 61 || pkg.version > 69)
    if (pkg.version != 79 && pkg.version != 107)
      pkg.warnings.push_back(
          format("version %u is not one of 61-69, 79 or 107; read with the same layout", pkg.version));
  const struct {
    uint32_t offset;
    size_t field;
    const char* what;
  } tables[] = {{nameOffset, 16, "NameOffset"}, {exportOffset, 24, "ExportOffset"}, {importOffset, 32, "ImportOffset"}};
  for (const auto& t : tables)
    if (t.offset >= size)
      return fail("UPACKAGE", file, t.field, "%s %u is past the end of the %zu-byte file", t.what, t.offset, size);
  // Each table is read even when one before it failed: of a package given in parts, one call
  // then says all that its tables are missing.
  const Status read[] = {readNames(pkg, data, nameCount, nameOffset), readImports(pkg, data, importCount, importOffset),
                         readExports(pkg, data, exportCount, exportOffset)};
  for (const Status& s : read)
    if (!s.ok()) return s;
  return checkReferences(pkg);
}

std::string packageObjectPath(const Package& pkg, int32_t ref) {
  if (ref == 0 || !validRef(pkg, ref)) return std::string();
  std::vector<const std::string*> parts;
  int32_t last = ref;
  // checkReferences bounded every chain; the depth limit stays for tables built by hand.
  for (int depth = 0; ref != 0 && depth <= upkg::kMaxOuterDepth; ++depth) {
    parts.push_back(&nameOf(pkg, ref));
    last = ref;
    ref = outerOf(pkg, ref);
  }
  std::string path = last > 0 ? pkg.name : std::string();
  for (size_t i = parts.size(); i-- > 0;) {
    if (!path.empty()) path += '.';
    path += *parts[i];
  }
  return path;
}

bool isPackageMeshClass(const std::string& c) {
  return equalsNoCase(c, "Mesh") || equalsNoCase(c, "LodMesh") || equalsNoCase(c, "SkeletalMesh");
}

bool isPackageTextureClass(const std::string& c) {
  static const char* const kClasses[] = {"Texture",    "FireTexture",     "IceTexture", "WaveTexture",
                                         "WetTexture", "ScriptedTexture", "Palette"};
  for (const char* k : kClasses)
    if (equalsNoCase(c, k)) return true;
  return false;
}

Status listPackage(const uint8_t* data, size_t size, const std::string& file, PackageListing& out,
                   const Spans& present) {
  out = PackageListing();
  Status s = readPackage(data, size, file, out.package, present);
  if (!s.ok()) return s;
  const Package& pkg = out.package;
  size_t pastEnd = 0;
  for (uint32_t i = 0; i < pkg.exports.size(); ++i) {
    const PackageExport& ex = pkg.exports[i];
    auto known = std::find_if(out.classes.begin(), out.classes.end(),
                              [&](const std::pair<std::string, double>& c) { return c.first == ex.className; });
    if (known == out.classes.end())
      out.classes.emplace_back(ex.className, 1);
    else
      known->second += 1;
    if (uint64_t(ex.serialOffset) + ex.serialSize > size) ++pastEnd;
    const bool mesh = isPackageMeshClass(ex.className), texture = isPackageTextureClass(ex.className),
               animation = equalsNoCase(ex.className, "Animation"), text = equalsNoCase(ex.className, "TextBuffer");
    if (!mesh && !texture && !animation && !text) continue;
    PackageEntry e;
    e.index = i;
    e.name = ex.name;
    e.className = ex.className;
    e.path = packageObjectPath(pkg, int32_t(i) + 1);
    // Between the package's name and the object's own name.
    const size_t first = e.path.find('.'), lastDot = e.path.find_last_of('.');
    if (first != std::string::npos && lastDot > first) e.group = e.path.substr(first + 1, lastDot - first - 1);
    e.serialSize = ex.serialSize;
    e.serialOffset = ex.serialOffset;
    (mesh ? out.meshes : texture ? out.textures : animation ? out.animations : out.texts).push_back(std::move(e));
  }
  if (pastEnd)
    out.package.warnings.push_back(format("%zu export%s data past the end of the %zu-byte file", pastEnd,
                                          pastEnd == 1 ? " declares" : "s declare", size));
  return Status();
}

namespace upkg {

std::string describeExport(const Package& pkg, uint32_t exportIndex) {
  const PackageExport& ex = pkg.exports[exportIndex];
  return ex.className + " " + packageObjectPath(pkg, int32_t(exportIndex) + 1);
}

Status objectRange(const Package& pkg, uint32_t exportIndex, size_t& begin, size_t& end) {
  const PackageExport& ex = pkg.exports[exportIndex];
  if (ex.serialSize == 0)
    return fail("UPACKAGE", pkg.file, ex.at, "%s: SerialSize is 0, the object has no data",
                describeExport(pkg, exportIndex).c_str());
  if (uint64_t(ex.serialOffset) + ex.serialSize > pkg.size)
    return fail("UPACKAGE", pkg.file, ex.at,
                "%s: SerialOffset %u + SerialSize %u runs past the end of the %zu-byte file",
                describeExport(pkg, exportIndex).c_str(), ex.serialOffset, ex.serialSize, pkg.size);
  begin = ex.serialOffset;
  end = size_t(ex.serialOffset) + ex.serialSize;
  return Status();
}

// TextBuffer: the tagged properties, Pos and Top (INT), then Text (FString: a compact length that
// counts the closing NUL, then the bytes). A class's TextBuffer is its .uc source, #exec lines and all.
RS_STEP Status decodeTextBuffer(const Package& pkg, const uint8_t* data, uint32_t exportIndex, Model& out) {
  size_t begin = 0, end = 0;
  Status st = objectRange(pkg, exportIndex, begin, end);
  if (!st.ok()) return st;
  Reader r(pkg, data, begin, end, describeExport(pkg, exportIndex));
  Properties props;
  readProperties(r, pkg.exports[exportIndex].flags, props);
  r.i32("Pos");
  r.i32("Top");
  const size_t at = r.pos();
  const int32_t length = r.index("Text");
  if (!r.failed() && (length < 0 || size_t(length) > r.remaining()))
    r.fail(at, "Text length %d, %zu bytes remain (UTF-16 text is not read)", length, r.remaining());
  const uint8_t* text = r.failed() ? nullptr : r.take(size_t(length), "Text");
  r.expectEnd("TextBuffer data");
  if (r.failed()) return r.status();
  size_t n = size_t(length);
  while (n > 0 && text[n - 1] == 0) --n;
  out.format = "upackage-text";
  out.name = pkg.exports[exportIndex].name;
  out.count("bytes", double(n));
  out.info.emplace_back("text", fixedName(text, n));
  return Status();
}

void recordObjectInfo(const Package& pkg, uint32_t exportIndex, Model& out) {
  out.info.emplace_back("package", pkg.name);
  out.info.emplace_back("object", packageObjectPath(pkg, int32_t(exportIndex) + 1));
  out.info.emplace_back("className", pkg.exports[exportIndex].className);
  out.info.emplace_back("packageVersion", format("%u", pkg.version));
}

}  // namespace upkg

Status decodePackageObject(const Package& pkg, const uint8_t* data, uint32_t exportIndex, Model& out) {
  if (exportIndex >= pkg.exports.size())
    return fail("UPACKAGE", pkg.file, 20, "export %u asked for, the package has %zu", exportIndex, pkg.exports.size());
  const std::string& c = pkg.exports[exportIndex].className;
  Status s;
  if (equalsNoCase(c, "Mesh") || equalsNoCase(c, "LodMesh")) {
    s = upkg::decodeVertexMesh(pkg, data, exportIndex, out);
  } else if (equalsNoCase(c, "SkeletalMesh")) {
    s = upkg::decodeSkeletalMesh(pkg, data, exportIndex, out);
  } else if (equalsNoCase(c, "Palette")) {
    s = upkg::decodePalette(pkg, data, exportIndex, out);
  } else if (isPackageTextureClass(c)) {
    s = upkg::decodeTexture(pkg, data, exportIndex, out);
  } else if (equalsNoCase(c, "Animation")) {
    s = upkg::decodeAnimation(pkg, data, exportIndex, out);
  } else if (equalsNoCase(c, "TextBuffer")) {
    s = upkg::decodeTextBuffer(pkg, data, exportIndex, out);
  } else {
    return fail("UPACKAGE", pkg.file, pkg.exports[exportIndex].at,
                "%s: class %s is not a mesh, an animation or a texture", upkg::describeExport(pkg, exportIndex).c_str(),
                c.c_str());
  }
  if (!s.ok()) return s;
  for (const std::string& w : pkg.warnings) out.warnings.push_back(w);
  upkg::recordObjectInfo(pkg, exportIndex, out);
  return Status();
}

Status decodePackageObject(const uint8_t* data, size_t size, const std::string& file, uint32_t exportIndex, Model& out,
                           const Spans& present, Spans* missing) {
  Package pkg;
  Status s = readPackage(data, size, file, pkg, present);
  if (s.ok()) s = decodePackageObject(pkg, data, exportIndex, out);
  // A read that found its bytes missing may have been forgiven (a slot texture's bMasked): the
  // call is not done until nothing is missing.
  if (s.ok() && !pkg.missing.empty())
    s = fail("UPACKAGE", file, pkg.missing.front().first, "%zu spans of the package are not read yet",
             pkg.missing.size());
  if (missing) *missing = pkg.missing;
  return s;
}

}  // namespace rs
