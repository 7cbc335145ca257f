// The only file that knows Emscripten: boring glue from the decoders to plain JS objects.
// Every array handed out is a JS-owned copy (a view into WASM memory dies when memory grows): the
// arrays of one result are views into one ArrayBuffer (the Arena below; a few for a model past
// 16 MB of arrays), so the worker transfers one buffer without another copy.
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
#include <cstdio>
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

// The result crosses into JavaScript in one call (buildResult): every object, string and number
// as JSON text, every typed array placed in the arena below. Built with one Embind call per
// property instead, a small mesh's result took some 600 calls into JavaScript, more time than its
// decode. The text holds markers where JSON cannot carry a value as Embind would give it:
//   {"$a":i}  the i-th typed array of the arena
//   {"$v":i}  the i-th value made through Embind (a string that is not ASCII, whose bytes Embind
//             decodes its own way, or an object whose keys are not ASCII)
//   {"$n":"NaN"}  a number JSON has no word for (NaN, Infinity, -Infinity)
// No object of the model has a key starting with "$", so a marker is never mistaken for data.

// Copies every placed array into its buffer (jobs: source address, bytes, buffer, offset, in
// placement order), makes the views, parses the text and puts each array and value where its
// marker stands. Small arrays (a track's keys) are copied word by word: a subarray and set() per
// array would cost more than the copy.
// clang-format would split === in the JavaScript.
// clang-format off
EM_JS(emscripten::EM_VAL, buildResult,
      (const char* text, uint32_t textBytes, const uint32_t* sizes, uint32_t bufferCount, const uint32_t* jobs,
       uint32_t jobCount, const uint32_t* views, uint32_t viewCount, emscripten::EM_VAL values),
      {
        // Node gives memory not zeroed first (Buffer.allocUnsafeSlow: a buffer of its own, not its
        // pool), which the copy below fills, and the gaps between arrays are zeroed: 0.5 ms of a
        // 12 MB result. A browser has only new ArrayBuffer.
        var unzeroed = typeof Buffer == "function" && typeof Buffer.allocUnsafeSlow == "function";
        var buffers = [], bytes = [], words = [], ends = [];
        for (var b = 0; b < bufferCount; b++) {
          var size = HEAPU32[(sizes >> 2) + b];
          buffers.push(unzeroed ? Buffer.allocUnsafeSlow(size).buffer : new ArrayBuffer(size));
          bytes.push(new Uint8Array(buffers[b]));
          ends.push(0);
        }
        for (var i = 0, j = jobs >> 2; i < jobCount; i++, j += 4) {
          var src = HEAPU32[j], n = HEAPU32[j + 1], at = HEAPU32[j + 3];
          b = HEAPU32[j + 2];
          if (unzeroed && at > ends[b]) bytes[b].fill(0, ends[b], at);
          ends[b] = at + n;
          if (n <= 4096 && !((src | n | at) & 3)) {
            var w = words[b] || (words[b] = new Int32Array(buffers[b], 0, bytes[b].length >> 2));
            for (var k = 0, s = src >> 2, d = at >> 2, e = n >> 2; k < e; k++) w[d + k] = HEAP32[s + k];
          } else {
            bytes[b].set(HEAPU8.subarray(src, src + n), at);
          }
        }
        if (unzeroed)
          for (b = 0; b < bufferCount; b++) bytes[b].fill(0, ends[b]);
        var types = [ Float32Array, Uint32Array, Int32Array, Uint16Array, Uint8Array ];
        var arrays = new Array(viewCount);
        for (i = 0, j = views >> 2; i < viewCount; i++, j += 4) {
          arrays[i] = new types[HEAPU32[j]](buffers[HEAPU32[j + 1]], HEAPU32[j + 2], HEAPU32[j + 3]);
        }
        var made = Emval.toValue(values);
        // Arrays by index and objects by Object.keys: for-in over JSON.parse's objects of many
        // shapes was 3-4 times slower in Chromium (13-47 us against 4-15 us a small mesh).
        var placed = function(v) {
          if (v.$a !== undefined) return arrays[v.$a];
          if (v.$v !== undefined) return made[v.$v];
          if (v.$n !== undefined) return Number(v.$n);
          place(v);
          return v;
        };
        var place = function(o) {
          var v, i;
          if (Array.isArray(o)) {
            for (i = 0; i < o.length; i++) {
              v = o[i];
              if (v !== null && typeof v === "object") o[i] = placed(v);
            }
            return;
          }
          var keys = Object.keys(o);
          for (i = 0; i < keys.length; i++) {
            v = o[keys[i]];
            if (v !== null && typeof v === "object") o[keys[i]] = placed(v);
          }
        };
        var result = JSON.parse(UTF8ToString(text, textBytes));
        place(result);
        return Emval.toHandle(result);
      });
// clang-format on

// JSON text of the plain part of a result. Strings of ASCII are written as they are (escaped);
// any other string goes through Embind (a {"$v"} marker) so that its bytes (cp1252 names, not
// UTF-8) decode exactly as they always have.
class Json {
 public:
  Json() : values_(val::array()) { out_.reserve(4096); }
  void beginObject() { open('{'); }
  void endObject() { close('}'); }
  void beginArray() { open('['); }
  void endArray() { close(']'); }
  // The key of the next value in the current object (an ASCII word of this file or a decoder).
  Json& key(const char* k) {
    separate();
    quoted(k, std::strlen(k));
    out_ += ':';
    keyed_ = true;
    return *this;
  }
  Json& key(const std::string& k) {
    separate();
    quoted(k.data(), k.size());
    out_ += ':';
    keyed_ = true;
    return *this;
  }
  void string(const std::string& s) {
    if (!ascii(s)) return made(val(s));
    value();
    quoted(s.data(), s.size());
  }
  void string(const char* s) {
    value();
    quoted(s, std::strlen(s));
  }
  void number(double d) {
    value();
    if (!std::isfinite(d)) {
      out_ += std::isnan(d) ? "{\"$n\":\"NaN\"}" : d > 0 ? "{\"$n\":\"Infinity\"}" : "{\"$n\":\"-Infinity\"}";
      return;
    }
    char buf[32];
    // Whole numbers (counts, indices, sizes) short; the rest with the digits that read back the same double.
    const bool whole = d == std::floor(d) && std::fabs(d) < 9007199254740992.0 && !(d == 0 && std::signbit(d));
    const int n =
        whole ? std::snprintf(buf, sizeof buf, "%lld", (long long)d) : std::snprintf(buf, sizeof buf, "%.17g", d);
    out_.append(buf, size_t(n));
  }
  void boolean(bool b) {
    value();
    out_ += b ? "true" : "false";
  }
  // The i-th typed array of the arena.
  void array(size_t i) { marker("$a", i); }
  // A value made through Embind.
  void made(const val& v) {
    values_.set(madeCount_, v);
    marker("$v", madeCount_++);
  }
  void strings(const std::vector<std::string>& v) {
    beginArray();
    for (const std::string& s : v) string(s);
    endArray();
  }
  const std::string& text() const { return out_; }
  const val& values() const { return values_; }

  static bool ascii(const std::string& s) {
    for (const char c : s)
      if (static_cast<unsigned char>(c) >= 0x80) return false;
    return true;
  }

 private:
  void open(char c) {
    value();
    out_ += c;
    first_.push_back(true);
  }
  void close(char c) {
    out_ += c;
    first_.pop_back();
  }
  void separate() {
    if (first_.empty()) return;
    if (!first_.back()) out_ += ',';
    first_.back() = false;
  }
  // Before a value: the comma between array items (an object's comma came with its key).
  void value() {
    if (keyed_)
      keyed_ = false;
    else
      separate();
  }
  void marker(const char* kind, size_t i) {
    value();
    char buf[40];
    out_.append(buf, size_t(std::snprintf(buf, sizeof buf, "{\"%s\":%zu}", kind, i)));
  }
  void quoted(const char* s, size_t n) {
    out_ += '"';
    for (size_t i = 0; i < n; ++i) {
      const unsigned char c = static_cast<unsigned char>(s[i]);
      if (c == '"' || c == '\\') {
        out_ += '\\';
        out_ += char(c);
      } else if (c < 0x20) {
        char buf[8];
        out_.append(buf, size_t(std::snprintf(buf, sizeof buf, "\\u%04x", c)));
      } else {
        out_ += char(c);
      }
    }
    out_ += '"';
  }
  std::string out_;
  std::vector<bool> first_;  // per open object or array: no item written yet
  bool keyed_ = false;       // a key was written; its value comes next
  val values_;
  size_t madeCount_ = 0;
};

// The typed arrays of a result share JS ArrayBuffers (the arena): arrays are placed while the
// text is written (a marker keeps the object's key order) and copied once the sizes are known:
// one JS allocation per buffer and one memcpy per array, straight from the decoder's own arrays.
// A model up to kBufferBytes of arrays is one buffer, so the worker's reply transfers one buffer
// instead of dozens; beyond that arrays share buffers up to that size and a larger array has its
// own: in Node (glibc) an allocation over 32 MB is always fresh memory from the kernel, whose
// first writes cost far more than the copy, while smaller ones reuse memory freed earlier (in
// Chromium large buffers are fresh either way). Offsets are aligned to 8 at each view's start, so
// Float32, Int32, Uint32 and Uint16 views all start on their element size.
class Arena {
 public:
  static constexpr size_t kBufferBytes = size_t(16) << 20;
  // The typed array types, as buildResult lists them.
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
      static_assert(std::is_same_v<T, uint8_t>, "an array type buildResult knows");
      return 4;
    }
  }
  // The value written next becomes a view of `count` elements copied from `data` when the result is built.
  template <typename T>
  void put(Json& json, const T* data, size_t count) {
    const size_t bytes = count * sizeof(T);
    if (sizes_.back() && sizes_.back() + bytes + 8 > kBufferBytes) sizes_.push_back(0);
    size_t& size = sizes_.back();
    const uint32_t buffer = uint32_t(sizes_.size() - 1);
    const size_t at = (size + 7) & ~size_t(7);
    if (bytes) jobs_.insert(jobs_.end(), {uint32_t(uintptr_t(data)), uint32_t(bytes), buffer, uint32_t(at)});
    size = at + bytes;
    json.array(views_.size() / 4);
    views_.insert(views_.end(), {typeOf<T>(), buffer, uint32_t(at), uint32_t(count)});
  }
  template <typename T>
  void put(Json& json, const std::vector<T>& v) {
    put(json, v.data(), v.size());
  }
  // Keeps an array built only for the result (a clip's packed keys and layout) alive until the copy.
  const std::vector<int32_t>& keep(std::vector<int32_t>&& v) { return keptInts_.emplace_back(std::move(v)); }
  const std::vector<float>& keep(std::vector<float>&& v) { return keptFloats_.emplace_back(std::move(v)); }
  // The result: buffers made, arrays copied, text parsed and every marker replaced, in one call.
  // No WASM allocation happens between buildResult reading the heap and the end of the copy.
  val build(const Json& json) {
    const std::vector<uint32_t> sizes(sizes_.begin(), sizes_.end());
    const std::string& text = json.text();
    return val::take_ownership(buildResult(text.data(), uint32_t(text.size()), sizes.data(), uint32_t(sizes.size()),
                                           jobs_.data(), uint32_t(jobs_.size() / 4), views_.data(),
                                           uint32_t(views_.size() / 4), json.values().as_handle()));
  }

 private:
  std::vector<uint32_t> jobs_;    // 4 per array: source address, bytes, buffer, offset
  std::vector<uint32_t> views_;   // 4 per array: type, buffer, offset, elements
  std::vector<size_t> sizes_{0};  // bytes of each buffer
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

Bytes bytesIn(const val& v) {
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

void writeVec3(Json& j, const double* v) {
  j.beginArray();
  for (int k = 0; k < 3; ++k) j.number(v[k]);
  j.endArray();
}

void writeBounds(Json& j, const Bounds& b) {
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
Bounds restBounds(const std::vector<float>& p) {
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

// The box of an xyz array, as three's Box3.setFromBufferAttribute takes it.
void boxOf(const std::vector<float>& p, double* lo, double* hi) {
  for (int k = 0; k < 3; ++k) {
    lo[k] = INFINITY;
    hi[k] = -INFINITY;
  }
  for (size_t i = 0; i + 2 < p.size(); i += 3) {
    for (int k = 0; k < 3; ++k) {
      lo[k] = std::min(lo[k], double(p[i + k]));
      hi[k] = std::max(hi[k], double(p[i + k]));
    }
  }
}

// A morphing mesh's bounds as three's computeBoundingBox and computeBoundingSphere give them for
// relative morph targets, in its doubles and its order: the rest box grown by each target's box
// in turn, the sphere about its centre reaching every vertex of the rest pose and of each target
// at full weight. Measured here, they spare the main thread a JS pass over every target (50-100
// us of a 0.1 MB PSK's load). False where three would find a NaN or a target of another length:
// the page then lets three measure.
bool morphedBounds(const rs::Mesh& m, Bounds& out) {
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

void writeMesh(Json& j, const rs::Mesh& m, Arena& arena) {
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

void writeMaterial(Json& j, const rs::Material& m) {
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

void writeNotifies(Json& j, const std::vector<rs::Notify>& v) {
  j.beginArray();
  for (const rs::Notify& n : v) {
    j.beginObject();
    j.key("time").number(n.time);
    j.key("name").string(n.name);
    j.endObject();
  }
  j.endArray();
}

// counts and info: words of the decoders as keys. A key that is not ASCII (a PSG part's name in
// an info key) cannot be a key of the text as Embind would decode it: such an object is made
// through Embind instead.
template <typename Value>
void writeFacts(Json& j, const std::vector<std::pair<std::string, Value>>& facts) {
  bool ascii = true;
  for (const auto& f : facts) ascii = ascii && Json::ascii(f.first);
  if (!ascii) {
    val o = val::object();
    for (const auto& f : facts) o.set(f.first, f.second);
    j.made(o);
    return;
  }
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
void writePackedTracks(Json& j, std::vector<rs::Track>& tracks, Arena& arena) {
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

void writeClip(Json& j, rs::Clip& c, Arena& arena) {
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

void writeTexture(Json& j, const rs::Texture& t, Arena& arena) {
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

void writeSkeleton(Json& j, const rs::Skeleton& s, Arena& arena) {
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

void writeVertexAnimation(Json& j, const rs::VertexAnimation& va, Arena& arena) {
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

void writeAttachment(Json& j, const rs::Attachment& a) {
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

val modelToVal(rs::Model& m) {
  Arena arena;
  Json j;
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
void writePackageEntries(Json& j, const std::vector<rs::PackageEntry>& entries) {
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

val listingToVal(const rs::PackageListing& l) {
  Arena arena;
  Json j;
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
