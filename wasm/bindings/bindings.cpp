// The only file that knows Emscripten: boring glue from the decoders to plain JS objects.
// Every array handed out is a JS-owned copy (a view into WASM memory dies when memory grows), so
// the worker can transfer it without another copy. Failures become a JS Error with the message.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstring>
#include <string>

#include "formats/detect.h"
#include "formats/psg/psg.h"
#include "formats/psk/psa.h"
#include "formats/psk/psk.h"
#include "formats/ue1/ue1.h"
#include "formats/zeroad/pmd.h"
#include "formats/zeroad/pssa.h"

using emscripten::val;

namespace {

template <typename T>
val copyOut(const char* arrayType, const std::vector<T>& v) {
  return val::global(arrayType).new_(emscripten::typed_memory_view(v.size(), v.data()));
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

val meshToVal(const rs::Mesh& m) {
  val o = val::object();
  o.set("name", m.name);
  o.set("positions", copyOut("Float32Array", m.positions));
  if (!m.normals.empty()) o.set("normals", copyOut("Float32Array", m.normals));
  val uvs = val::array();
  for (size_t i = 0; i < m.uvs.size(); ++i) uvs.set(i, copyOut("Float32Array", m.uvs[i]));
  o.set("uvs", uvs);
  if (!m.colors.empty()) o.set("colors", copyOut("Uint8Array", m.colors));
  o.set("indices", copyOut("Uint32Array", m.indices));
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
    o.set("skinIndex", copyOut("Uint16Array", m.skinIndex));
    o.set("skinWeight", copyOut("Float32Array", m.skinWeight));
  }
  val morphs = val::array();
  for (size_t i = 0; i < m.morphs.size(); ++i) {
    val mo = val::object();
    mo.set("name", m.morphs[i].name);
    mo.set("positions", copyOut("Float32Array", m.morphs[i].positions));
    if (!m.morphs[i].normals.empty()) mo.set("normals", copyOut("Float32Array", m.morphs[i].normals));
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

val clipToVal(const rs::Clip& c) {
  val o = val::object();
  o.set("name", c.name);
  o.set("fps", c.fps);
  o.set("frameCount", c.frameCount);
  o.set("duration", c.duration);
  o.set("loop", c.loop);
  val tracks = val::array();
  for (size_t i = 0; i < c.tracks.size(); ++i) {
    const rs::Track& t = c.tracks[i];
    val to = val::object();
    to.set("bone", t.bone);
    to.set("times", copyOut("Float32Array", t.times));
    if (!t.translation.empty()) to.set("translation", copyOut("Float32Array", t.translation));
    if (!t.rotation.empty()) to.set("rotation", copyOut("Float32Array", t.rotation));
    if (!t.scale.empty()) to.set("scale", copyOut("Float32Array", t.scale));
    tracks.set(i, to);
  }
  o.set("tracks", tracks);
  return o;
}

val textureToVal(const rs::Texture& t) {
  val o = val::object();
  o.set("name", t.name);
  if (!t.guid.empty()) o.set("guid", t.guid);
  o.set("width", t.width);
  o.set("height", t.height);
  o.set("format", t.format);
  o.set("cube", t.cube);
  val mips = val::array();
  for (size_t i = 0; i < t.mips.size(); ++i) mips.set(i, copyOut("Uint8Array", t.mips[i]));
  o.set("mips", mips);
  return o;
}

val modelToVal(const rs::Model& m) {
  val o = val::object();
  o.set("format", m.format);
  o.set("name", m.name);
  o.set("warnings", strings(m.warnings));
  val counts = val::object();
  for (const auto& c : m.counts) counts.set(c.first, c.second);
  o.set("counts", counts);
  val info = val::object();
  for (const auto& c : m.info) info.set(c.first, c.second);
  o.set("info", info);
  val meshes = val::array();
  for (size_t i = 0; i < m.meshes.size(); ++i) meshes.set(i, meshToVal(m.meshes[i]));
  o.set("meshes", meshes);
  val materials = val::array();
  for (size_t i = 0; i < m.materials.size(); ++i) materials.set(i, materialToVal(m.materials[i]));
  o.set("materials", materials);
  if (m.hasSkeleton) {
    const rs::Skeleton& s = m.skeleton;
    val so = val::object();
    so.set("names", strings(s.names));
    so.set("parents", copyOut("Int32Array", s.parents));
    so.set("restTranslation", copyOut("Float32Array", s.restTranslation));
    so.set("restRotation", copyOut("Float32Array", s.restRotation));
    if (!s.restScale.empty()) so.set("restScale", copyOut("Float32Array", s.restScale));
    o.set("skeleton", so);
  }
  val clips = val::array();
  for (size_t i = 0; i < m.clips.size(); ++i) clips.set(i, clipToVal(m.clips[i]));
  o.set("clips", clips);
  if (m.hasVertexAnimation) {
    const rs::VertexAnimation& va = m.vertexAnimation;
    val vo = val::object();
    vo.set("frameCount", va.frameCount);
    vo.set("vertexCount", va.vertexCount);
    vo.set("frames", copyOut("Float32Array", va.frames));
    if (!va.normals.empty()) vo.set("normals", copyOut("Float32Array", va.normals));
    val seqs = val::array();
    for (size_t i = 0; i < va.sequences.size(); ++i) {
      val so = val::object();
      so.set("name", va.sequences[i].name);
      so.set("group", va.sequences[i].group);
      so.set("startFrame", va.sequences[i].startFrame);
      so.set("frameCount", va.sequences[i].frameCount);
      so.set("rate", va.sequences[i].rate);
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
  for (size_t i = 0; i < m.textures.size(); ++i) textures.set(i, textureToVal(m.textures[i]));
  o.set("textures", textures);
  return o;
}

const uint8_t* bytesOf(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }

val finish(const rs::Status& status, const rs::Model& model) {
  if (!status.ok()) val::global("Error").new_(status.error).throw_();
  return modelToVal(model);
}

// Embind's std::string parameter accepts a Uint8Array and copies it into the heap once.
val decodePsk(const std::string& bytes, const std::string& file) {
  rs::Model m;
  rs::Status s = rs::decodePsk(bytesOf(bytes), bytes.size(), file, m);
  return finish(s, m);
}

val decodePsa(const std::string& bytes, const std::string& file, const std::string& config) {
  rs::Model m;
  rs::Status s = rs::decodePsa(bytesOf(bytes), bytes.size(), file, config, m);
  return finish(s, m);
}

val decodePmd(const std::string& bytes, const std::string& file) {
  rs::Model m;
  rs::Status s = rs::decodePmd(bytesOf(bytes), bytes.size(), file, m);
  return finish(s, m);
}

val decodePssa(const std::string& bytes, const std::string& file) {
  rs::Model m;
  rs::Status s = rs::decodePssa(bytesOf(bytes), bytes.size(), file, m);
  return finish(s, m);
}

val decodeUe1(const std::string& data, const std::string& dataFile, const std::string& anim,
              const std::string& animFile, const std::string& uc, const std::string& ucFile) {
  rs::Model m;
  rs::Status s = rs::decodeUe1(bytesOf(data), data.size(), dataFile, bytesOf(anim), anim.size(), animFile,
                               uc, ucFile, m);
  return finish(s, m);
}

val decodePcx(const std::string& bytes, const std::string& file, bool maskIndexZero) {
  rs::Model m;
  rs::Status s = rs::decodePcx(bytesOf(bytes), bytes.size(), file, maskIndexZero, m);
  return finish(s, m);
}

val decodePsg(const std::string& bytes, const std::string& file) {
  rs::Model m;
  rs::Status s = rs::decodePsg(bytesOf(bytes), bytes.size(), file, m);
  return finish(s, m);
}

std::string detectFormat(const std::string& head, double fileSize, const std::string& file) {
  return rs::detectFormat(bytesOf(head), head.size(), size_t(fileSize), file);
}

// memcpy of the same bytes inside the same module: the bench's limit line.
double copyBytes(const std::string& bytes, int repeats) {
  std::string dst(bytes.size(), '\0');
  double sum = 0;
  for (int i = 0; i < repeats; ++i) {
    std::memcpy(&dst[0], bytes.data(), bytes.size());
    sum += static_cast<unsigned char>(dst[dst.size() / 2 + (i % 2)]);
  }
  return sum;
}

}  // namespace

EMSCRIPTEN_BINDINGS(rigscope) {
  emscripten::function("decodePsk", &decodePsk);
  emscripten::function("decodePsa", &decodePsa);
  emscripten::function("decodePmd", &decodePmd);
  emscripten::function("decodePssa", &decodePssa);
  emscripten::function("decodeUe1", &decodeUe1);
  emscripten::function("decodePcx", &decodePcx);
  emscripten::function("decodePsg", &decodePsg);
  emscripten::function("detectFormat", &detectFormat);
  emscripten::function("copyBytes", &copyBytes);
}
