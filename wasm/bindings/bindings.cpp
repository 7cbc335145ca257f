// The only file that knows Emscripten: boring glue from the decoders to plain JS objects.
// Every array handed out is a JS-owned copy (a view into WASM memory dies when memory grows): the
// arrays of one result are views into few ArrayBuffers (copyArrays below: in a browser one, up to
// 16 MB of arrays), so the worker transfers them without another copy.
//
// Nothing leaves as a C++ or JS exception: a refused file comes back as `{ error: message }`, built
// after the decoder returned its Status and sent back once every C++ object of the call is gone
// (web/src/decoder/ops.js turns it into a JS Error). Throwing a JS exception from here would unwind
// through frames built without exceptions: the WASM stack pointer and the destructors would be
// skipped, so each refusal would leak its stack frame, its input copy and its partial model until
// every decode traps. What still escapes is a trap or abort (out of memory, a bug); the hosts then
// replace the module instance.
#include <emscripten.h>
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "convert/chunks.h"
#include "formats/detect.h"
#include "formats/image/image.h"
#include "formats/psg/psg.h"
#include "formats/psk/psa.h"
#include "formats/psk/psk.h"
#include "formats/ue1/ue1.h"
#include "formats/upackage/upackage.h"
#include "formats/zeroad/pmd.h"
#include "formats/zeroad/pssa.h"

using emscripten::val;

EM_JS(void, noteOutOfMemory, (), { Module["outOfMemory"] = true; });

namespace {

// The result crosses into JavaScript in two calls: copyArrays makes its typed arrays (Arena),
// readShape the plain objects around them (Shape). Built with one Embind call per property, a
// small mesh's result took some 600 calls into JavaScript, more time than its decode; built as
// JSON text, formatting its numbers (musl's snprintf) and parsing the text took about as long as
// the decode of a 0.1 MB PSK, and every property stored under a string made anew.

// The typed arrays of a result, copied into JS ArrayBuffers: `views` holds 3 words per array
// (type as Arena::typeOf lists it, elements, source address), in the order the shape uses them.
// Arrays share buffers, one allocation for many arrays, each view starting at a multiple of 8 (so
// on its element size), the gaps zeroed. In a browser a buffer holds up to 16 MB of arrays, so
// the worker's reply transfers one buffer for most models. In Node a buffer holds up to 120 KiB,
// under glibc's mmap threshold (128 KiB): a larger allocation is memory fresh from the kernel
// while that threshold stands, whose first writes cost far more than the copy (a 0.15 MB result
// of a 0.1 MB PSK: 400 us against 15 us, once per load); a smaller one reuses memory freed
// before. An array larger than a buffer has one of its own. Small arrays (a track's keys) are
// copied word by word: a subarray and set() per array would cost more than the copy.
// clang-format would split === in the JavaScript.
// clang-format off
EM_JS(emscripten::EM_VAL, copyArrays, (const uint32_t* views, uint32_t count), {
  // Node gives memory not zeroed first (Buffer.allocUnsafeSlow: a buffer of its own, not its
  // pool), which the copy fills, and the gaps between arrays are zeroed: 0.5 ms of a 12 MB
  // result. A browser has only new ArrayBuffer.
  var node = typeof Buffer == "function" && typeof Buffer.allocUnsafeSlow == "function";
  var limit = node ? 120 * 1024 : 16 * 1024 * 1024;
  var types = [ Float32Array, Uint32Array, Int32Array, Uint16Array, Uint8Array ];
  var sizes = [0], buffer = new Array(count), offset = new Array(count), i, j, b;
  for (i = 0, j = views >> 2; i < count; i++, j += 3) {
    var n = HEAPU32[j + 1] * types[HEAPU32[j]].BYTES_PER_ELEMENT;
    b = sizes.length - 1;
    if (sizes[b] && sizes[b] + n + 8 > limit) {
      sizes.push(0);
      b++;
    }
    buffer[i] = b;
    offset[i] = Math.ceil(sizes[b] / 8) * 8;
    sizes[b] = offset[i] + n;
  }
  var buffers = [], bytes = [], words = [], ends = [];
  for (b = 0; b < sizes.length; b++) {
    buffers.push(node ? Buffer.allocUnsafeSlow(sizes[b]).buffer : new ArrayBuffer(sizes[b]));
    bytes.push(new Uint8Array(buffers[b]));
    ends.push(0);
  }
  var arrays = new Array(count);
  for (i = 0, j = views >> 2; i < count; i++, j += 3) {
    var type = types[HEAPU32[j]], elements = HEAPU32[j + 1], src = HEAPU32[j + 2], at = offset[i];
    var size = elements * type.BYTES_PER_ELEMENT;
    b = buffer[i];
    if (size) {
      if (node && at > ends[b]) bytes[b].fill(0, ends[b], at);
      ends[b] = at + size;
      if (size <= 4096 && !((src | size | at) & 3)) {
        var w = words[b] || (words[b] = new Int32Array(buffers[b], 0, bytes[b].length >> 2));
        for (var k = 0, s = src >> 2, d = at >> 2, e = size >> 2; k < e; k++) w[d + k] = HEAP32[s + k];
      } else {
        bytes[b].set(HEAPU8.subarray(src, src + size), at);
      }
    }
    arrays[i] = new type(buffers[b], at, elements);
  }
  if (node)
    for (b = 0; b < sizes.length; b++) bytes[b].fill(0, ends[b]);
  return Emval.toHandle(arrays);
});

// The plain part of a result from the words Shape wrote, with its typed arrays (copyArrays) where
// the shape says. Read in the order it was written, so nothing in it needs an address: one word
// per value, its kind in the low 3 bits (Shape::Kind) and, for an object or array, its count of
// members above them. An object's members are a key and a value: the key one word, the address
// of a word of this file with the top bit set (Shape::key) or else its length in bytes, the bytes
// being the next string of the text. A string is its kind and its length in the next word; a
// number is the next double of `numbers`; a typed array the next of `arrays`. A key "__proto__"
// (a hostile file's class name) becomes an own property, as JSON.parse made it, instead of
// replacing the object's prototype.
EM_JS(emscripten::EM_VAL, readShape, (const uint32_t* words, const double* numbers, const char* text,
                                      emscripten::EM_VAL arrays), {
  var word = words >> 2, number = numbers >> 3, array = 0, typed = Emval.toValue(arrays);
  // A string of ASCII bytes (every key, most names) is its bytes as they are; any other is read
  // as Embind reads a std::string (each run between NUL bytes through UTF8ToString), so names come
  // out as they did through Embind. Past 1024 bytes, apply() would pass too many arguments.
  var string = function(length) {
    var from = text, end = text + length, p = from, s;
    text = end + 1;
    while (p < end && HEAPU8[p] > 0 && HEAPU8[p] < 128) p++;
    if (p === end && length <= 1024) return String.fromCharCode.apply(null, HEAPU8.subarray(from, end));
    for (p = from; p <= end; p++) {
      if (p < end && HEAPU8[p] !== 0) continue;
      var run = UTF8ToString(from, p - from);
      s = s === undefined ? run : s + "\u0000" + run;
      from = p + 1;
    }
    return s;
  };
  // This file's words, read once per module instance: a store under a key V8 already holds is
  // several times cheaper than under a string made anew (4 against 15 us a small mesh's shape).
  var keys = readShape.keys || (readShape.keys = new Map());
  var staticKey = function(at) {
    var key = keys.get(at);
    if (key === undefined) keys.set(at, (key = UTF8ToString(at)));
    return key;
  };
  var value = function() {
    var kind = HEAPU32[word] & 7, count = HEAPU32[word++] >>> 3, out, i;
    switch (kind) {
      case 0:
        out = {};
        for (i = 0; i < count; i++) {
          var key = HEAPU32[word++];
          key = key >= 0x80000000 ? staticKey(key & 0x7fffffff) : string(key);
          if (key === "__proto__") Object.defineProperty(out, key, { value: value(), enumerable: true, writable: true, configurable: true });
          else out[key] = value();
        }
        return out;
      case 1:
        out = new Array(count);
        for (i = 0; i < count; i++) out[i] = value();
        return out;
      case 2: return string(HEAPU32[word++]);
      case 3: return HEAPF64[number++];
      case 4: return false;
      case 5: return true;
      default: return typed[array++];
    }
  };
  return Emval.toHandle(value());
});
// clang-format on

// The plain part of a result as words (readShape above reads them), written in the order the
// model's keys have always come in. A count lives in its container's word: up to 2^29 members, more than a 2 GB
// heap could hold words for.
class Shape {
 public:
  enum Kind : uint32_t { kObject, kArray, kString, kNumber, kFalse, kTrue, kTypedArray };
  static constexpr uint32_t kKindBits = 3;
  static constexpr uint32_t kStaticKey = 1u << 31;

  Shape() {
    words_.reserve(512);
    text_.reserve(2048);
  }
  void beginObject() { open(kObject); }
  void endObject() { open_.pop_back(); }
  void beginArray() { open(kArray); }
  void endArray() { open_.pop_back(); }
  // The key of the next value in the current object: a word of this file, written as the address
  // of its text in the module's static data (readShape reads it once per module instance)...
  template <size_t N>
  Shape& key(const char (&k)[N]) {
    member();
    words_.push_back(kStaticKey | uint32_t(uintptr_t(k)));
    return *this;
  }
  // ... or a decoder's word (counts and info), its bytes in the text. Shorter than 2 GB, as is all
  // the module's memory, so its length never reaches kStaticKey.
  Shape& key(const std::string& k) {
    member();
    words_.push_back(uint32_t(k.size()));
    bytes(k.data(), k.size());
    return *this;
  }
  void string(const std::string& s) { string(s.data(), s.size()); }
  void string(const char* s) { string(s, std::strlen(s)); }
  void number(double d) {
    value(kNumber);
    numbers_.push_back(d);
  }
  void boolean(bool b) { value(b ? kTrue : kFalse); }
  // The next typed array of the arena (Arena::put).
  void typedArray() { value(kTypedArray); }
  void strings(const std::vector<std::string>& v) {
    beginArray();
    for (const std::string& s : v) string(s);
    endArray();
  }
  const std::vector<uint32_t>& words() const { return words_; }
  const std::vector<double>& numbers() const { return numbers_; }
  const std::string& text() const { return text_; }

 private:
  // One more member for the open object; its key's word comes next, then its value.
  void member() {
    words_[open_.back()] += 1u << kKindBits;
    keyed_ = true;
  }
  void string(const char* s, size_t n) {
    value(kString);
    words_.push_back(uint32_t(n));
    bytes(s, n);
  }
  void bytes(const char* s, size_t n) {
    text_.append(s, n);
    text_ += '\0';
  }
  void open(Kind kind) {
    value(kind);
    open_.push_back(words_.size() - 1);
  }
  // A value's word: one more member for the array it is in (an object's came with its key).
  void value(Kind kind) {
    if (keyed_)
      keyed_ = false;
    else if (!open_.empty())
      words_[open_.back()] += 1u << kKindBits;
    words_.push_back(kind);
  }
  std::vector<uint32_t> words_;
  std::vector<double> numbers_;
  std::string text_;
  std::vector<size_t> open_;  // the word of each open object or array
  bool keyed_ = false;        // a key was written; its value comes next
};

// The typed arrays of a result (copyArrays above places them in ArrayBuffers): listed while the
// shape is written, which keeps the object's key order, and copied once the shape is done: one
// memcpy per array, straight from the decoder's own arrays.
class Arena {
 public:
  // The typed array types, as copyArrays lists them.
  template <typename T>
  static constexpr uint32_t typeOf() {
    if constexpr (std::is_same_v<T, float>) {
      return 0;
    } else if constexpr (std::is_same_v<T, uint32_t>) {
      return 1;
    } else if constexpr (std::is_same_v<T, int32_t>) {
      return 2;
    } else if constexpr (std::is_same_v<T, uint16_t>) {
      return 3;
    } else {
      static_assert(std::is_same_v<T, uint8_t>, "an array type copyArrays knows");
      return 4;
    }
  }
  // The value written next becomes a view of `count` elements copied from `data` when the result is built.
  template <typename T>
  void put(Shape& shape, const T* data, size_t count) {
    shape.typedArray();
    views_.insert(views_.end(), {typeOf<T>(), uint32_t(count), uint32_t(uintptr_t(data))});
  }
  template <typename T>
  void put(Shape& shape, const std::vector<T>& v) {
    put(shape, v.data(), v.size());
  }
  // Keeps an array built only for the result (a clip's packed keys and layout) alive until the copy.
  const std::vector<int32_t>& keep(std::vector<int32_t>&& v) { return keptInts_.emplace_back(std::move(v)); }
  const std::vector<float>& keep(std::vector<float>&& v) { return keptFloats_.emplace_back(std::move(v)); }
  // The result: arrays copied, then the shape read around them. No WASM allocation happens while
  // JavaScript reads the heap.
  val build(const Shape& shape) const {
    const val arrays = val::take_ownership(copyArrays(views_.data(), uint32_t(views_.size() / 3)));
    return val::take_ownership(
        readShape(shape.words().data(), shape.numbers().data(), shape.text().data(), arrays.as_handle()));
  }

 private:
  std::vector<uint32_t> views_;  // 3 per array: type, elements, source address
  std::deque<std::vector<int32_t>> keptInts_;
  std::deque<std::vector<float>> keptFloats_;
};

// Input bytes in the WASM heap. Embind's std::string parameter copies a Uint8Array into the heap
// one byte at a time in JavaScript (the largest cost of a 64 MB decode); a typed array's set()
// over a view of the heap is one memcpy. Accepts Uint8Array (and Node Buffer), any other typed
// array or DataView (its bytes), ArrayBuffer, a string (its UTF-8 bytes), null/undefined (empty).
// The copy is made with malloc, which returns null when the heap cannot hold the input (new would
// abort the module, see outOfMemory): the call then refuses the file with a sentence.
struct Bytes {
  std::unique_ptr<uint8_t, void (*)(void*)> p{nullptr, &std::free};
  size_t size = 0;       // bytes held
  double requested = 0;  // bytes of the input (a double: it may exceed the 32-bit size_t)
  const uint8_t* data() const { return p.get(); }
  bool refused() const { return requested > double(size); }
};

void keep(void*) {}

// Whether `u8` views this module's own memory: a file the worker streamed straight into the heap
// (streamIntoHeap in web/src/decoder/ops.js), read where it lies instead of copied again. Only
// code inside the worker holds that memory, so no caller can hand in such a view of bytes the
// worker did not put there.
bool viewsOwnHeap(const val& u8) {
  const val heap = val(emscripten::typed_memory_view(size_t(0), static_cast<const uint8_t*>(nullptr)))["buffer"];
  return u8["buffer"].strictlyEquals(heap);
}

RS_STEP Bytes bytesIn(const val& v) {
  Bytes b;
  if (v.isNull() || v.isUndefined()) return b;
  if (v.isString()) {
    std::string s = v.as<std::string>();
    b.requested = s.size();
    b.p.reset(static_cast<uint8_t*>(std::malloc(s.size() ? s.size() : 1)));
    if (!b.p) return b;
    b.size = s.size();
    std::memcpy(b.p.get(), s.data(), s.size());
    return b;
  }
  static const val u8 = val::global("Uint8Array"), arrayBuffer = val::global("ArrayBuffer");
  val src = v;
  if (v.instanceof (arrayBuffer)) {
    src = u8.new_(v);
  } else if (!v.instanceof (u8)) {
    src = u8.new_(v["buffer"], v["byteOffset"], v["byteLength"]);
  }
  b.requested = src["length"].as<double>();
  if (b.requested >= 2147483648.0) return b;  // more than the whole memory
  const size_t n = size_t(b.requested);
  if (n && viewsOwnHeap(src)) {
    // Not freed here: the worker that streamed it in frees it once the call has returned.
    b.p = decltype(b.p)(reinterpret_cast<uint8_t*>(src["byteOffset"].as<uintptr_t>()), &keep);
    b.size = n;
    return b;
  }
  b.p.reset(static_cast<uint8_t*>(std::malloc(n ? n : 1)));  // set() writes every byte
  if (!b.p) return b;
  b.size = n;
  if (b.size) val(emscripten::typed_memory_view(b.size, b.p.get())).call<void>("set", src);
  return b;
}

// A failed allocation anywhere in a decoder: with memory growth enabled malloc returns null, and
// operator new built without exceptions would hand that null to the decoder. Instead the module
// notes why (noteOutOfMemory) and aborts; the host sees the flag and says the decoder ran out of
// memory.
[[noreturn]] void outOfMemory() {
  noteOutOfMemory();
  std::abort();
}

const char* blendName(rs::Blend b) {
  switch (b) {
    case rs::Blend::Masked: return "masked";
    case rs::Blend::Translucent: return "translucent";
    case rs::Blend::Modulated: return "modulated";
    default: return "opaque";
  }
}

// A box and its bounding sphere, as the decoded model carries them.
struct Bounds {
  double min[3], max[3], center[3], radius;
};

void writeVec3(Shape& j, const double* v) {
  j.beginArray();
  for (int k = 0; k < 3; ++k) j.number(v[k]);
  j.endArray();
}

void writeBounds(Shape& j, const Bounds& b) {
  j.beginObject();
  j.key("min");
  writeVec3(j, b.min);
  j.key("max");
  writeVec3(j, b.max);
  j.key("center");
  writeVec3(j, b.center);
  j.key("radius").number(b.radius);
  j.endObject();
}

// Bounds computed here, in one tight pass, spare the main thread two JS passes over every vertex.
RS_STEP Bounds restBounds(const std::vector<float>& p) {
  float lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  const size_t n = p.size() / 3;
  if (n) {
    for (int k = 0; k < 3; ++k) lo[k] = hi[k] = p[k];
    rs::forChunks(n, [&](size_t begin, size_t end) {
      for (size_t i = begin * 3; i < end * 3; i += 3) {
        for (int k = 0; k < 3; ++k) {
          lo[k] = std::min(lo[k], p[i + k]);
          hi[k] = std::max(hi[k], p[i + k]);
        }
      }
    });
  }
  float c[3] = {(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2};
  float r2 = 0;
  rs::forChunks(n, [&](size_t begin, size_t end) {
    for (size_t i = begin * 3; i < end * 3; i += 3) {
      float dx = p[i] - c[0], dy = p[i + 1] - c[1], dz = p[i + 2] - c[2];
      r2 = std::max(r2, dx * dx + dy * dy + dz * dz);
    }
  });
  return {{lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}, {c[0], c[1], c[2]}, std::sqrt(r2)};
}

// The box of an xyz array, as three's Box3.setFromBufferAttribute takes it. Compared as floats:
// widening each to a double first (as three reads them) gives the same extremes, one step slower.
RS_STEP void boxOf(const std::vector<float>& p, double* lo, double* hi) {
  float flo[3] = {INFINITY, INFINITY, INFINITY}, fhi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (size_t i = 0; i + 2 < p.size(); i += 3) {
    for (int k = 0; k < 3; ++k) {
      flo[k] = std::min(flo[k], p[i + k]);
      fhi[k] = std::max(fhi[k], p[i + k]);
    }
  }
  for (int k = 0; k < 3; ++k) {
    lo[k] = flo[k];
    hi[k] = fhi[k];
  }
}

// A morphing mesh's bounds as three's computeBoundingBox and computeBoundingSphere give them for
// relative morph targets, in its doubles and its order: the rest box grown by each target's box
// in turn, the sphere about its centre reaching every vertex of the rest pose and of each target
// at full weight. Measured here, they spare the main thread a JS pass over every target (50-100
// us of a 0.1 MB PSK's load). False where three would find a NaN or a target of another length:
// the page then lets three measure.
RS_STEP bool morphedBounds(const rs::Mesh& m, Bounds& out) {
  const std::vector<float>& p = m.positions;
  for (const rs::Morph& mo : m.morphs)
    if (mo.positions.size() != p.size()) return false;
  double* lo = out.min;
  double* hi = out.max;
  double tlo[3], thi[3];
  boxOf(p, lo, hi);
  for (const rs::Morph& mo : m.morphs) {
    boxOf(mo.positions, tlo, thi);
    // expandByPoint(min + target's min), then expandByPoint(max + target's max).
    for (const bool atMax : {false, true}) {
      for (int k = 0; k < 3; ++k) {
        const double v = atMax ? hi[k] + thi[k] : lo[k] + tlo[k];
        lo[k] = std::min(lo[k], v);
        hi[k] = std::max(hi[k], v);
      }
    }
  }
  double* c = out.center;
  for (int k = 0; k < 3; ++k) c[k] = (lo[k] + hi[k]) * 0.5;
  const size_t count = p.size() - p.size() % 3;
  double reach = 0;
  bool nan = false;
  const auto reachOf = [&](const float* d) {
    for (size_t i = 0; i < count; i += 3) {
      const double dx = c[0] - (d ? double(d[i]) + p[i] : p[i]);
      const double dy = c[1] - (d ? double(d[i + 1]) + p[i + 1] : p[i + 1]);
      const double dz = c[2] - (d ? double(d[i + 2]) + p[i + 2] : p[i + 2]);
      const double r2 = dx * dx + dy * dy + dz * dz;
      nan |= std::isnan(r2);  // Math.max keeps a NaN; std::max would drop it
      reach = std::max(reach, r2);
    }
  };
  reachOf(nullptr);
  for (const rs::Morph& mo : m.morphs) reachOf(mo.positions.data());
  out.radius = std::sqrt(reach);
  for (int k = 0; k < 3; ++k) nan |= std::isnan(lo[k]) || std::isnan(hi[k]);
  return !nan;
}

RS_STEP void writeMesh(Shape& j, const rs::Mesh& m, Arena& arena) {
  j.beginObject();
  j.key("name").string(m.name);
  j.key("bounds");
  writeBounds(j, restBounds(m.positions));
  Bounds morphed;
  if (!m.morphs.empty() && morphedBounds(m, morphed)) writeBounds(j.key("morphedBounds"), morphed);
  arena.put(j.key("positions"), m.positions);
  if (!m.normals.empty()) arena.put(j.key("normals"), m.normals);
  j.key("uvs").beginArray();
  for (const std::vector<float>& uv : m.uvs) arena.put(j, uv);
  j.endArray();
  if (!m.colors.empty()) arena.put(j.key("colors"), m.colors);
  arena.put(j.key("indices"), m.indices);
  j.key("groups").beginArray();
  for (const rs::Group& g : m.groups) {
    j.beginObject();
    j.key("start").number(g.start);
    j.key("count").number(g.count);
    j.key("material").number(g.material);
    j.endObject();
  }
  j.endArray();
  if (!m.skinIndex.empty()) {
    arena.put(j.key("skinIndex"), m.skinIndex);
    arena.put(j.key("skinWeight"), m.skinWeight);
  }
  j.key("morphs").beginArray();
  for (const rs::Morph& mo : m.morphs) {
    j.beginObject();
    j.key("name").string(mo.name);
    arena.put(j.key("positions"), mo.positions);
    if (!mo.normals.empty()) arena.put(j.key("normals"), mo.normals);
    j.endObject();
  }
  j.endArray();
  j.endObject();
}

RS_STEP void writeMaterial(Shape& j, const rs::Material& m) {
  j.beginObject();
  j.key("name").string(m.name);
  j.key("textureNames").strings(m.textureNames);
  j.key("twoSided").boolean(m.twoSided);
  j.key("blend").string(blendName(m.blend));
  j.key("unlit").boolean(m.unlit);
  j.key("hidden").boolean(m.hidden);
  j.key("environment").boolean(m.environment);
  j.key("flat").boolean(m.flat);
  if (!m.guid.empty()) j.key("guid").string(m.guid);
  j.endObject();
}

RS_STEP void writeNotifies(Shape& j, const std::vector<rs::Notify>& v) {
  j.beginArray();
  for (const rs::Notify& n : v) {
    j.beginObject();
    j.key("time").number(n.time);
    j.key("name").string(n.name);
    j.endObject();
  }
  j.endArray();
}

// counts and info: words of the decoders as keys (a PSG part's name in an info key, a package's
// class names: text of the file, which may be any bytes).
template <typename Value>
RS_STEP void writeFacts(Shape& j, const std::vector<std::pair<std::string, Value>>& facts) {
  j.beginObject();
  for (const auto& f : facts) {
    j.key(f.first);
    if constexpr (std::is_same_v<Value, double>)
      j.number(f.second);
    else
      j.string(f.second);
  }
  j.endObject();
}

// A clip's tracks travel packed: one Float32Array with every key array and one Int32Array layout
// of 6 ints per track (bone, keys, times, translation, rotation, scale offsets in floats; -1 =
// none). The keys are packed here with memcpy (hundreds of small arrays cost less copied inside
// the module than one by one into JS) and each track's own arrays are freed at once, so the pool
// takes their place in memory. unpackClips() in web/src/decoder/ops.js turns it back into the
// contract's tracks (views, no copies).
RS_STEP void writePackedTracks(Shape& j, std::vector<rs::Track>& tracks, Arena& arena) {
  size_t floats = 0;  // at most: shared key times are stored once
  for (const rs::Track& t : tracks)
    floats += t.times.size() + t.translation.size() + t.rotation.size() + t.scale.size();
  std::vector<float> pool;
  pool.reserve(floats);
  const auto put = [&pool](const std::vector<float>& v) -> int32_t {
    if (v.empty()) return -1;
    const int32_t at = int32_t(pool.size());
    pool.insert(pool.end(), v.begin(), v.end());
    return at;
  };
  std::vector<int32_t> layout;
  layout.reserve(tracks.size() * 6);
  int32_t sharedTimes = -1;  // tracks of one clip usually share their key times: store them once
  const std::vector<float>* firstTimes = nullptr;
  for (const rs::Track& t : tracks) {
    int32_t times;
    if (firstTimes && t.times == *firstTimes) {
      times = sharedTimes;
    } else {
      times = put(t.times);
      if (!firstTimes) firstTimes = &t.times, sharedTimes = times;
    }
    layout.insert(layout.end(),
                  {t.bone, int32_t(t.times.size()), times, put(t.translation), put(t.rotation), put(t.scale)});
  }
  std::vector<rs::Track>().swap(tracks);
  j.beginObject();
  arena.put(j.key("data"), arena.keep(std::move(pool)));
  arena.put(j.key("layout"), arena.keep(std::move(layout)));
  j.endObject();
}

RS_STEP void writeClip(Shape& j, rs::Clip& c, Arena& arena) {
  j.beginObject();
  j.key("name").string(c.name);
  j.key("fps").number(c.fps);
  j.key("frameCount").number(c.frameCount);
  j.key("duration").number(c.duration);
  j.key("loop").boolean(c.loop);
  j.key("notifies");
  writeNotifies(j, c.notifies);
  j.key("packedTracks");
  writePackedTracks(j, c.tracks, arena);
  j.endObject();
}

RS_STEP void writeTexture(Shape& j, const rs::Texture& t, Arena& arena) {
  j.beginObject();
  j.key("name").string(t.name);
  if (!t.guid.empty()) j.key("guid").string(t.guid);
  j.key("width").number(t.width);
  j.key("height").number(t.height);
  j.key("format").string(t.format);
  j.key("cube").boolean(t.cube);
  j.key("mips").beginArray();
  for (const std::vector<uint8_t>& mip : t.mips) arena.put(j, mip);
  j.endArray();
  j.endObject();
}

RS_STEP void writeSkeleton(Shape& j, const rs::Skeleton& s, Arena& arena) {
  j.beginObject();
  j.key("names").strings(s.names);
  arena.put(j.key("parents"), s.parents);
  arena.put(j.key("restTranslation"), s.restTranslation);
  arena.put(j.key("restRotation"), s.restRotation);
  if (!s.restScale.empty()) arena.put(j.key("restScale"), s.restScale);
  j.key("flat").boolean(s.flat);
  j.key("helperBone").number(s.helper);
  j.endObject();
}

RS_STEP void writeVertexAnimation(Shape& j, const rs::VertexAnimation& va, Arena& arena) {
  j.beginObject();
  j.key("frameCount").number(va.frameCount);
  j.key("vertexCount").number(va.vertexCount);
  arena.put(j.key("frames"), va.frames);
  if (!va.normals.empty()) arena.put(j.key("normals"), va.normals);
  j.key("sequences").beginArray();
  for (const rs::VertexSequence& s : va.sequences) {
    j.beginObject();
    j.key("name").string(s.name);
    j.key("group").string(s.group);
    j.key("startFrame").number(s.startFrame);
    j.key("frameCount").number(s.frameCount);
    j.key("rate").number(s.rate);
    j.key("notifies");
    writeNotifies(j, s.notifies);
    j.endObject();
  }
  j.endArray();
  j.endObject();
}

RS_STEP void writeAttachment(Shape& j, const rs::Attachment& a) {
  j.beginObject();
  j.key("name").string(a.name);
  j.key("bone").number(a.bone);
  j.key("translation").beginArray();
  for (int k = 0; k < 3; ++k) j.number(a.translation[k]);
  j.endArray();
  j.key("rotation").beginArray();
  for (int k = 0; k < 4; ++k) j.number(a.rotation[k]);
  j.endArray();
  j.endObject();
}

RS_STEP val modelToVal(rs::Model& m) {
  Arena arena;
  Shape j;
  j.beginObject();
  j.key("format").string(m.format);
  j.key("name").string(m.name);
  j.key("bindBy").string(m.bindBy);
  j.key("warnings").strings(m.warnings);
  j.key("counts");
  writeFacts(j, m.counts);
  j.key("info");
  writeFacts(j, m.info);
  j.key("meshes").beginArray();
  for (const rs::Mesh& mesh : m.meshes) writeMesh(j, mesh, arena);
  j.endArray();
  j.key("materials").beginArray();
  for (const rs::Material& mat : m.materials) writeMaterial(j, mat);
  j.endArray();
  if (m.hasSkeleton) {
    j.key("skeleton");
    writeSkeleton(j, m.skeleton, arena);
  }
  j.key("clips").beginArray();
  for (rs::Clip& c : m.clips) writeClip(j, c, arena);
  j.endArray();
  if (m.hasVertexAnimation) {
    j.key("vertexAnimation");
    writeVertexAnimation(j, m.vertexAnimation, arena);
  }
  j.key("attachments").beginArray();
  for (const rs::Attachment& a : m.attachments) writeAttachment(j, a);
  j.endArray();
  j.key("textures").beginArray();
  for (const rs::Texture& t : m.textures) writeTexture(j, t, arena);
  j.endArray();
  j.endObject();
  return arena.build(j);
}

val refusal(const std::string& message) {
  val o = val::object();
  o.set("error", message);
  return o;
}

val finish(const rs::Status& status, rs::Model& model) {
  if (!status.ok()) return refusal(status.error);
  return modelToVal(model);
}

val tooLarge(const std::string& file, double bytes) {
  return refusal(
      rs::format("rigscope: %s: %.0f bytes do not fit in the decoder's memory (limit 2 GiB for the file and its model)",
                 file.c_str(), bytes));
}

// Where the last call's time went (the bench's breakdown): copying the input in, the decoder
// itself, and building the JS result (one memcpy per array out, plus the JS objects).
struct Timings {
  double inMs = 0, decodeMs = 0, outMs = 0;
};
Timings gLast;

// One decoder over one input: the input's copy, the model and the status all die before the
// result goes back to JavaScript.
template <typename Decode>
val decodeOne(const val& bytes, const std::string& file, const Decode& decode) {
  const double t0 = emscripten_get_now();
  Bytes in = bytesIn(bytes);
  if (in.refused()) return tooLarge(file, in.requested);
  rs::Model m;
  const double t1 = emscripten_get_now();
  rs::Status s = decode(in.data(), in.size, m);
  const double t2 = emscripten_get_now();
  val out = finish(s, m);
  gLast = Timings{t1 - t0, t2 - t1, emscripten_get_now() - t2};
  return out;
}

val lastTimings() {
  val o = val::object();
  o.set("inMs", gLast.inMs);
  o.set("decodeMs", gLast.decodeMs);
  o.set("outMs", gLast.outMs);
  return o;
}

val decodePsk(const val& bytes, const std::string& file) {
  return decodeOne(bytes, file, [&](const uint8_t* p, size_t n, rs::Model& m) { return rs::decodePsk(p, n, file, m); });
}

val decodePsa(const val& bytes, const std::string& file, const std::string& config) {
  return decodeOne(bytes, file,
                   [&](const uint8_t* p, size_t n, rs::Model& m) { return rs::decodePsa(p, n, file, config, m); });
}

val decodeScriptedPsk(const val& bytes, const std::string& file, const std::string& uc, const std::string& ucFile) {
  return decodeOne(bytes, file, [&](const uint8_t* p, size_t n, rs::Model& m) {
    return rs::decodeScriptedPsk(p, n, file, uc, ucFile, m);
  });
}

val decodePmd(const val& bytes, const std::string& file) {
  return decodeOne(bytes, file, [&](const uint8_t* p, size_t n, rs::Model& m) { return rs::decodePmd(p, n, file, m); });
}

val decodePssa(const val& bytes, const std::string& file) {
  return decodeOne(bytes, file,
                   [&](const uint8_t* p, size_t n, rs::Model& m) { return rs::decodePssa(p, n, file, m); });
}

val decodeUe1(const val& data, const std::string& dataFile, const val& anim, const std::string& animFile,
              const std::string& uc, const std::string& ucFile) {
  const double t0 = emscripten_get_now();
  Bytes d = bytesIn(data), a = bytesIn(anim);
  if (d.refused()) return tooLarge(dataFile, d.requested);
  if (a.refused()) return tooLarge(animFile, a.requested);
  rs::Model m;
  const double t1 = emscripten_get_now();
  rs::Status s = rs::decodeUe1(d.data(), d.size, dataFile, a.data(), a.size, animFile, uc, ucFile, m);
  const double t2 = emscripten_get_now();
  val out = finish(s, m);
  gLast = Timings{t1 - t0, t2 - t1, emscripten_get_now() - t2};
  return out;
}

val decodePcx(const val& bytes, const std::string& file, bool maskIndexZero) {
  return decodeOne(bytes, file, [&](const uint8_t* p, size_t n, rs::Model& m) {
    return rs::decodePcx(p, n, file, maskIndexZero, m);
  });
}

val decodePsg(const val& bytes, const std::string& file) {
  return decodeOne(bytes, file, [&](const uint8_t* p, size_t n, rs::Model& m) { return rs::decodePsg(p, n, file, m); });
}

val decodeImage(const val& bytes, const std::string& file) {
  return decodeOne(bytes, file,
                   [&](const uint8_t* p, size_t n, rs::Model& m) { return rs::decodeImage(p, n, file, m); });
}

// A UE1 package's tables: what it holds (shape in formats/upackage/upackage.h).
RS_STEP void writePackageEntries(Shape& j, const std::vector<rs::PackageEntry>& entries) {
  j.beginArray();
  for (const rs::PackageEntry& e : entries) {
    j.beginObject();
    j.key("index").number(e.index);
    j.key("name").string(e.name);
    j.key("className").string(e.className);
    j.key("path").string(e.path);
    j.key("group").string(e.group);
    j.key("serialSize").number(e.serialSize);
    j.key("serialOffset").number(e.serialOffset);
    j.endObject();
  }
  j.endArray();
}

RS_STEP val listingToVal(const rs::PackageListing& l) {
  Arena arena;
  Shape j;
  const rs::Package& p = l.package;
  j.beginObject();
  j.key("format").string("upackage");
  j.key("name").string(p.name);
  j.key("file").string(p.file);
  j.key("version").number(p.version);
  j.key("licenseeVersion").number(p.licensee);
  j.key("packageFlags").number(p.flags);
  j.key("warnings").strings(p.warnings);
  j.key("counts").beginObject();
  j.key("names").number(double(p.names.size()));
  j.key("imports").number(double(p.imports.size()));
  j.key("exports").number(double(p.exports.size()));
  j.endObject();
  j.key("classes");
  writeFacts(j, l.classes);
  j.key("meshes");
  writePackageEntries(j, l.meshes);
  j.key("textures");
  writePackageEntries(j, l.textures);
  j.key("animations");
  writePackageEntries(j, l.animations);
  j.key("texts");
  writePackageEntries(j, l.texts);
  j.endObject();
  return arena.build(j);
}

val listPackage(const val& bytes, const std::string& file) {
  const double t0 = emscripten_get_now();
  Bytes in = bytesIn(bytes);
  if (in.refused()) return tooLarge(file, in.requested);
  const double t1 = emscripten_get_now();
  rs::PackageListing listing;
  const rs::Status s = rs::listPackage(in.data(), in.size, file, listing);
  const double t2 = emscripten_get_now();
  val out = s.ok() ? listingToVal(listing) : refusal(s.error);
  gLast = Timings{t1 - t0, t2 - t1, emscripten_get_now() - t2};
  return out;
}

val decodePackageObject(const val& bytes, const std::string& file, double exportIndex) {
  if (!(exportIndex >= 0 && exportIndex < 4294967296.0) || exportIndex != std::floor(exportIndex))
    return refusal(
        rs::format("UPACKAGE %s: export index %g is not an export of the package", file.c_str(), exportIndex));
  return decodeOne(bytes, file, [&](const uint8_t* p, size_t n, rs::Model& m) {
    return rs::decodePackageObject(p, n, file, uint32_t(exportIndex), m);
  });
}

// Of a package given in parts (formats/upackage/upackage.h): the spans [b0, e0, b1, e1, ...] of
// `size` bytes that hold the file; anything outside the file or upside down is left out (the
// reader sorts and joins them).
rs::Spans spansIn(const val& flat, size_t size) {
  const size_t n = std::min<size_t>(flat["length"].as<size_t>(), 2 * 65536) & ~size_t(1);
  rs::Spans spans;
  spans.reserve(n / 2 + 1);
  for (size_t i = 0; i < n; i += 2) {
    const double b = flat[i].as<double>(), e = flat[i + 1].as<double>();
    if (b >= 0 && b < e && e <= double(size)) spans.emplace_back(size_t(b), size_t(e));
  }
  // No span at all is still a file given in parts (nothing of it present), never the whole file.
  if (spans.empty()) spans.emplace_back(0, 0);
  return spans;
}

// What a call on a package given in parts still needs: { missing: [b0, e0, ...] }.
val missingSpans(const rs::Spans& missing) {
  val flat = val::array();
  for (const auto& [b, e] : missing) {
    flat.call<void>("push", double(b));
    flat.call<void>("push", double(e));
  }
  val o = val::object();
  o.set("missing", flat);
  return o;
}

val listPackageParts(const val& bytes, const std::string& file, const val& present) {
  Bytes in = bytesIn(bytes);
  if (in.refused()) return tooLarge(file, in.requested);
  rs::PackageListing listing;
  const rs::Status s = rs::listPackage(in.data(), in.size, file, listing, spansIn(present, in.size));
  if (!listing.package.missing.empty()) return missingSpans(listing.package.missing);
  return s.ok() ? listingToVal(listing) : refusal(s.error);
}

val decodePackageObjectParts(const val& bytes, const std::string& file, double exportIndex, const val& present) {
  if (!(exportIndex >= 0 && exportIndex < 4294967296.0) || exportIndex != std::floor(exportIndex))
    return refusal(
        rs::format("UPACKAGE %s: export index %g is not an export of the package", file.c_str(), exportIndex));
  rs::Spans missing;
  val out = decodeOne(bytes, file, [&](const uint8_t* p, size_t n, rs::Model& m) {
    return rs::decodePackageObject(p, n, file, uint32_t(exportIndex), m, spansIn(present, n), &missing);
  });
  return missing.empty() ? out : missingSpans(missing);
}

std::string detectFormat(const val& head, double fileSize, const std::string& file) {
  Bytes in = bytesIn(head);
  return rs::detectFormat(in.data(), in.size, size_t(fileSize), file);
}

// memcpy of the same bytes inside the same module: the bench's limit line.
// The input arrives as the decoders' inputs do; the bench subtracts that and times the copies.
double copyBytes(const val& bytes, int repeats) {
  Bytes in = bytesIn(bytes);
  if (!in.size) return 0;
  std::unique_ptr<uint8_t[]> dst(new uint8_t[in.size]);  // the bench's inputs fit twice
  double sum = 0;
  for (int i = 0; i < repeats; ++i) {
    std::memcpy(dst.get(), in.data(), in.size);
    sum += dst[(in.size / 2 + size_t(i % 2)) % in.size];
  }
  return sum;
}

}  // namespace

EMSCRIPTEN_BINDINGS(rigscope) {
  std::set_new_handler(&outOfMemory);
  emscripten::function("decodePsk", &decodePsk);
  emscripten::function("decodePsa", &decodePsa);
  emscripten::function("decodeScriptedPsk", &decodeScriptedPsk);
  emscripten::function("decodePmd", &decodePmd);
  emscripten::function("decodePssa", &decodePssa);
  emscripten::function("decodeUe1", &decodeUe1);
  emscripten::function("decodePcx", &decodePcx);
  emscripten::function("decodePsg", &decodePsg);
  emscripten::function("decodeImage", &decodeImage);
  emscripten::function("listPackage", &listPackage);
  emscripten::function("decodePackageObject", &decodePackageObject);
  emscripten::function("listPackageParts", &listPackageParts);
  emscripten::function("decodePackageObjectParts", &decodePackageObjectParts);
  emscripten::function("detectFormat", &detectFormat);
  emscripten::function("copyBytes", &copyBytes);
  emscripten::function("lastTimings", &lastTimings);
}
