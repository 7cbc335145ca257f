#include "formats/psk/psa_config.h"

#include <cctype>
#include <cstdlib>

namespace rs {
namespace {

std::string trim(const std::string& s, size_t b, size_t e) {
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

bool sameActorXName(const std::string& a, const std::string& b) {
  size_t na = a.size(), nb = b.size();
  while (na && (a[na - 1] == ' ' || a[na - 1] == '\t')) --na;
  while (nb && (b[nb - 1] == ' ' || b[nb - 1] == '\t')) --nb;
  if (na != nb) return false;
  for (size_t i = 0; i < na; ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

std::string actorXNameKey(const std::string& name) {
  size_t n = name.size();
  while (n && (name[n - 1] == ' ' || name[n - 1] == '\t')) --n;
  std::string key(name, 0, n);
  for (char& c : key) c = char(std::tolower(static_cast<unsigned char>(c)));
  return key;
}

PsaConfig parsePsaConfig(const std::string& text) {
  PsaConfig cfg;
  enum Section { None, AnimSet, UseTranslation, ForceMesh, RemoveTracks, Other } section = None;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    std::string line = trim(text, pos, eol);
    pos = eol + 1;
    if (line.empty() || line[0] == ';' || line[0] == '#') continue;
    if (line[0] == '[') {
      size_t close = line.find(']');
      std::string name = lower(trim(line, 1, close == std::string::npos ? line.size() : close));
      if (name == "animset")
        section = AnimSet;
      else if (name == "usetranslationbonenames")
        section = UseTranslation;
      else if (name == "forcemeshtranslationbonenames")
        section = ForceMesh;
      else if (name == "removetracks")
        section = RemoveTracks;
      else
        section = Other;
      continue;
    }
    switch (section) {
      case AnimSet: {
        size_t eq = line.find('=');
        std::string key = lower(trim(line, 0, eq == std::string::npos ? line.size() : eq));
        std::string value = eq == std::string::npos ? "" : lower(trim(line, eq + 1, line.size()));
        if (key == "banimrotationonly")
          cfg.rotationOnly = value == "1" || value == "true";
        else
          ++cfg.ignoredLines;
        break;
      }
      case UseTranslation: cfg.useTranslation.push_back(line); break;
      case ForceMesh: cfg.forceMeshTranslation.push_back(line); break;
      case RemoveTracks: {
        size_t eq = line.find('=');
        size_t dot = eq == std::string::npos ? std::string::npos : line.rfind('.', eq);
        if (dot == std::string::npos) {
          ++cfg.ignoredLines;
          break;
        }
        std::string idx = trim(line, dot + 1, eq);
        std::string what = lower(trim(line, eq + 1, line.size()));
        char* end = nullptr;
        long bone = std::strtol(idx.c_str(), &end, 10);
        bool numeric = !idx.empty() && end && *end == 0 && bone >= 0 && bone <= 0x7FFFFFFF;
        PsaConfig::Removal r;
        r.sequence = trim(line, 0, dot);
        r.bone = int32_t(bone);
        r.translation = what == "trans" || what == "all";
        r.rotation = what == "rot" || what == "all";
        if (!numeric || (!r.translation && !r.rotation)) {
          ++cfg.ignoredLines;
          break;
        }
        cfg.removeTracks.push_back(r);
        break;
      }
      default: ++cfg.ignoredLines; break;
    }
  }
  return cfg;
}

}  // namespace rs
