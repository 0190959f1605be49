#include "engine/folder.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "common/error.hpp"
#include "manifest/results_identity.hpp"
#include "store/journal.hpp"
#include "store/part_file.hpp"

namespace screen::engine {

namespace fs = std::filesystem;

std::string part_name(std::int64_t id) { return fmt::format("part-{:06d}.h5", id); }

std::string checkpoint_name(std::int64_t id, std::uint64_t sequence) {
  return fmt::format("part-{:06d}.ckpt-{:06d}.h5", id, sequence);
}

std::string journal_path(const std::string& output) { return output + "/journal"; }
std::string results_path(const std::string& output) { return output + "/results.h5"; }

RunState current_state(const manifest::Job& job, const Inputs& in, const plan::Plan& p) {
  RunState s;
  s.manifest_path = fs::absolute(job.manifest_path).lexically_normal().string();
  s.results_sha256 = job.results_sha256;
  s.manifest_file_sha256 = job.manifest_sha256;
  s.plan_sha256 = p.hash;
  s.inputs = in.files;
  s.units = p.units.size();
  s.shards = p.shards;
  return s;
}

namespace {

// Characters of two different hashes to show so that the shown parts differ too: 12, or up to and
// including the first difference (all of the longer one when one is a prefix of the other).
std::size_t distinct_prefix(const std::string& a, const std::string& b) {
  std::size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  return std::max<std::size_t>(12, i + 1);
}

}  // namespace

std::string differences(const RunState& old, const RunState& now) {
  std::vector<std::string> d;
  if (old.results_sha256 != now.results_sha256 && old.results_sha256 == now.manifest_file_sha256) {
    d.push_back("the folder was started by an earlier screen, which recorded the manifest file's SHA-256 "
                "where this one records the manifest's results settings; finish the job with that screen");
  } else if (old.results_sha256 != now.results_sha256) {
    const std::size_t n = distinct_prefix(old.results_sha256, now.results_sha256);
    d.push_back(fmt::format("the manifest changed where it decides the results (settings SHA-256 {} then, {} now; "
                            "only {} may change)",
                            old.results_sha256.substr(0, n), now.results_sha256.substr(0, n),
                            fmt::join(manifest::run_setting_keys(), ", ")));
  }
  if (old.inputs.size() != now.inputs.size()) {
    d.push_back("the list of input files changed");
  } else {
    for (std::size_t i = 0; i < old.inputs.size(); ++i)
      if (old.inputs[i].sha256 != now.inputs[i].sha256 || old.inputs[i].set != now.inputs[i].set)
        d.push_back(fmt::format("input {} ({}) changed", now.inputs[i].path, now.inputs[i].set));
  }
  if (d.empty() && old.plan_sha256 != now.plan_sha256) d.push_back("the plan (shards) changed");
  std::string text;
  for (const auto& x : d) text += (text.empty() ? "" : "; ") + x;
  return text;
}

void clear_state(const std::string& output) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(output, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("part-", 0) == 0 || name == "journal" || name == "timing" || name == "run.info" ||
        name.rfind("results.h5", 0) == 0 || name.rfind("profile", 0) == 0)
      fs::remove(e.path());
  }
}

void remove_stale_temporaries(const std::string& output, const std::optional<std::int64_t>& only_shard) {
  // "part-000042." starts both the part's and its checkpoints' names.
  const std::string shard_prefix = only_shard ? fmt::format("part-{:06d}.", *only_shard) : "";
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(output, ec)) {
    const std::string name = e.path().filename().string();
    if (name.find(".tmp.") == std::string::npos) continue;
    const bool ours = only_shard ? name.rfind(shard_prefix, 0) == 0
                                 : (name.rfind("part-", 0) == 0 || name.rfind("results.h5.", 0) == 0 ||
                                    name.rfind("run.info.", 0) == 0 || name.rfind("profile", 0) == 0);
    if (ours) {
      spdlog::debug("removing {} (left by an interrupted run)", name);
      fs::remove(e.path(), ec);
    }
  }
}

std::map<std::int64_t, ShardCheck> check_shards(const std::string& output, const plan::Plan& p,
                                                const std::string& results_sha256,
                                                const std::vector<std::string>& input_sha256) {
  std::map<std::int64_t, store::JournalEntry> last;
  for (const auto& e : store::read_journal(journal_path(output)).entries) last[e.shard_id] = e;
  std::map<std::int64_t, ShardCheck> out;
  for (const auto& s : p.shards) {
    auto it = last.find(s.id);
    if (it == last.end()) continue;
    ShardCheck c;
    const std::string path = output + "/" + it->second.part_file;
    if (it->second.part_file != part_name(s.id)) {
      c.reason = fmt::format("journal names {} for shard {}", it->second.part_file, s.id);
    } else {
      const store::PartCheck pc = store::PartReader::verify(path, results_sha256, input_sha256);
      if (pc.status == store::PartStatus::other_version)
        throw ConflictError(fmt::format("{}; its finished shards are kept: finish or read the job with that screen, "
                                        "or run again with --restart to recompute it with this one",
                                        pc.reason));
      if (!pc.ok())
        c.reason = pc.reason;
      else if (pc.checksum != it->second.checksum)
        c.reason = fmt::format("{}: checksum differs from the journal's", path);
      else
        c.done = true;
    }
    out[s.id] = c;
  }
  return out;
}

std::map<std::uint64_t, std::string> list_checkpoints(const std::string& output, std::int64_t id) {
  const std::string prefix = fmt::format("part-{:06d}.ckpt-", id);
  std::map<std::uint64_t, std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(output, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) != 0 || name.size() < prefix.size() + 4 || name.compare(name.size() - 3, 3, ".h5") != 0)
      continue;
    const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - 3);
    if (digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    out[std::stoull(digits)] = e.path().string();
  }
  return out;
}

void remove_checkpoints(const std::string& output, std::int64_t id) {
  for (const auto& [seq, path] : list_checkpoints(output, id)) {
    std::error_code ec;
    fs::remove(path, ec);
  }
}

}  // namespace screen::engine
