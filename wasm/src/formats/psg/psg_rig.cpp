// The Skate 3 skater rig's name -> parent table (spec §7.4). The hierarchy is not stored in the
// model arena (it lives in the .abin animation database), so community importers hard-code it;
// this is the same table. '%' expands to LEFT and RIGHT.
#include <cctype>
#include <cstring>
#include <unordered_map>

#include "formats/psg/psg_internal.h"

namespace rs {
namespace psg {
namespace {

struct Link {
  const char* child;
  const char* parent;  // "" = root
};

// The rig as a tree, a few links a line.
// clang-format off
const Link kRig[] = {
    {"TRAJECTORY", ""}, {"HIPS", ""}, {"SKATEBOARD_ROOT", ""}, {"LEFTTOEBASE_REPARENTED", ""},
    {"RIGHTTOEBASE_REPARENTED", ""}, {"LEFTHAND_REPARENTED", ""}, {"RIGHTHAND_REPARENTED", ""},
    // spine
    {"SPINE", "HIPS"}, {"SPINE1", "SPINE"}, {"SPINE2", "SPINE1"}, {"SPINE3", "SPINE2"}, {"NECK", "SPINE3"},
    {"NECK1", "NECK"}, {"HEAD", "NECK1"}, {"FACE", "HEAD"},
    // arms
    {"%SHOULDER", "SPINE3"}, {"%ARM", "%SHOULDER"}, {"%FOREARM", "%ARM"}, {"%HAND", "%FOREARM"},
    {"%SHOULDERHLP", "SPINE3"}, {"%ARMTWIST", "%ARM"}, {"%FOREARMTWIST", "%FOREARM"},
    {"%FOREARMTWIST1", "%FOREARM"},
    // legs
    {"%UPLEG", "HIPS"}, {"%LEG", "%UPLEG"}, {"%FOOT", "%LEG"}, {"%TOEBASE", "%FOOT"}, {"%UPLEGHLP", "HIPS"},
    {"%UPLEGTWIST", "%UPLEG"},
    // fingers
    {"%HANDTHUMB1", "%HAND"}, {"%HANDTHUMB2", "%HANDTHUMB1"}, {"%HANDTHUMB3", "%HANDTHUMB2"},
    {"%HANDINDEX1", "%HAND"}, {"%HANDINDEX2", "%HANDINDEX1"}, {"%HANDINDEX3", "%HANDINDEX2"},
    {"%HANDMIDDLE1", "%HAND"}, {"%HANDMIDDLE2", "%HANDMIDDLE1"}, {"%HANDMIDDLE3", "%HANDMIDDLE2"},
    {"%INHANDRING", "%HAND"}, {"%HANDRING1", "%INHANDRING"}, {"%HANDRING2", "%HANDRING1"},
    {"%HANDRING3", "%HANDRING2"}, {"%INHANDPINKY", "%HAND"}, {"%HANDPINKY1", "%INHANDPINKY"},
    {"%HANDPINKY2", "%HANDPINKY1"}, {"%HANDPINKY3", "%HANDPINKY2"},
    // board
    {"TRUCK_FRONT", "SKATEBOARD_ROOT"}, {"%_WHEELFRONT", "TRUCK_FRONT"}, {"TRUCK_BACK", "SKATEBOARD_ROOT"},
    {"%_WHEELBACK", "TRUCK_BACK"},
    // face
    {"OFFSET_JAW", "FACE"}, {"JAW", "OFFSET_JAW"}, {"OFFSET_CHIN", "JAW"}, {"CHIN", "OFFSET_CHIN"},
    {"OFFSET_LOWERLIP", "JAW"}, {"LOWERLIP", "OFFSET_LOWERLIP"}, {"OFFSET_%LOWERLIP", "JAW"},
    {"%LOWERLIP", "OFFSET_%LOWERLIP"}, {"OFFSET_TONGUE", "JAW"}, {"TONGUE", "OFFSET_TONGUE"},
    {"OFFSET_TONGUETIP", "TONGUE"}, {"TONGUETIP", "OFFSET_TONGUETIP"},
    {"OFFSET_%CHEEK", "FACE"}, {"%CHEEK", "OFFSET_%CHEEK"}, {"OFFSET_%EYE", "FACE"}, {"%EYE", "OFFSET_%EYE"},
    {"OFFSET_%MOUTH", "FACE"}, {"%MOUTH", "OFFSET_%MOUTH"}, {"OFFSET_%UPCHEEK", "FACE"},
    {"%UPCHEEK", "OFFSET_%UPCHEEK"}, {"OFFSET_%UPPERLIP", "FACE"}, {"%UPPERLIP", "OFFSET_%UPPERLIP"},
    {"OFFSET_UPPERLIP", "FACE"}, {"UPPERLIP", "OFFSET_UPPERLIP"},
    {"%CREASE", "FACE"}, {"%INNEREYEBROW", "FACE"}, {"%LOWEYELID", "FACE"}, {"%NOSE", "FACE"},
    {"%OUTEREYEBROW", "FACE"}, {"%UPEYELID", "FACE"},
};
// clang-format on

// Compares `name` with a table pattern, '%' standing for `side` (LEFT or RIGHT), ignoring case.
bool matches(const std::string& name, const char* pattern, const char* side) {
  size_t i = 0;
  for (const char* p = pattern; *p; ++p) {
    if (*p == '%') {
      for (const char* s = side; *s; ++s, ++i)
        if (i >= name.size() || std::toupper(uint8_t(name[i])) != *s) return false;
    } else {
      if (i >= name.size() || std::toupper(uint8_t(name[i])) != *p) return false;
      ++i;
    }
  }
  return i == name.size();
}

// Finds the table entry for `name`; returns the side used for '%' via `side`.
const Link* find(const std::string& name, const char*& side) {
  static const char* kSides[2] = {"LEFT", "RIGHT"};
  for (const Link& l : kRig) {
    bool sided = std::strchr(l.child, '%') != nullptr;
    for (int s = 0; s < (sided ? 2 : 1); ++s) {
      if (matches(name, l.child, kSides[s])) {
        side = kSides[s];
        return &l;
      }
    }
  }
  return nullptr;
}

std::string expand(const char* pattern, const char* side) {
  std::string s;
  for (const char* p = pattern; *p; ++p) {
    if (*p == '%')
      s += side;
    else
      s += *p;
  }
  return s;
}

std::string upper(std::string s) {
  for (char& c : s) c = char(std::toupper(uint8_t(c)));
  return s;
}

}  // namespace

size_t skaterParents(const std::vector<std::string>& names, std::vector<int32_t>& parents,
                     std::vector<std::string>& unmatched) {
  parents.assign(names.size(), -1);
  // Case-insensitive name -> first bone with it, built once: the climbs below look names up
  // often, and a hostile model can have 65,535 bones.
  std::unordered_map<std::string, int> first;
  for (size_t i = 0; i < names.size(); ++i) first.emplace(upper(names[i]), int(i));
  size_t found = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    const char* side = "";
    const Link* l = find(names[i], side);
    if (!l) {
      unmatched.push_back(names[i]);
      continue;
    }
    ++found;
    // Part files carry only the bones they use: climb to the nearest ancestor present here.
    std::string parent = expand(l->parent, side);
    for (int guard = 0; !parent.empty() && guard < 64; ++guard) {
      const auto named = first.find(upper(parent));
      const int p = named == first.end() ? -1 : named->second;
      if (p >= 0 && size_t(p) != i) {
        parents[i] = p;
        break;
      }
      const char* s2 = "";
      const Link* up = find(parent, s2);
      if (!up) break;
      parent = expand(up->parent, s2);
    }
  }
  return found;
}

}  // namespace psg
}  // namespace rs
