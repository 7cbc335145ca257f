// PSA decoder and .config sidecar: writer round trips, the real samples against
// shared/samples/README.md, and hostile input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "formats/psk/psa.h"
#include "formats/psk/psa_config.h"
#include "formats/psk/psk.h"
#include "io/bytes.h"
#include "writers/psk_writer.h"
#include "writers/writer_bytes.h"

#include "test_support.h"

using namespace rs;
using rs::test::allWarnings;
using rs::test::countOf;
using rs::test::hasWarning;

namespace {

Status decode(const std::vector<uint8_t>& bytes, Model& m, const std::string& config = "") {
  return decodePsa(bytes.data(), bytes.size(), "t.psa", config, m);
}

const Track* trackFor(const Clip& c, int32_t bone) {
  for (const Track& t : c.tracks)
    if (t.bone == bone) return &t;
  return nullptr;
}

// 3 bones; "Walk" 4 frames at 10 fps, "Jump" 2 frames at 30.3 fps. Key values encode (seq, frame, bone).
psk::Animation threeBoneAnim() {
  psk::Animation a;
  a.bones.resize(3);
  a.bones[0].name = "Root";
  a.bones[0].parent = -1;
  a.bones[1].name = "Spine";
  a.bones[2].name = "Head";
  a.bones[2].parent = 1;
  struct SeqDef {
    const char* name;
    float fps;
    uint32_t frames;
  } defs[] = {{"Walk", 10, 4}, {"Jump", 30.3f, 2}};
  int s = 0;
  for (const SeqDef& d : defs) {
    psk::Sequence seq;
    seq.name = d.name;
    seq.fps = d.fps;
    seq.frames = d.frames;
    for (uint32_t f = 0; f < d.frames; ++f)
      for (int b = 0; b < 3; ++b) {
        psk::Key k;
        k.position[0] = float(100 * s + 10 * f + b);
        k.position[1] = 1;
        k.position[2] = 2;
        float ang = 0.1f * float(f + 1) * float(b + 1);
        k.rotation[0] = std::sin(ang);  // rotation about file X
        k.rotation[1] = 0;
        k.rotation[2] = 0;
        k.rotation[3] = std::cos(ang);
        seq.keys.push_back(k);
      }
    a.sequences.push_back(seq);
    ++s;
  }
  return a;
}

}  // namespace

TEST(PsaRoundTrip, ClipsTimesAxesAndQuaternionRule) {
  Model m;
  Status s = decode(psk::writePsa(threeBoneAnim()), m);
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(m.format, "psa");
  EXPECT_EQ(m.bindBy, "name");
  EXPECT_FALSE(m.skeleton.flat);
  EXPECT_EQ(m.skeleton.helper, -1);
  EXPECT_EQ(m.skeleton.names, (std::vector<std::string>{"Root", "Spine", "Head"}));
  EXPECT_EQ(m.skeleton.parents, (std::vector<int32_t>{-1, 0, 1}));
  EXPECT_EQ(countOf(m, "bones"), 3);
  EXPECT_EQ(countOf(m, "sequences"), 2);
  EXPECT_EQ(countOf(m, "keys"), 18);
  EXPECT_EQ(countOf(m, "scaleKeys"), 0);
  ASSERT_EQ(m.clips.size(), 2u);
  const Clip& walk = m.clips[0];
  EXPECT_EQ(walk.name, "Walk");
  EXPECT_DOUBLE_EQ(walk.fps, 10);
  EXPECT_EQ(walk.frameCount, 4u);
  EXPECT_TRUE(walk.loop);
  EXPECT_DOUBLE_EQ(walk.duration, 0.4);
  ASSERT_EQ(walk.tracks.size(), 3u);
  const Track& head = *trackFor(walk, 2);
  // Exactly the file's 4 frames, at k / fps: the loop period (duration) is one frame longer.
  ASSERT_EQ(head.times.size(), 4u);
  EXPECT_FLOAT_EQ(head.times[1], 0.1f);
  EXPECT_FLOAT_EQ(head.times[3], 0.3f);
  ASSERT_EQ(head.translation.size(), 4u * 3);
  ASSERT_EQ(head.rotation.size(), 4u * 4);
  EXPECT_TRUE(walk.notifies.empty());
  // Translation (20 + 2, 1, 2) at frame 2 -> (22, 2, -1)
  EXPECT_FLOAT_EQ(head.translation[2 * 3 + 0], 22);
  EXPECT_FLOAT_EQ(head.translation[2 * 3 + 1], 2);
  EXPECT_FLOAT_EQ(head.translation[2 * 3 + 2], -1);
  // Bone 2 conjugated: (sin a, 0, 0, cos a) -> (-sin a, 0, 0, cos a); axis x unchanged by Z->Y.
  float a = 0.1f * 3 * 3;
  EXPECT_NEAR(head.rotation[2 * 4 + 0], -std::sin(a), 1e-6);
  EXPECT_NEAR(head.rotation[2 * 4 + 3], std::cos(a), 1e-6);
  // Bone 0 as stored.
  const Track& root = *trackFor(walk, 0);
  EXPECT_NEAR(root.rotation[0], std::sin(0.1f), 1e-6);
  EXPECT_TRUE(root.scale.empty());

  const Clip& jump = m.clips[1];
  EXPECT_EQ(jump.name, "Jump");
  EXPECT_NEAR(jump.fps, 30.3, 1e-5);
  EXPECT_EQ(jump.frameCount, 2u);
  EXPECT_NEAR(jump.duration, 2 / 30.3, 1e-6);
  // Keys of the second sequence start after 4 * 3 keys: frame 1 of bone 1 has x = 100 + 10 + 1.
  EXPECT_FLOAT_EQ(trackFor(jump, 1)->translation[3], 111);
}

TEST(PsaRoundTrip, RotationAxisConversion) {
  psk::Animation a = threeBoneAnim();
  // Root rotation about file Z (up) must become rotation about three's Y.
  for (psk::Sequence& s : a.sequences)
    for (size_t k = 0; k < s.keys.size(); k += 3) {
      s.keys[k].rotation[0] = 0;
      s.keys[k].rotation[2] = std::sin(0.3f);
      s.keys[k].rotation[3] = std::cos(0.3f);
    }
  Model m;
  ASSERT_TRUE(decode(psk::writePsa(a), m).ok());
  const Track& root = *trackFor(m.clips[0], 0);
  EXPECT_NEAR(root.rotation[0], 0, 1e-6);
  EXPECT_NEAR(root.rotation[1], std::sin(0.3f), 1e-6);
  EXPECT_NEAR(root.rotation[2], 0, 1e-6);
}

TEST(PsaRoundTrip, FirstRawFrameIgnored) {
  psk::Animation a = threeBoneAnim();
  a.sequences[0].firstRawFrame = 4;  // CUE4Parse bug: FirstRawFrame = NumRawFrames
  a.sequences[1].firstRawFrame = 0;
  Model m;
  ASSERT_TRUE(decode(psk::writePsa(a), m).ok());
  EXPECT_FLOAT_EQ(trackFor(m.clips[0], 1)->translation[0], 1);
  EXPECT_FLOAT_EQ(trackFor(m.clips[1], 1)->translation[0], 101);
}

TEST(PsaRoundTrip, HemisphereConsistentTracks) {
  psk::Animation a = threeBoneAnim();
  for (size_t k = 0; k < a.sequences[0].keys.size(); k += 6)
    for (float& q : a.sequences[0].keys[k].rotation) q = -q;  // bone 0 at frames 0 and 2 flipped
  Model m;
  ASSERT_TRUE(decode(psk::writePsa(a), m).ok());
  const Track& t = *trackFor(m.clips[0], 0);
  for (size_t k = 1; k < t.times.size(); ++k) {
    const float* p = &t.rotation[(k - 1) * 4];
    const float* q = &t.rotation[k * 4];
    EXPECT_GT(p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3], 0) << k;
  }
}

TEST(PsaRoundTrip, ScaleKeysUsedOnlyWhenTheyMatchAnimKeys) {
  psk::Animation a = threeBoneAnim();
  for (psk::Sequence& s : a.sequences)
    for (size_t k = 0; k < s.keys.size(); ++k) {
      s.scaleKeys.push_back(1);
      s.scaleKeys.push_back(2);
      s.scaleKeys.push_back(3);
    }
  Model m;
  ASSERT_TRUE(decode(psk::writePsa(a), m).ok());
  EXPECT_EQ(countOf(m, "scaleKeys"), 18);
  const Track& t = *trackFor(m.clips[1], 2);
  ASSERT_EQ(t.scale.size(), 2u * 3);  // Jump's 2 frames
  EXPECT_FLOAT_EQ(t.scale[0], 1);
  EXPECT_FLOAT_EQ(t.scale[1], 3);  // y <- file z
  EXPECT_FLOAT_EQ(t.scale[2], 2);
  EXPECT_FLOAT_EQ(t.scale[3 + 1], 3);

  // ActorX style: only one sequence has scale keys -> counts differ -> ignored.
  a.sequences[1].scaleKeys.clear();
  Model m2;
  ASSERT_TRUE(decode(psk::writePsa(a), m2).ok());
  EXPECT_TRUE(trackFor(m2.clips[0], 0)->scale.empty());
  EXPECT_TRUE(hasWarning(m2, "scale keys ignored"));
  // Empty SCALEKEYS 16x0 (UE Viewer) and none at all: no warning.
  for (bool empty : {true, false}) {
    psk::AnimOptions o;
    o.emptyScaleChunk = empty;
    Model m3;
    ASSERT_TRUE(decode(psk::writePsa(threeBoneAnim(), o), m3).ok());
    EXPECT_TRUE(m3.warnings.empty()) << allWarnings(m3);
  }
}

TEST(PsaRoundTrip, BadFpsFallsBackTo30) {
  psk::Animation a = threeBoneAnim();
  a.sequences[0].fps = 0;
  a.sequences[1].fps = std::numeric_limits<float>::quiet_NaN();
  Model m;
  ASSERT_TRUE(decode(psk::writePsa(a), m).ok());
  EXPECT_DOUBLE_EQ(m.clips[0].fps, 30);
  EXPECT_DOUBLE_EQ(m.clips[1].fps, 30);
  EXPECT_TRUE(hasWarning(m, "2 sequences had an AnimRate"));
  a.sequences[0].fps = -5;
  Model m2;
  ASSERT_TRUE(decode(psk::writePsa(a), m2).ok());
  EXPECT_DOUBLE_EQ(m2.clips[0].fps, 30);
}

TEST(PsaRoundTrip, CurveChunksSpacePaddingAndStamps) {
  psk::AnimOptions o;
  o.curveChunk = true;
  o.padNamesWithSpaces = true;
  o.typeFlagEverywhere = true;
  o.typeFlag = 1999801;
  Model m;
  ASSERT_TRUE(decode(psk::writePsa(threeBoneAnim(), o), m).ok());
  EXPECT_TRUE(m.warnings.empty()) << allWarnings(m);
  EXPECT_EQ(countOf(m, "curves"), 1);
  EXPECT_EQ(m.clips[0].name, "Walk");
  EXPECT_EQ(m.skeleton.names[2], "Head");
}

TEST(PsaRoundTrip, TotalBonesMismatchWarns) {
  psk::Animation a = threeBoneAnim();
  a.sequences[1].totalBones = 7;
  Model m;
  ASSERT_TRUE(decode(psk::writePsa(a), m).ok());
  EXPECT_TRUE(hasWarning(m, "TotalBones"));
}

TEST(PsaRoundTrip, ShortKeysAreAnErrorNamingCounts) {
  psk::Animation a = threeBoneAnim();
  a.sequences[1].keys.pop_back();
  Model m;
  Status s = decode(psk::writePsa(a), m);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error.find("ANIMKEYS has 17 keys"), std::string::npos) << s.error;
  EXPECT_NE(s.error.find("need 18"), std::string::npos) << s.error;
  EXPECT_NE(s.error.find("at byte"), std::string::npos) << s.error;
}

// ---------------------------------------------------------------------------------------------
// .config sidecar

TEST(PsaConfig, ParsesEverySection) {
  psk::Config c;
  c.rotationOnly = true;
  c.useTranslation = {"Spine"};
  c.forceMeshTranslation = {"Root"};
  c.removeTracks = {{"Walk", 2, "rot"}, {"Jump", 1, "all"}, {"Walk", 1, "trans"}};
  std::string text = psk::writePsaConfig(c) + "\n[Unknown]\nfoo=bar\n[RemoveTracks]\nnonsense\r\n";
  PsaConfig p = parsePsaConfig(text);
  EXPECT_TRUE(p.rotationOnly);
  EXPECT_EQ(p.useTranslation, (std::vector<std::string>{"Spine"}));
  EXPECT_EQ(p.forceMeshTranslation, (std::vector<std::string>{"Root"}));
  ASSERT_EQ(p.removeTracks.size(), 3u);
  EXPECT_EQ(p.removeTracks[0].sequence, "Walk");
  EXPECT_EQ(p.removeTracks[0].bone, 2);
  EXPECT_TRUE(p.removeTracks[0].rotation);
  EXPECT_FALSE(p.removeTracks[0].translation);
  EXPECT_TRUE(p.removeTracks[1].rotation && p.removeTracks[1].translation);
  EXPECT_EQ(p.ignoredLines, 2u);
  EXPECT_FALSE(parsePsaConfig("[AnimSet]\nbAnimRotationOnly=0\n").rotationOnly);
  EXPECT_TRUE(parsePsaConfig("[animset]\r\nbAnimRotationOnly = True\r\n").rotationOnly);
}

TEST(PsaConfig, RotationOnlyKeepsRootAndUseTranslationBones) {
  psk::Config c;
  c.rotationOnly = true;
  c.useTranslation = {"head "};  // case-insensitive, trailing space trimmed
  Model m;
  ASSERT_TRUE(decode(psk::writePsa(threeBoneAnim()), m, psk::writePsaConfig(c)).ok());
  for (const Clip& clip : m.clips) {
    EXPECT_FALSE(trackFor(clip, 0)->translation.empty());
    EXPECT_TRUE(trackFor(clip, 1)->translation.empty());
    EXPECT_FALSE(trackFor(clip, 1)->rotation.empty());
    EXPECT_FALSE(trackFor(clip, 2)->translation.empty());
  }
  EXPECT_TRUE(hasWarning(m, "bAnimRotationOnly=1 - 1 bones take translation from the mesh, 1 kept")) << allWarnings(m);
}

TEST(PsaConfig, ForceMeshTranslationAndRemoveTracks) {
  psk::Config c;
  c.forceMeshTranslation = {"Root"};
  c.removeTracks = {
      {"Walk", 2, "rot"}, {"Jump", 1, "all"}, {"Walk", 1, "trans"}, {"Nope", 1, "all"}, {"Walk", 9, "all"}};
  Model m;
  ASSERT_TRUE(decode(psk::writePsa(threeBoneAnim()), m, psk::writePsaConfig(c)).ok());
  const Clip& walk = m.clips[0];
  const Clip& jump = m.clips[1];
  EXPECT_TRUE(trackFor(walk, 0)->translation.empty());  // forced mesh translation
  EXPECT_FALSE(trackFor(walk, 0)->rotation.empty());
  EXPECT_TRUE(trackFor(walk, 2)->rotation.empty());
  EXPECT_FALSE(trackFor(walk, 2)->translation.empty());
  EXPECT_TRUE(trackFor(walk, 1)->translation.empty());
  EXPECT_EQ(trackFor(jump, 1), nullptr);  // everything removed: bind pose
  EXPECT_FALSE(trackFor(jump, 2)->translation.empty());
  EXPECT_TRUE(hasWarning(m, "RemoveTracks - 3 entries applied"));
  EXPECT_TRUE(hasWarning(m, "2 name an unknown sequence or bone"));
  EXPECT_TRUE(hasWarning(m, "ForceMeshTranslationBoneNames - 1"));
}

// ---------------------------------------------------------------------------------------------
// Hostile input

TEST(PsaHostile, TruncationAtEveryByte) {
  psk::Animation a = threeBoneAnim();
  for (psk::Sequence& s : a.sequences) s.scaleKeys.assign(s.keys.size() * 3, 1.0f);
  std::vector<uint8_t> full = psk::writePsa(a);
  std::vector<size_t> boundaries;
  for (size_t pos = 0; pos + 32 <= full.size();) {
    boundaries.push_back(pos);
    pos += 32 + size_t(load_i32le(&full[pos + 24])) * size_t(load_i32le(&full[pos + 28]));
  }
  boundaries.push_back(full.size());
  for (size_t n = 0; n < full.size(); ++n) {
    std::vector<uint8_t> cut(full.begin(), full.begin() + long(n));
    Model m;
    Status st = decodePsa(cut.data(), cut.size(), "cut.psa", "", m);
    bool boundary = std::find(boundaries.begin(), boundaries.end(), n) != boundaries.end();
    if (st.ok() && !boundary) {
      EXPECT_FALSE(m.warnings.empty()) << "cut at " << n;
    }
    if (!st.ok()) EXPECT_NE(st.error.find("PSA cut.psa"), std::string::npos);
  }
}

TEST(PsaHostile, HugeAndNegativeCounts) {
  for (const char* id : {"BONENAMES", "ANIMINFO", "ANIMKEYS", "SCALEKEYS"}) {
    for (int32_t size : {0x7FFFFFFF, 0x10000000, -1, 32})
      for (int32_t count : {0x7FFFFFFF, 16, -5, int32_t(0x80000000u)}) {
        ByteWriter w;
        w.fixed("ANIMHEAD", 20);
        w.u32(0);
        w.i32(0);
        w.i32(0);
        w.fixed(id, 20);
        w.u32(0);
        w.i32(size);
        w.i32(count);
        w.pad(100);
        Model m;
        Status s = decodePsa(w.bytes.data(), w.bytes.size(), "h.psa", "", m);
        EXPECT_FALSE(s.ok()) << id << " " << size << " " << count;
      }
  }
  // Frame counts near 2^31 in an otherwise valid file: Σ frames × bones exceeds the keys.
  psk::Animation a = threeBoneAnim();
  for (int32_t frames : {0x7FFFFFFF, -1, int32_t(0x80000000u)}) {
    std::vector<uint8_t> bytes = psk::writePsa(a);
    for (size_t pos = 0; pos + 32 <= bytes.size();) {
      if (std::memcmp(&bytes[pos], "ANIMINFO", 8) == 0) std::memcpy(&bytes[pos + 32 + 164], &frames, 4);
      pos += 32 + size_t(load_i32le(&bytes[pos + 24])) * size_t(load_i32le(&bytes[pos + 28]));
    }
    Model m;
    EXPECT_FALSE(decode(bytes, m).ok()) << frames;
  }
}

TEST(PsaHostile, NanKeysAndBadParents) {
  psk::Animation a = threeBoneAnim();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (float& q : a.sequences[0].keys[4].rotation) q = nan;
  a.bones[1].parent = 1;
  a.bones[2].parent = 99;
  Model m;
  ASSERT_TRUE(decode(psk::writePsa(a), m).ok());
  for (float q : trackFor(m.clips[0], 1)->rotation) EXPECT_TRUE(std::isfinite(q));
  EXPECT_EQ(m.skeleton.parents, (std::vector<int32_t>{-1, 0, 0}));
}

TEST(PsaHostile, ConfigGarbage) {
  std::string junk = "[RemoveTracks]\n.=\nWalk.-1=all\nWalk.99999999999999=rot\n=\n[\n]]]\n";
  junk += std::string(300, '\0') + "\xff\xfe";
  Model m;
  ASSERT_TRUE(decode(psk::writePsa(threeBoneAnim()), m, junk).ok());
  EXPECT_EQ(m.clips[0].tracks.size(), 3u);
}

// ---------------------------------------------------------------------------------------------
// Real samples

namespace {

std::string samplesDir() { return rs::test::samplesDir("psk"); }

bool readSample(const std::string& name, std::vector<uint8_t>& out) {
  return rs::test::readBytes(samplesDir() + name, out);
}

}  // namespace

TEST(PsaSamples, GruntCrouchFirstRawFrameBugScaleKeysFractionalRate) {
  std::vector<uint8_t> bytes;
  if (!readSample("grunt_hh_grabplayer_crouch_SEQ0.psa", bytes))
    GTEST_SKIP() << "samples not found in " << samplesDir();
  Model m;
  Status s = decodePsa(bytes.data(), bytes.size(), "grunt.psa", "", m);
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(countOf(m, "bones"), 89);
  EXPECT_EQ(countOf(m, "sequences"), 1);
  EXPECT_EQ(countOf(m, "keys"), 8989);
  EXPECT_EQ(countOf(m, "scaleKeys"), 8989);
  ASSERT_EQ(m.clips.size(), 1u);
  EXPECT_EQ(m.clips[0].name, "grunt_hh_grabplayer_crouch");
  EXPECT_EQ(m.clips[0].frameCount, 101u);
  EXPECT_NEAR(m.clips[0].fps, 30.3, 1e-4);
  EXPECT_NEAR(m.clips[0].duration, 101 / 30.3, 1e-4);
  ASSERT_EQ(m.clips[0].tracks.size(), 89u);
  EXPECT_EQ(m.clips[0].tracks[5].scale.size(), 101u * 3);
  EXPECT_EQ(m.clips[0].tracks[5].times.size(), 101u);
  EXPECT_TRUE(m.warnings.empty()) << allWarnings(m);

  // 72 of the 89 names exist in the 136-bone Grunt mesh (case-insensitive).
  std::vector<uint8_t> meshBytes;
  if (!readSample("Grunt_Preview_LOD0.psk", meshBytes)) return;
  Model mesh;
  ASSERT_TRUE(decodePsk(meshBytes.data(), meshBytes.size(), "grunt.psk", mesh).ok());
  int matched = 0;
  for (const std::string& n : m.skeleton.names) {
    bool found = false;
    for (const std::string& k : mesh.skeleton.names) found |= sameActorXName(n, k);
    matched += found;
  }
  EXPECT_EQ(matched, 72);
}

TEST(PsaSamples, SpiderTwelveSequencesFrameMajor) {
  std::vector<uint8_t> bytes;
  if (!readSample("skSpiderLargeAnims.psa", bytes)) GTEST_SKIP() << "samples not found in " << samplesDir();
  Model m;
  Status s = decodePsa(bytes.data(), bytes.size(), "spider.psa", "", m);
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(countOf(m, "bones"), 71);
  EXPECT_EQ(countOf(m, "sequences"), 12);
  EXPECT_EQ(countOf(m, "keys"), 26128);
  EXPECT_EQ(countOf(m, "scaleKeys"), 0);
  EXPECT_EQ(countOf(m, "frames"), 368);
  struct Seq {
    const char* name;
    uint32_t frames;
  } expected[] = {{"Walk", 21},        {"walk2jump", 14},        {"Jump", 19},        {"jump2walk", 24},
                  {"webattack", 72},   {"lungeAttackStart", 24}, {"lungeAttack", 24}, {"lungeAttackend", 13},
                  {"flippedOver", 55}, {"idleOnBack", 50},       {"Idle", 31},        {"attack", 21}};
  ASSERT_EQ(m.clips.size(), 12u);
  for (int i = 0; i < 12; ++i) {
    EXPECT_EQ(m.clips[i].name, expected[i].name);
    EXPECT_EQ(m.clips[i].frameCount, expected[i].frames);
    EXPECT_DOUBLE_EQ(m.clips[i].fps, 30);
    EXPECT_EQ(m.clips[i].tracks.size(), 71u);
  }
  std::map<std::string, int> seen;
  int dups = 0;
  for (const std::string& n : m.skeleton.names) dups += seen[n]++ > 0;
  EXPECT_EQ(dups, 13);
  EXPECT_TRUE(m.warnings.empty()) << allWarnings(m);

  // Frame 0 of "Idle" matches the mesh bind pose (identical bone lists: index matching): every
  // rotation within 5 degrees (q vs -q ignored) and every translation within 0.01 units. This
  // checks the PSA and PSK quaternion rules and axis conversions agree.
  std::vector<uint8_t> meshBytes;
  if (!readSample("skSpiderLargeMesh.psk", meshBytes)) return;
  Model mesh;
  ASSERT_TRUE(decodePsk(meshBytes.data(), meshBytes.size(), "spider.psk", mesh).ok());
  ASSERT_EQ(mesh.skeleton.names, m.skeleton.names);
  const Clip& idle = m.clips[10];
  int close = 0;
  for (size_t b = 0; b < 71; ++b) {
    const float* q = &idle.tracks[b].rotation[0];
    const float* r = &mesh.skeleton.restRotation[b * 4];
    double dot = std::fabs(double(q[0]) * r[0] + double(q[1]) * r[1] + double(q[2]) * r[2] + double(q[3]) * r[3]);
    double deg = 2 * std::acos(std::min(1.0, dot)) * 180 / 3.14159265358979;
    close += deg < 5;
    for (int k = 0; k < 3; ++k)
      EXPECT_NEAR(idle.tracks[b].translation[k], mesh.skeleton.restTranslation[b * 3 + k], 0.01) << b;
  }
  EXPECT_EQ(close, 71) << "bones whose Idle frame-0 rotation is within 5 degrees of the bind pose";
}
