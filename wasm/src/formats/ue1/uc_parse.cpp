// .uc #exec parsing (spec §8): only the directives that shape a vertex mesh, plus the
// defaultproperties skin fallbacks. Epic's parser looks keys up as "KEY=" anywhere in the line, in
// any case, so keys are matched case-insensitively in any order and unknown ones are ignored.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "convert/chunks.h"
#include "formats/ue1/ue1.h"
#include "io/ascii.h"
#include "io/byte_reader.h"

namespace rs {
namespace {

inline bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

bool startsWithNoCase(const char* s, size_t n, const char* prefix) {
  size_t k = std::strlen(prefix);
  if (n < k) return false;
  for (size_t i = 0; i < k; ++i)
    if (lowerAscii(s[i]) != prefix[i]) return false;
  return true;
}

// Names are untrusted text: cp1252/Latin-1 bytes become valid UTF-8, NULs end the name.
std::string cleanName(const std::string& s) { return fixedName(reinterpret_cast<const uint8_t*>(s.data()), s.size()); }

// Comments become spaces (newlines kept, so line numbers stay right). Double-quoted strings are
// skipped whole so "http://..." is not a comment; single quotes (Texture'Pkg.Name', "Epic's")
// are not tracked.
RS_STEP std::string stripComments(const std::string& in) {
  std::string out(in);
  size_t n = out.size();
  size_t i = 0;
  while (i < n) {
    char c = out[i];
    if (c == '"') {
      ++i;
      while (i < n && out[i] != '"' && out[i] != '\n') ++i;
      if (i < n && out[i] == '"') ++i;
    } else if (c == '/' && i + 1 < n && out[i + 1] == '/') {
      while (i < n && out[i] != '\n') out[i++] = ' ';
    } else if (c == '/' && i + 1 < n && out[i + 1] == '*') {
      out[i++] = ' ';
      out[i++] = ' ';
      while (i < n && !(out[i] == '*' && i + 1 < n && out[i + 1] == '/')) {
        if (out[i] != '\n') out[i] = ' ';
        ++i;
      }
      if (i < n) {
        out[i++] = ' ';
        if (i < n) out[i++] = ' ';
      }
    } else {
      ++i;
    }
  }
  return out;
}

struct Arg {
  std::string key;  // empty for a plain word
  std::string value;
};

// Splits a directive's text into words and KEY=value pairs (also "KEY = value").
RS_STEP void tokenize(const char* s, size_t n, std::vector<Arg>& args) {
  args.clear();
  size_t i = 0;
  auto readValue = [&](std::string& v) {
    while (i < n && (s[i] == ' ' || s[i] == '\t')) ++i;
    if (i < n && s[i] == '"') {
      size_t b = ++i;
      while (i < n && s[i] != '"') ++i;
      v.assign(s + b, i - b);
      if (i < n) ++i;
    } else {
      size_t b = i;
      while (i < n && !isSpace(s[i])) ++i;
      v.assign(s + b, i - b);
    }
  };
  while (i < n) {
    while (i < n && isSpace(s[i])) ++i;
    if (i >= n) break;
    Arg a;
    if (s[i] == '"') {
      readValue(a.value);
      args.push_back(a);
      continue;
    }
    size_t b = i;
    while (i < n && !isSpace(s[i]) && s[i] != '=') ++i;
    std::string word(s + b, i - b);
    size_t save = i;
    while (i < n && (s[i] == ' ' || s[i] == '\t')) ++i;
    if (i < n && s[i] == '=') {
      ++i;
      a.key = word;
      readValue(a.value);
    } else {
      i = save;
      a.value = word;
    }
    args.push_back(a);
  }
}

const std::string* findArg(const std::vector<Arg>& args, const char* key) {
  for (const Arg& a : args)
    if (!a.key.empty() && equalsNoCase(a.key, key)) return &a.value;
  return nullptr;
}

// Lenient like Epic's atof, but NaN and infinities are refused.
bool parseNumber(const std::string& s, double& out) {
  if (s.empty() || s.size() > 64) return false;
  char buf[72];
  std::memcpy(buf, s.data(), s.size());
  buf[s.size()] = 0;
  char* end = nullptr;
  double v = std::strtod(buf, &end);
  if (end == buf || !std::isfinite(v)) return false;
  out = v;
  return true;
}

bool parseBool(const std::string& s) {
  double v = 0;
  if (parseNumber(s, v)) return v != 0;
  return equalsNoCase(s, "true");
}

struct MeshmapSettings {
  std::string name;
  std::string mesh;  // from MESHMAP NEW ... MESH=
  bool hasScale = false;
  double scale[3] = {1, 1, 1};
  std::vector<std::pair<uint32_t, std::string>> textures;
};

class Parser {
 public:
  UcScript script;

  void number(const std::vector<Arg>& list, const char* key, double& dst, size_t line) {
    const std::string* v = findArg(list, key);
    if (!v) return;
    double d = 0;
    if (parseNumber(*v, d)) {
      dst = d;
    } else {
      script.warnings.push_back(
          format("line %zu: %s=%s is not a finite number, ignored", line, key, cleanName(*v).c_str()));
    }
  }

  // Names compare case-insensitively through these keys, looked up in hash maps: a script of
  // thousands of meshes or sequences stays linear instead of comparing each with every other.
  static std::string nameKey(const std::string& name) {
    std::string k(name);
    for (char& c : k) c = lowerAscii(c);
    return k;
  }
  static std::string sequenceKey(size_t mesh, const std::string& sequence) {
    return std::to_string(mesh) + ':' + nameKey(sequence);
  }

  size_t meshAt(const std::string& name) {
    const auto hit = meshIndex.emplace(nameKey(name), script.meshes.size());
    if (hit.second) {
      script.meshes.emplace_back();
      script.meshes.back().name = name;
    }
    return hit.first->second;
  }
  UcMesh& mesh(const std::string& name) { return script.meshes[meshAt(name)]; }

  MeshmapSettings& meshmap(const std::string& name) {
    const auto hit = meshmapIndex.emplace(nameKey(name), meshmaps.size());
    if (hit.second) {
      meshmaps.emplace_back();
      meshmaps.back().name = name;
    }
    return meshmaps[hit.first->second];
  }

  // One #exec line: `MESH <sub>`, `MESHMAP <sub>`, `TEXTURE IMPORT`, `ANIM IMPORT|DIGEST` or
  // `OBJ LOAD` (spec §8).
  RS_STEP void directive(const char* s, size_t n, size_t line) {
    tokenize(s, n, args);
    const std::string* words[2] = {nullptr, nullptr};
    int w = 0;
    for (const Arg& a : args) {
      if (a.key.empty() && w < 2) words[w++] = &a.value;
    }
    if (w < 2) return;
    const std::string& cmd = *words[0];
    const std::string& sub = *words[1];
    ++script.execLines;
    if (equalsNoCase(cmd, "MESH")) {
      meshDirective(sub, line);
    } else if (equalsNoCase(cmd, "MESHMAP")) {
      meshmapDirective(sub, line);
    } else if (equalsNoCase(cmd, "TEXTURE") && equalsNoCase(sub, "IMPORT")) {
      textureImport(line);
    } else if (equalsNoCase(cmd, "ANIM")) {
      animDirective(sub, line);
    } else if (equalsNoCase(cmd, "OBJ") && equalsNoCase(sub, "LOAD")) {
      objLoad(line);
    }
  }

  // ANIM IMPORT ANIM= ANIMFILE= (a .psa; COMPRESS= and IMPORTSEQS= shape only the engine's copy);
  // ANIM DIGEST ANIM= (the engine's own step: the .psa's sequences are read as they are).
  RS_STEP void animDirective(const std::string& sub, size_t line) {
    const std::string* name = findArg(args, "ANIM");
    const bool import = equalsNoCase(sub, "IMPORT"), digest = equalsNoCase(sub, "DIGEST");
    if (!import && !digest) return;
    if (!name || name->empty()) {
      script.warnings.push_back(format("line %zu: ANIM %s without ANIM=, ignored", line, cleanName(sub).c_str()));
      return;
    }
    const std::string anim = cleanName(*name);
    const auto hit = animIndex.emplace(nameKey(anim), script.animImports.size());
    if (digest) {
      if (hit.second) {
        animIndex.erase(hit.first);
        script.warnings.push_back(
            format("line %zu: ANIM DIGEST names ANIM=%s, which no ANIM IMPORT before it declares; ignored", line,
                   anim.c_str()));
        return;
      }
      script.animImports[hit.first->second].digested = true;
      return;
    }
    const std::string* file = findArg(args, "ANIMFILE");
    if (!file || file->empty()) {
      if (hit.second) animIndex.erase(hit.first);
      script.warnings.push_back(format("line %zu: ANIM IMPORT without ANIMFILE=, ignored", line));
      return;
    }
    UcAnimImport a;
    a.name = anim;
    a.file = cleanName(*file);
    if (hit.second) {
      script.animImports.push_back(a);
    } else {
      script.warnings.push_back(
          format("line %zu: ANIM IMPORT ANIM=%s again: this one replaces the earlier", line, anim.c_str()));
      script.animImports[hit.first->second] = a;
    }
  }

  // OBJ LOAD FILE= PACKAGE=: the package file's objects become known to the script's slots.
  RS_STEP void objLoad(size_t line) {
    const std::string* file = findArg(args, "FILE");
    if (!file || file->empty()) {
      script.warnings.push_back(format("line %zu: OBJ LOAD without FILE=, ignored", line));
      return;
    }
    UcObjLoad o;
    o.file = cleanName(*file);
    o.package = ucBaseName(o.file, true);
    if (const std::string* into = findArg(args, "PACKAGE")) o.into = cleanName(*into);
    if (o.package.empty()) {
      script.warnings.push_back(format("line %zu: OBJ LOAD FILE=%s names no file, ignored", line, o.file.c_str()));
      return;
    }
    for (const UcObjLoad& e : script.objLoads)
      if (equalsNoCase(e.file, o.file) && equalsNoCase(e.into, o.into)) return;
    script.objLoads.push_back(o);
  }

  RS_STEP void meshDirective(const std::string& sub, size_t line) {
    const std::string* name = findArg(args, "MESH");
    if (!name || name->empty()) {
      script.warnings.push_back(format("line %zu: MESH %s without MESH=, ignored", line, cleanName(sub).c_str()));
      return;
    }
    if (equalsNoCase(sub, "IMPORT")) {
      meshImport(mesh(cleanName(*name)), line);
    } else if (equalsNoCase(sub, "ORIGIN")) {
      UcMesh& m = mesh(cleanName(*name));
      number(args, "X", m.origin[0], line);
      number(args, "Y", m.origin[1], line);
      number(args, "Z", m.origin[2], line);
      number(args, "PITCH", m.rotation[0], line);
      number(args, "YAW", m.rotation[1], line);
      number(args, "ROLL", m.rotation[2], line);
    } else if (equalsNoCase(sub, "SEQUENCE")) {
      meshSequence(meshAt(cleanName(*name)), line);
    } else if (equalsNoCase(sub, "NOTIFY")) {
      notify(cleanName(*name), line);
    } else if (equalsNoCase(sub, "MODELIMPORT")) {
      modelImport(mesh(cleanName(*name)), line);
    } else if (equalsNoCase(sub, "DEFAULTANIM")) {
      const std::string* anim = findArg(args, "ANIM");
      if (!anim || anim->empty()) {
        script.warnings.push_back(format("line %zu: MESH DEFAULTANIM without ANIM=, ignored", line));
        return;
      }
      mesh(cleanName(*name)).defaultAnim = cleanName(*anim);
    } else if (equalsNoCase(sub, "DROPFRAMES")) {
      script.warnings.push_back(format("line %zu: MESH DROPFRAMES is not supported; frame numbers may be off", line));
    }
  }

  // MESH IMPORT: the files and the unmirror / texture-number flags.
  RS_STEP void meshImport(UcMesh& m, size_t line) {
    m.imported = true;
    if (const std::string* v = findArg(args, "DATAFILE")) m.dataFile = cleanName(*v);
    if (const std::string* v = findArg(args, "ANIVFILE")) m.animFile = cleanName(*v);
    if (const std::string* v = findArg(args, "UNMIRROR")) m.unmirror = parseBool(*v);
    if (const std::string* v = findArg(args, "ZEROTEX")) m.zeroTex = parseBool(*v);
    double t = -1;
    number(args, "UNMIRRORTEX", t, line);
    m.unmirrorTex = (t >= 0 && t < 256) ? int32_t(t) : -1;
  }

  // MESH MODELIMPORT MODELFILE= (a .psk; LODSTYLE= shapes only the engine's levels of detail).
  RS_STEP void modelImport(UcMesh& m, size_t line) {
    const std::string* file = findArg(args, "MODELFILE");
    if (!file || file->empty()) {
      script.warnings.push_back(format("line %zu: MESH MODELIMPORT without MODELFILE=, ignored", line));
      return;
    }
    if (m.modelImported)
      script.warnings.push_back(
          format("line %zu: MESH MODELIMPORT MESH=%s again: this one replaces the earlier", line, m.name.c_str()));
    m.modelImported = true;
    m.modelFile = cleanName(*file);
  }

  // MESH SEQUENCE: a repeated SEQ replaces the earlier one, keeping its place.
  RS_STEP void meshSequence(size_t meshNo, size_t line) {
    UcMesh& m = script.meshes[meshNo];
    const std::string* seq = findArg(args, "SEQ");
    if (!seq || seq->empty()) {
      script.warnings.push_back(format("line %zu: MESH SEQUENCE without SEQ=, ignored", line));
      return;
    }
    UcSequence q;
    q.name = cleanName(*seq);
    if (const std::string* g = findArg(args, "GROUP")) q.group = cleanName(*g);
    number(args, "STARTFRAME", q.startFrame, line);
    number(args, "NUMFRAMES", q.numFrames, line);
    number(args, "RATE", q.rate, line);
    const auto hit = sequenceIndex.emplace(sequenceKey(meshNo, q.name), m.sequences.size());
    if (!hit.second) {
      m.sequences[hit.first->second] = q;
      return;
    }
    m.sequences.push_back(q);
  }

  RS_STEP void meshmapDirective(const std::string& sub, size_t line) {
    const std::string* name = findArg(args, "MESHMAP");
    if (!name || name->empty()) return;
    MeshmapSettings& mm = meshmap(cleanName(*name));
    if (equalsNoCase(sub, "NEW")) {
      if (const std::string* v = findArg(args, "MESH")) mm.mesh = cleanName(*v);
    } else if (equalsNoCase(sub, "SCALE")) {
      mm.hasScale = true;
      number(args, "X", mm.scale[0], line);
      number(args, "Y", mm.scale[1], line);
      number(args, "Z", mm.scale[2], line);
    } else if (equalsNoCase(sub, "SETTEXTURE")) {
      setTexture(mm, line);
    }
  }

  // MESHMAP SETTEXTURE NUM= TEXTURE=: a repeated slot takes the later texture.
  RS_STEP void setTexture(MeshmapSettings& mm, size_t line) {
    double num = -1;
    number(args, "NUM", num, line);
    const std::string* tex = findArg(args, "TEXTURE");
    if (!(num >= 0 && num < 256) || !tex) {
      script.warnings.push_back(format("line %zu: MESHMAP SETTEXTURE needs NUM=0..255 and TEXTURE=, ignored", line));
      return;
    }
    const uint32_t slot = uint32_t(num);
    const std::string t = cleanName(*tex);
    for (auto& e : mm.textures) {
      if (e.first == slot) {
        e.second = t;
        return;
      }
    }
    mm.textures.emplace_back(slot, t);
  }

  // TEXTURE IMPORT NAME= FILE= FLAGS=.
  RS_STEP void textureImport(size_t line) {
    UcTextureImport t;
    if (const std::string* f = findArg(args, "FILE")) t.file = cleanName(*f);
    if (const std::string* nm = findArg(args, "NAME")) t.name = cleanName(*nm);
    if (t.name.empty()) t.name = ucBaseName(t.file, true);
    double flags = 0;
    number(args, "FLAGS", flags, line);
    t.flags = (flags >= 0 && flags < 4294967296.0) ? uint32_t(flags) : 0;
    if (!t.name.empty() || !t.file.empty()) script.textureImports.push_back(t);
  }

  // A NOTIFY waits until every sequence is known: it may come before the SEQUENCE it names, and a
  // repeated SEQUENCE replaces the earlier one.
  RS_STEP void notify(const std::string& meshName, size_t line) {
    const std::string* seq = findArg(args, "SEQ");
    const std::string* function = findArg(args, "FUNCTION");
    if (!seq || seq->empty() || !function || function->empty()) {
      script.warnings.push_back(format("line %zu: MESH NOTIFY without SEQ= and FUNCTION=, ignored", line));
      return;
    }
    const std::string* timeText = findArg(args, "TIME");
    double time = -1;
    if (!timeText || !parseNumber(*timeText, time) || time < 0 || time > 1) {
      script.warnings.push_back(
          format("line %zu: MESH NOTIFY TIME=%s is not a fraction 0..1 of the sequence, "
                 "ignored",
                 line, timeText ? cleanName(*timeText).c_str() : ""));
      return;
    }
    PendingNotify n;
    n.mesh = meshName;
    n.sequence = cleanName(*seq);
    n.notify.time = time;
    n.notify.function = cleanName(*function);
    n.line = line;
    notifies.push_back(n);
  }

  RS_STEP void attachNotifies() {
    for (const PendingNotify& n : notifies) {
      UcSequence* target = nullptr;
      const auto mesh = meshIndex.find(nameKey(n.mesh));
      if (mesh != meshIndex.end()) {
        const auto seq = sequenceIndex.find(sequenceKey(mesh->second, n.sequence));
        if (seq != sequenceIndex.end()) target = &script.meshes[mesh->second].sequences[seq->second];
      }
      if (target) {
        target->notifies.push_back(n.notify);
      } else {
        script.warnings.push_back(
            format("line %zu: MESH NOTIFY names SEQ=%s, which no MESH SEQUENCE of %s declares; "
                   "ignored",
                   n.line, n.sequence.c_str(), n.mesh.c_str()));
      }
    }
  }

  // Resolves MESHMAP settings onto the meshes they name (MESHMAP NEW aliases, else same name).
  RS_STEP void finish() {
    attachNotifies();
    for (const MeshmapSettings& mm : meshmaps) {
      const std::string& target = mm.mesh.empty() ? mm.name : mm.mesh;
      if (!mm.hasScale && mm.textures.empty()) continue;
      const auto found = meshIndex.find(nameKey(target));
      if (found != meshIndex.end()) {
        UcMesh& m = script.meshes[found->second];
        if (mm.hasScale) {
          m.hasScale = true;
          for (int k = 0; k < 3; ++k) m.scale[k] = mm.scale[k];
        }
        for (const auto& t : mm.textures) {
          bool replaced = false;
          for (auto& e : m.textures)
            if (e.first == t.first) e.second = t.second, replaced = true;
          if (!replaced) m.textures.push_back(t);
        }
      } else {
        UcMesh m;
        m.name = target;
        m.hasScale = mm.hasScale;
        for (int k = 0; k < 3; ++k) m.scale[k] = mm.scale[k];
        m.textures = mm.textures;
        meshIndex.emplace(nameKey(target), script.meshes.size());
        script.meshes.push_back(m);
      }
    }
  }

  struct PendingNotify {
    std::string mesh, sequence;
    UcNotify notify;
    size_t line = 0;
  };

  std::vector<MeshmapSettings> meshmaps;
  std::unordered_map<std::string, size_t> meshIndex, meshmapIndex, sequenceIndex, animIndex;
  std::vector<PendingNotify> notifies;
  std::vector<Arg> args;
};

// "Texture'Pkg.Group.Name'" -> "Pkg.Group.Name"; quotes and a trailing ';' removed.
std::string propertyValue(const char* s, size_t n) {
  while (n > 0 && (isSpace(s[n - 1]) || s[n - 1] == ';')) --n;
  while (n > 0 && isSpace(*s)) ++s, --n;
  const char* q = static_cast<const char*>(std::memchr(s, '\'', n));
  if (q) {
    const char* e = q + 1;
    const char* end = s + n;
    while (e < end && *e != '\'') ++e;
    return std::string(q + 1, size_t(e - q - 1));
  }
  if (n >= 2 && s[0] == '"' && s[n - 1] == '"') return std::string(s + 1, n - 2);
  return std::string(s, n);
}

RS_STEP void parseDefaultProperties(const std::string& text, size_t from, UcScript& script) {
  size_t open = text.find('{', from);
  if (open == std::string::npos) return;
  size_t i = open + 1;
  const size_t n = text.size();
  while (i < n) {
    size_t eol = i;
    while (eol < n && text[eol] != '\n' && text[eol] != '}') ++eol;
    const char* s = text.data() + i;
    size_t len = eol - i;
    while (len > 0 && isSpace(*s)) ++s, --len;
    if (startsWithNoCase(s, len, "multiskins")) {
      const char* p = s + 10;
      const char* end = s + len;
      while (p < end && isSpace(*p)) ++p;
      if (p < end && (*p == '(' || *p == '[')) {
        ++p;
        uint32_t slot = 0;
        bool digits = false;
        while (p < end && *p >= '0' && *p <= '9') {
          if (slot < 100000) slot = slot * 10 + uint32_t(*p - '0');
          ++p;
          digits = true;
        }
        while (p < end && *p != '=') ++p;
        if (digits && p < end && slot < 256) {
          std::string v = cleanName(propertyValue(p + 1, size_t(end - p - 1)));
          bool replaced = false;
          for (auto& e : script.multiSkins)
            if (e.first == slot) e.second = v, replaced = true;
          if (!replaced) script.multiSkins.emplace_back(slot, v);
        }
      }
    } else if (startsWithNoCase(s, len, "skin")) {
      const char* p = s + 4;
      const char* end = s + len;
      while (p < end && isSpace(*p)) ++p;
      if (p < end && *p == '=') script.skin = cleanName(propertyValue(p + 1, size_t(end - p - 1)));
    }
    if (eol >= n || text[eol] == '}') break;
    i = eol + 1;
  }
}

}  // namespace

int findUcModel(const UcScript& script, const std::string& modelFile) {
  const std::string want = ucBaseName(modelFile, false);
  for (size_t i = 0; i < script.meshes.size(); ++i) {
    const UcMesh& m = script.meshes[i];
    if (m.modelImported && equalsNoCase(ucBaseName(m.modelFile, false), want)) return int(i);
  }
  return -1;
}

int findUcAnim(const UcScript& script, const std::string& animFile) {
  const std::string want = ucBaseName(animFile, false);
  for (size_t i = 0; i < script.animImports.size(); ++i)
    if (equalsNoCase(ucBaseName(script.animImports[i].file, false), want)) return int(i);
  return -1;
}

std::string ucBaseName(const std::string& path, bool stem) {
  size_t b = path.find_last_of("/\\");
  std::string base = b == std::string::npos ? path : path.substr(b + 1);
  if (stem) {
    size_t dot = base.find_last_of('.');
    if (dot != std::string::npos && dot > 0) base.resize(dot);
  }
  return base;
}

UcScript parseUc(const std::string& raw) {
  Parser p;
  std::string text = stripComments(raw);
  const size_t n = text.size();
  size_t i = 0, line = 1;
  size_t defaults = std::string::npos;
  while (i < n) {
    size_t eol = i;
    while (eol < n && text[eol] != '\n') ++eol;
    const char* s = text.data() + i;
    size_t len = eol - i;
    while (len > 0 && (*s == ' ' || *s == '\t')) ++s, --len;
    if (startsWithNoCase(s, len, "#exec")) {
      p.directive(s + 5, len - 5, line);
    } else if (startsWithNoCase(s, len, "#forceexec")) {
      p.directive(s + 10, len - 10, line);
    } else if (defaults == std::string::npos && startsWithNoCase(s, len, "defaultproperties")) {
      defaults = size_t(s - text.data()) + 17;
    }
    i = eol + 1;
    ++line;
  }
  p.finish();
  if (defaults != std::string::npos) parseDefaultProperties(text, defaults, p.script);
  return p.script;
}

int findUcMesh(const UcScript& script, const std::string& dataFile, const std::string& animFile) {
  std::string d = ucBaseName(dataFile, false), a = ucBaseName(animFile, false);
  int one = -1;
  for (size_t i = 0; i < script.meshes.size(); ++i) {
    const UcMesh& m = script.meshes[i];
    if (!m.imported) continue;
    bool dm = !m.dataFile.empty() && equalsNoCase(ucBaseName(m.dataFile, false), d);
    bool am = !m.animFile.empty() && equalsNoCase(ucBaseName(m.animFile, false), a);
    if (dm && am) return int(i);
    if ((dm || am) && one < 0) one = int(i);
  }
  return one;
}

}  // namespace rs
