// Small helpers shared by the format test suites: reading a decoded Model's counts, info and
// warnings by name.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "model/model.h"

namespace rs {
namespace test {

inline double countOf(const Model& m, const std::string& key) {
  for (const auto& c : m.counts)
    if (c.first == key) return c.second;
  return -1;
}

inline std::string infoOf(const Model& m, const std::string& key) {
  for (const auto& c : m.info)
    if (c.first == key) return c.second;
  return "";
}

inline bool hasWarning(const Model& m, const std::string& needle) {
  for (const std::string& w : m.warnings)
    if (w.find(needle) != std::string::npos) return true;
  return false;
}

inline std::string allWarnings(const Model& m) {
  std::string s;
  for (const std::string& w : m.warnings) s += w + "\n";
  return s;
}

// The shared samples folder (RIGSCOPE_SAMPLES overrides the build-time path), with a subfolder.
inline std::string samplesDir(const std::string& sub) {
  const char* env = std::getenv("RIGSCOPE_SAMPLES");
  std::string dir = env ? env : RIGSCOPE_SAMPLES;
  return dir + "/" + sub + "/";
}

// Reads a whole file; false when it cannot be opened (the sample tests then skip).
inline bool readBytes(const std::string& path, std::vector<uint8_t>& out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}

}  // namespace test
}  // namespace rs
