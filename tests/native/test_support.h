// Small helpers shared by the format test suites: reading a decoded Model's counts, info and
// warnings by name.
#pragma once
#include <string>

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

}  // namespace test
}  // namespace rs
