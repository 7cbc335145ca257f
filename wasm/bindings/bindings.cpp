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
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <new>
#include <string>

#include "convert/chunks.h"
#include "formats/detect.h"
#include "formats/image/image.h"
#include "formats/psg/psg.h"
#include "formats/psk/psa.h"
#include "formats/psk/psk.h"
#include "formats/ue1/ue1.h"
#include "formats/zeroad/pmd.h"
#include "formats/zeroad/pssa.h"

using emscripten::val;

EM_JS(void, noteOutOfMemory, (), { Module["outOfMemory"] = true; });

namespace {

// Typed array constructors, looked up once per type (a global lookup per array adds up over
// thousands of tracks).
template <typename T>
const val& arrayCtor();
template <>
const val& arrayCtor<float>() {
  static const val c = val::global("Float32Array");
  return c;
}
template <>
const val& arrayCtor<uint32_t>() {
  static const val c = val::global("Uint32Array");
  return c;
}
template <>
const val& arrayCtor<int32_t>() {
  static const val c = val::global("Int32Array");
  return c;
}
template <>
const val& arrayCtor<uint16_t>() {
  static const val c = val::global("Uint16Array");
  return c;
}
template <>
const val& arrayCtor<uint8_t>() {
  static const val c = val::global("Uint8Array");
  return c;
}

// Copies every placed array into its buffer in one JS loop (jobs: source address, bytes, buffer,
// offset), so a clip's hundreds of track arrays cost no Embind call each. Small arrays (a track's
// keys) are copied word by word: a subarray and set() per array would cost more than the copy.
EM_JS(void, copyIntoArena, (emscripten::EM_VAL buffers, const uint32_t* jobs, uint32_t count), {
  var dst = Emval.toValue(buffers);
  var words = [];
  for (var i = 0, j = jobs >> 2; i < count; i++, j += 4) {
    var src = HEAPU32[j], n = HEAPU32[j + 1], b = HEAPU32[j + 2], at = HEAPU32[j + 3];
    if (n <= 4096 && !((src | n | at) & 3)) {
      var w = words[b] || (words[b] = new Int32Array(dst[b].buffer, 0, dst[b].length >> 2));
      for (var k = 0, s = src >> 2, d = at >> 2, e = n >> 2; k < e; k++) w[d + k] = HEAP32[s + k];
    } else {
      dst[b].set(HEAPU8.subarray(src, src + n), at);
    }
  }
});

// The typed arrays of a result share JS ArrayBuffers (the arena): arrays are placed while the
// result object is built (a null placeholder keeps the object's key order) and copied once the
// sizes are known: one JS allocation per buffer and one memcpy per array, straight from the
// decoder's own arrays. A model up to kBufferBytes of arrays is one buffer, so the worker's reply
// transfers one buffer instead of dozens; beyond that arrays share buffers up to that size and a
// larger array has its own: in Node (glibc) an allocation over 32 MB is always fresh memory from
// the kernel, whose first writes cost far more than the copy, while smaller ones reuse memory
// freed earlier (in Chromium large buffers are fresh either way). Offsets are aligned to 8 at
// each view's start, so Float32, Int32, Uint32 and Uint16 views all start on their element size.
class Arena {
 public:
  static constexpr size_t kBufferBytes = size_t(16) << 20;
  struct Spot {
    uint32_t buffer;
    size_t offset;
  };
  // owner[key] becomes a view of `count` elements copied from `data` when the arena is written.
  template <typename T, typename Key>
  void put(val owner, const Key& key, const T* data, size_t count) {
    fit(count * sizeof(T));
    view<T>(std::move(owner), key, place(data, count * sizeof(T), 8), count);
  }
  template <typename T, typename Key>
  void put(val owner, const Key& key, const std::vector<T>& v) {
    put(std::move(owner), key, v.data(), v.size());
  }
  // The next `bytes` go to one buffer: a new one when the current one would pass kBufferBytes.
  void fit(size_t bytes) {
    if (sizes_.back() && sizes_.back() + bytes + 8 > kBufferBytes) sizes_.push_back(0);
  }
  // Room for `bytes` from `src` in the current buffer, at the next multiple of `align`.
  Spot place(const void* src, size_t bytes, size_t align) {
    size_t& size = sizes_.back();
    const uint32_t buffer = uint32_t(sizes_.size() - 1);
    const size_t at = (size + align - 1) & ~(align - 1);
    if (bytes) jobs_.insert(jobs_.end(), {uint32_t(uintptr_t(src)), uint32_t(bytes), buffer, uint32_t(at)});
    size = at + bytes;
    return Spot{buffer, at};
  }
  // owner[key] becomes a view of `count` elements at `at` (from place()).
  template <typename T, typename Key>
  void view(val owner, const Key& key, Spot at, size_t count) {
    owner.set(key, val::null());
    views_.push_back(View{std::move(owner), val(key), &arrayCtor<T>(), at, count});
  }
  // Bytes placed in the current buffer.
  size_t size() const { return sizes_.back(); }
  // Keeps an array built only for the result (a clip's packed keys and layout) alive until the copy.
  const std::vector<int32_t>& keep(std::vector<int32_t>&& v) { return keptInts_.emplace_back(std::move(v)); }
  const std::vector<float>& keep(std::vector<float>&& v) { return keptFloats_.emplace_back(std::move(v)); }
  // Allocates the buffers, copies every array into them and sets the views. No WASM allocation
  // happens between copyIntoArena reading the heap and the end of the copy.
  void write() {
    static const val arrayBuffer = val::global("ArrayBuffer"), u8 = val::global("Uint8Array");
    std::vector<val> buffers;
    val bytes = val::array();
    for (size_t b = 0; b < sizes_.size(); ++b) {
      buffers.push_back(arrayBuffer.new_(double(sizes_[b])));
      bytes.set(int(b), u8.new_(buffers.back()));
    }
    copyIntoArena(bytes.as_handle(), jobs_.data(), uint32_t(jobs_.size() / 4));
    for (View& v : views_) v.owner.set(v.key, v.ctor->new_(buffers[v.at.buffer], double(v.at.offset), double(v.count)));
  }

 private:
  struct View {
    val owner, key;
    const val* ctor;
    Spot at;
    size_t count;
  };
  std::vector<uint32_t> jobs_;    // 4 per array: source address, bytes, buffer, offset
  std::vector<size_t> sizes_{0};  // bytes of each buffer
  std::vector<View> views_;
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

val strings(const std::vector<std::string>& v) {
  val a = val::array();
  for (size_t i = 0; i < v.size(); ++i) a.set(i, v[i]);
  return a;
}

const char* blendName(rs::Blend b) {
  switch (b) {
    case rs::Blend::Masked: return "masked";
    case rs::Blend::Translucent: return "translucent";
    case rs::Blend::Modulated: return "modulated";
    default: return "opaque";
  }
}

// Bounds computed here, in one tight pass, spare the main thread two JS passes over every vertex.
val boundsOf(const std::vector<float>& p) {
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
  val b = val::object(), mn = val::array(), mx = val::array(), ce = val::array();
  for (int k = 0; k < 3; ++k) {
    mn.set(k, lo[k]);
    mx.set(k, hi[k]);
    ce.set(k, c[k]);
  }
  b.set("min", mn);
  b.set("max", mx);
  b.set("center", ce);
  b.set("radius", std::sqrt(r2));
  return b;
}

val meshToVal(const rs::Mesh& m, Arena& arena) {
  val o = val::object();
  o.set("name", m.name);
  o.set("bounds", boundsOf(m.positions));
  arena.put(o, "positions", m.positions);
  if (!m.normals.empty()) arena.put(o, "normals", m.normals);
  val uvs = val::array();
  for (size_t i = 0; i < m.uvs.size(); ++i) arena.put(uvs, int(i), m.uvs[i]);
  o.set("uvs", uvs);
  if (!m.colors.empty()) arena.put(o, "colors", m.colors);
  arena.put(o, "indices", m.indices);
  val groups = val::array();
  for (size_t i = 0; i < m.groups.size(); ++i) {
    val g = val::object();
    g.set("start", m.groups[i].start);
    g.set("count", m.groups[i].count);
    g.set("material", m.groups[i].material);
    groups.set(i, g);
  }
  o.set("groups", groups);
  if (!m.skinIndex.empty()) {
    arena.put(o, "skinIndex", m.skinIndex);
    arena.put(o, "skinWeight", m.skinWeight);
  }
  val morphs = val::array();
  for (size_t i = 0; i < m.morphs.size(); ++i) {
    val mo = val::object();
    mo.set("name", m.morphs[i].name);
    arena.put(mo, "positions", m.morphs[i].positions);
    if (!m.morphs[i].normals.empty()) arena.put(mo, "normals", m.morphs[i].normals);
    morphs.set(i, mo);
  }
  o.set("morphs", morphs);
  return o;
}

val materialToVal(const rs::Material& m) {
  val o = val::object();
  o.set("name", m.name);
  o.set("textureNames", strings(m.textureNames));
  o.set("twoSided", m.twoSided);
  o.set("blend", std::string(blendName(m.blend)));
  o.set("unlit", m.unlit);
  o.set("hidden", m.hidden);
  o.set("environment", m.environment);
  o.set("flat", m.flat);
  if (!m.guid.empty()) o.set("guid", m.guid);
  return o;
}

val notifiesToVal(const std::vector<rs::Notify>& v) {
  val a = val::array();
  for (size_t i = 0; i < v.size(); ++i) {
    val n = val::object();
    n.set("time", v[i].time);
    n.set("name", v[i].name);
    a.set(i, n);
  }
  return a;
}

// A clip's tracks travel packed: one Float32Array with every key array and one Int32Array layout
// of 6 ints per track (bone, keys, times, translation, rotation, scale offsets in floats; -1 =
// none). The keys are packed here with memcpy (hundreds of small arrays cost less copied inside
// the module than one by one into JS) and each track's own arrays are freed at once, so the pool
// takes their place in memory. A PSA of 750 tracks then costs a handful of Embind calls instead
// of thousands; unpackClips() in web/src/decoder/ops.js turns it back into the contract's tracks
// (views, no copies).
void packTracks(std::vector<rs::Track>& tracks, const val& packed, Arena& arena) {
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
  arena.put(packed, "data", arena.keep(std::move(pool)));
  arena.put(packed, "layout", arena.keep(std::move(layout)));
}

val clipToVal(rs::Clip& c, Arena& arena) {
  val o = val::object();
  o.set("name", c.name);
  o.set("fps", c.fps);
  o.set("frameCount", c.frameCount);
  o.set("duration", c.duration);
  o.set("loop", c.loop);
  o.set("notifies", notifiesToVal(c.notifies));
  val packed = val::object();
  packTracks(c.tracks, packed, arena);
  o.set("packedTracks", packed);
  return o;
}

val textureToVal(const rs::Texture& t, Arena& arena) {
  val o = val::object();
  o.set("name", t.name);
  if (!t.guid.empty()) o.set("guid", t.guid);
  o.set("width", t.width);
  o.set("height", t.height);
  o.set("format", t.format);
  o.set("cube", t.cube);
  val mips = val::array();
  for (size_t i = 0; i < t.mips.size(); ++i) arena.put(mips, int(i), t.mips[i]);
  o.set("mips", mips);
  return o;
}

val modelToVal(rs::Model& m) {
  Arena arena;
  val o = val::object();
  o.set("format", m.format);
  o.set("name", m.name);
  o.set("bindBy", m.bindBy);
  o.set("warnings", strings(m.warnings));
  val counts = val::object();
  for (const auto& c : m.counts) counts.set(c.first, c.second);
  o.set("counts", counts);
  val info = val::object();
  for (const auto& c : m.info) info.set(c.first, c.second);
  o.set("info", info);
  val meshes = val::array();
  for (size_t i = 0; i < m.meshes.size(); ++i) meshes.set(i, meshToVal(m.meshes[i], arena));
  o.set("meshes", meshes);
  val materials = val::array();
  for (size_t i = 0; i < m.materials.size(); ++i) materials.set(i, materialToVal(m.materials[i]));
  o.set("materials", materials);
  if (m.hasSkeleton) {
    const rs::Skeleton& s = m.skeleton;
    val so = val::object();
    so.set("names", strings(s.names));
    arena.put(so, "parents", s.parents);
    arena.put(so, "restTranslation", s.restTranslation);
    arena.put(so, "restRotation", s.restRotation);
    if (!s.restScale.empty()) arena.put(so, "restScale", s.restScale);
    so.set("flat", s.flat);
    so.set("helperBone", s.helper);
    o.set("skeleton", so);
  }
  val clips = val::array();
  for (size_t i = 0; i < m.clips.size(); ++i) clips.set(i, clipToVal(m.clips[i], arena));
  o.set("clips", clips);
  if (m.hasVertexAnimation) {
    const rs::VertexAnimation& va = m.vertexAnimation;
    val vo = val::object();
    vo.set("frameCount", va.frameCount);
    vo.set("vertexCount", va.vertexCount);
    arena.put(vo, "frames", va.frames);
    if (!va.normals.empty()) arena.put(vo, "normals", va.normals);
    val seqs = val::array();
    for (size_t i = 0; i < va.sequences.size(); ++i) {
      val so = val::object();
      so.set("name", va.sequences[i].name);
      so.set("group", va.sequences[i].group);
      so.set("startFrame", va.sequences[i].startFrame);
      so.set("frameCount", va.sequences[i].frameCount);
      so.set("rate", va.sequences[i].rate);
      so.set("notifies", notifiesToVal(va.sequences[i].notifies));
      seqs.set(i, so);
    }
    vo.set("sequences", seqs);
    o.set("vertexAnimation", vo);
  }
  val atts = val::array();
  for (size_t i = 0; i < m.attachments.size(); ++i) {
    const rs::Attachment& a = m.attachments[i];
    val ao = val::object();
    ao.set("name", a.name);
    ao.set("bone", a.bone);
    val t = val::array(), r = val::array();
    for (int k = 0; k < 3; ++k) t.set(k, a.translation[k]);
    for (int k = 0; k < 4; ++k) r.set(k, a.rotation[k]);
    ao.set("translation", t);
    ao.set("rotation", r);
    atts.set(i, ao);
  }
  o.set("attachments", atts);
  val textures = val::array();
  for (size_t i = 0; i < m.textures.size(); ++i) textures.set(i, textureToVal(m.textures[i], arena));
  o.set("textures", textures);
  arena.write();
  return o;
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
  emscripten::function("decodePmd", &decodePmd);
  emscripten::function("decodePssa", &decodePssa);
  emscripten::function("decodeUe1", &decodeUe1);
  emscripten::function("decodePcx", &decodePcx);
  emscripten::function("decodePsg", &decodePsg);
  emscripten::function("decodeImage", &decodeImage);
  emscripten::function("detectFormat", &detectFormat);
  emscripten::function("copyBytes", &copyBytes);
  emscripten::function("lastTimings", &lastTimings);
}
