// Injection into the generated batch scripts: every manifest value (and path) that reaches
// array.sbatch or merge.sbatch is either refused (exit 3 with file:line:col and the field) or
// written so that sbatch reads exactly the expected #SBATCH arguments, `bash -n` accepts the script
// and running it passes the exact argv to (a stand-in for) screen and runs nothing else.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cctype>
#include <regex>
#include <vector>

#include "cluster/sbatch_quote.hpp"
#include "cluster/sbatch_script.hpp"
#include "cluster/shell_quote.hpp"
#include "cluster_test_util.hpp"
#include "common/error.hpp"
#include "manifest/load_manifest.hpp"
#include "manifest/sbatch_values.hpp"

namespace screen::cluster::testing {
namespace {

namespace fs = std::filesystem;

// ---- sbatch's reading of a script, after slurm src/sbatch/opt.c (_opt_batch_script, _get_argument)

// The arguments of one #SBATCH line (what follows the magic word): white space splits them outside
// quotes; ' and " quote; a backslash escapes the next character, inside quotes too; an unquoted '#'
// ends the line.
std::vector<std::string> sbatch_line_arguments(const std::string& line) {
  std::vector<std::string> args;
  std::size_t i = 0;
  bool comment = false;
  while (!comment) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i == line.size()) break;
    std::string arg;
    bool quoted = false, escaped = false;
    char q = '\0';
    for (; i < line.size() && (quoted || !std::isspace(static_cast<unsigned char>(line[i]))); ++i) {
      const char c = line[i];
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
        continue;
      } else if (quoted) {
        if (c == q) {
          quoted = false;
          continue;
        }
      } else if (c == '"' || c == '\'') {
        quoted = true;
        q = c;
        continue;
      } else if (c == '#') {
        comment = true;
        break;
      }
      arg += c;
    }
    if (!arg.empty()) args.push_back(arg);
  }
  return args;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The arguments sbatch takes from each of a script's #SBATCH lines, which end at the first line
// that is neither blank nor a comment. A line holding "hetjob"/"packjob" (sbatch: a component
// separator) is recorded as {"<hetjob separator>"}.
using Directives = std::vector<std::vector<std::string>>;
Directives sbatch_directives(const std::string& script) {
  Directives lines;
  std::size_t pos = 0;
  while (pos < script.size()) {
    std::size_t end = script.find('\n', pos);
    if (end == std::string::npos) end = script.size();
    const std::string line = script.substr(pos, end - pos);
    pos = end + 1;
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    if (line[first] != '#') break;  // the first command: sbatch reads no further
    if (line.rfind("#SBATCH", 0) != 0) continue;
    const std::string l = lower(line);
    if (l.find("hetjob") != std::string::npos || l.find("packjob") != std::string::npos)
      lines.push_back({"<hetjob separator>"});
    else
      lines.push_back(sbatch_line_arguments(line.substr(7)));
  }
  return lines;
}

// Lines that start with #SBATCH anywhere in the script (sbatch reads only those before the first
// command, but none may appear after it either).
std::size_t count_sbatch_lines(const std::string& script) {
  std::size_t n = 0;
  for (std::size_t pos = 0; pos < script.size(); pos = script.find('\n', pos) + 1) {
    if (script.compare(pos, 7, "#SBATCH") == 0) ++n;
    if (script.find('\n', pos) == std::string::npos) break;
  }
  return n;
}

// ---- hostile values

struct Hostile {
  std::string name;
  std::string text;
  bool control;  // holds a control character
};

const std::vector<Hostile>& hostile_values() {
  static const std::vector<Hostile> v = {
      {"newline", "x\n#SBATCH --qos=evil\ntouch PWNED", true},
      {"carriage return", "x\r#SBATCH --qos=evil", true},
      {"tab", "x\ty", true},
      {"single quote", "it's'; touch PWNED; '", false},
      {"double quote", "say \"hi\" x\"", false},
      {"command substitution", "$(touch PWNED)", false},
      {"backticks", "`touch PWNED`", false},
      {"spaces", "a b  c", false},
      {"hash", "a #b", false},
      {"semicolon", "a;touch PWNED", false},
  };
  return v;
}

// `text` as a double-quoted YAML scalar.
std::string yaml_quoted(const std::string& text) {
  std::string q = "\"";
  for (const char c : text) {
    if (c == '\n')
      q += "\\n";
    else if (c == '\r')
      q += "\\r";
    else if (c == '\t')
      q += "\\t";
    else if (c == '"' || c == '\\')
      q += std::string("\\") + c;
    else
      q += c;
  }
  return q + "\"";
}

// ---- running the scripts

// A stand-in for screen at a path that needs quoting: it writes its arguments, each followed by a
// NUL byte, to $ARGV_FILE.
std::string write_stand_in(const TempDir& dir) {
  const std::string folder = dir.file("bin $(touch PWNED) `touch PWNED` it's");
  fs::create_directories(folder);
  const std::string exe = folder + "/screen";
  spit(exe, "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done > \"$ARGV_FILE\"\n");
  ::chmod(exe.c_str(), 0755);
  return exe;
}

std::vector<std::string> split_nul(const std::string& text) {
  std::vector<std::string> v;
  std::size_t pos = 0;
  for (std::size_t end; (end = text.find('\0', pos)) != std::string::npos; pos = end + 1)
    v.push_back(text.substr(pos, end - pos));
  return v;
}

// `bash -n` accepts `script`; `bash script`, run in `dir`, passes `argv` to the stand-in and
// leaves no PWNED anywhere in `dir`.
void expect_runs_exactly(const TempDir& dir, const std::string& script, const std::vector<std::string>& argv) {
  const std::string path = dir.file("script.sh"), argv_file = dir.file("argv");
  spit(path, script);
  fs::remove(argv_file);
  const Result syntax = engine::testing::run_shell("bash -n " + shell_quote(path) + " 2>&1");
  EXPECT_EQ(syntax.code, 0) << syntax.out << "\n" << script;
  const Result run = engine::testing::run_shell("cd " + shell_quote(dir.path().string()) + " && ARGV_FILE=" +
                                                shell_quote(argv_file) + " bash " + shell_quote(path) + " 2>&1");
  EXPECT_EQ(run.code, 0) << run.out << "\n" << script;
  EXPECT_EQ(split_nul(slurp(argv_file)), argv) << script;
  for (const auto& e : fs::recursive_directory_iterator(dir.path()))
    EXPECT_NE(e.path().filename().string(), "PWNED") << e.path().string() << " was created by\n" << script;
}

// What sbatch must read from the array script of the cluster tests' job (3 shards, cpu_threads 2,
// devices cpu), line by line, given its partition, output folder and extra option lines.
Directives expected_array_directives(const std::string& partition, const std::string& output, const Directives& extra) {
  const std::string logs = slurm_filename_literal(output + "/slurm/logs");
  Directives v = {{"--job-name=screen-small"}, {"--array=0-2"}, {"--time=24:00:00"}};
  if (!partition.empty()) v.push_back({"--partition=" + partition});
  for (const char* a : {"--cpus-per-task=2", "--requeue", "--open-mode=append"}) v.push_back({a});
  v.push_back({"--output=" + logs + "/%A_%a.out"});
  v.push_back({"--error=" + logs + "/%A_%a.err"});
  v.insert(v.end(), extra.begin(), extra.end());
  return v;
}

Directives expected_merge_directives(const std::string& partition, const std::string& output, const Directives& extra) {
  const std::string logs = slurm_filename_literal(output + "/slurm/logs");
  Directives v = {{"--job-name=screen-small-merge"}, {"--time=24:00:00"}};
  if (!partition.empty()) v.push_back({"--partition=" + partition});
  v.push_back({"--output=" + logs + "/merge-%j.out"});
  v.push_back({"--error=" + logs + "/merge-%j.err"});
  v.insert(v.end(), extra.begin(), extra.end());
  return v;
}

// The manifest is accepted: `screen submit --dry-run` writes the scripts this library renders,
// sbatch reads exactly `array_lines` / `merge_lines` from them (no other #SBATCH line anywhere), and
// they run the stand-in with the exact manifest and output paths.
void expect_accepted(const TempDir& dir, const std::string& manifest, const Directives& array_lines,
                     const Directives& merge_lines, const std::string& what) {
  const Result r = screen("-q submit " + shell_quote(manifest) + " --dry-run");
  ASSERT_EQ(r.code, 0) << what << "\n" << r.out;
  const manifest::Job job = manifest::load_manifest(manifest);
  const ScriptSpec real = script_spec(job, 3, fs::canonical(SCREEN_EXE).string());
  EXPECT_EQ(slurp(array_script_path(real.output)), array_script(real)) << what;
  EXPECT_EQ(slurp(merge_script_path(real.output)), merge_script(real)) << what;

  const ScriptSpec spec = script_spec(job, 3, write_stand_in(dir));
  const std::string array = array_script(spec), merge = merge_script(spec);
  EXPECT_EQ(sbatch_directives(array), array_lines) << what << "\n" << array;
  EXPECT_EQ(count_sbatch_lines(array), array_lines.size()) << what << "\n" << array;
  EXPECT_EQ(sbatch_directives(merge), merge_lines) << what << "\n" << merge;
  EXPECT_EQ(count_sbatch_lines(merge), merge_lines.size()) << what << "\n" << merge;
  expect_runs_exactly(dir, array, {"run", fs::absolute(manifest).lexically_normal().string(), "--shard", "env"});
  expect_runs_exactly(dir, merge, {"merge", spec.output});
}

// The manifest is refused by `screen validate` and `screen submit --dry-run`: exit 3 and
// "job.yaml:LINE:COL: FIELD: ...".
void expect_refused(const std::string& manifest, const std::string& field, const std::string& what) {
  const std::string escaped = std::regex_replace(field, std::regex(R"([.\[\]])"), R"(\$&)");
  const std::regex located("job\\.yaml:[0-9]+:[0-9]+: " + escaped + ": ");
  for (const std::string command : {"validate", "submit"}) {
    const Result r = screen(command + " " + shell_quote(manifest) + (command == "submit" ? " --dry-run" : ""));
    EXPECT_EQ(r.code, 3) << command << " " << what << "\n" << r.out;
    EXPECT_TRUE(std::regex_search(r.out, located)) << command << " " << what << ": no " << field << " in\n" << r.out;
  }
  EXPECT_FALSE(fs::exists(fs::path(manifest).parent_path() / "out" / "slurm" / "array.sbatch")) << what;
}

// The tests' job with `cluster_yaml` appended and, where given, `job_lines` in place of its
// "  name: small\n  output: out\n".
std::string write_manifest(const TempDir& dir, const std::string& cluster_yaml, const std::string& job_lines = "") {
  const std::string manifest = write_cluster_job(dir, 3, cluster_yaml);
  if (!job_lines.empty()) {
    std::string text = slurp(manifest);
    const std::string old = "  name: small\n  output: out\n";
    text.replace(text.find(old), old.size(), job_lines);
    spit(manifest, text);
  }
  return manifest;
}

// ---- #SBATCH quoting on its own

TEST(SbatchQuote, RoundTripsThroughSbatchsParser) {
  for (const std::string v : {"", "plain", "/a/b-c_d.e+f:g,h=i@j%k", "a b", "a\"b", "a'b", "a\\b", "a#b", "#",
                              "$(touch PWNED)", "`touch PWNED`", "\\", "\"", "'", "\\\"", "\"'\"'", "a  b ", " ",
                              "50% done", "h\xc3\xa9llo w\xc3\xb6rld", ";", "--x=y z", "a\\#b\\"}) {
    const std::string line = " --comment=" + sbatch_quote(v) + " --qos=low";
    EXPECT_EQ(sbatch_line_arguments(line), (std::vector<std::string>{"--comment=" + v, "--qos=low"}))
        << "value [" << v << "] written as [" << line << "]";
    if (!v.empty()) {
      EXPECT_EQ(sbatch_line_arguments(" " + sbatch_quote(v)), std::vector<std::string>{v}) << v;
    }
  }
  EXPECT_EQ(sbatch_quote("gpu"), "gpu");
  EXPECT_EQ(sbatch_quote("/logs/%A_%a.out"), "/logs/%A_%a.out");
  EXPECT_EQ(sbatch_quote("rna lab"), "\"rna lab\"");
  EXPECT_EQ(sbatch_quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(sbatch_quote(""), "\"\"");
}

TEST(SbatchQuote, TheTestParserFollowsSbatch) {
  // the rules the round trip relies on, spelled out
  EXPECT_EQ(sbatch_line_arguments(" --a=1 --b=2 # --c=3"), (std::vector<std::string>{"--a=1", "--b=2"}));
  EXPECT_EQ(sbatch_line_arguments(" --a='x y' --b=\"p q\""), (std::vector<std::string>{"--a=x y", "--b=p q"}));
  EXPECT_EQ(sbatch_line_arguments(" --a=\"x\\\"y\" --b=\"x\\\\\""), (std::vector<std::string>{"--a=x\"y", "--b=x\\"}));
  // outside quotes white space ends an argument even after a backslash (the loop tests it first)
  EXPECT_EQ(sbatch_line_arguments(" --b=x\\ y"), (std::vector<std::string>{"--b=x", "y"}));
  EXPECT_EQ(sbatch_line_arguments(" --a=\"#\" --b=x#y"), (std::vector<std::string>{"--a=#", "--b=x"}));
  const std::string script = "#!/bin/bash\n#SBATCH --a=1 -b 2\n# note\n#SBATCH --c=3\nexec x\n#SBATCH --d=4\n";
  EXPECT_EQ(sbatch_directives(script), (Directives{{"--a=1", "-b", "2"}, {"--c=3"}}));
  EXPECT_EQ(count_sbatch_lines(script), 3u);
  EXPECT_EQ(sbatch_directives("#SBATCH --comment=HetJob\n"), (Directives{{"<hetjob separator>"}}));
}

TEST(SbatchQuote, FilenamePercentIsDoubled) {
  EXPECT_EQ(slurm_filename_literal("/a/b"), "/a/b");
  EXPECT_EQ(slurm_filename_literal("/a%b/100%%"), "/a%%b/100%%%%");
}

// ---- the checks shared by the manifest reader and the renderer

TEST(SbatchValues, PartitionNames) {
  for (const char* ok : {"gpu", "gpu,debug", "a100_x-1.long", "GPU2"})
    EXPECT_EQ(manifest::partition_problem(ok), "") << ok;
  for (const char* bad : {"", "gpu,", ",gpu", "gpu,,cpu", "gpu debug", "gpu;x", "gpu#", "gpu'", "gpu\"", "g$(x)",
                          "g`x`", "gpu\n#SBATCH --qos=x", "gpu\r", "gpu\t", "gpu/x", "hetjob", "PackJob1"})
    EXPECT_NE(manifest::partition_problem(bad), "") << manifest::printable(bad);
  EXPECT_EQ(manifest::partition_problem(std::string(manifest::kMaxPartitionLength, 'a')), "");
  EXPECT_TRUE(contains(manifest::partition_problem(std::string(manifest::kMaxPartitionLength + 1, 'a')), "at most"));
  EXPECT_TRUE(contains(manifest::partition_problem("gpu\nx"), "a newline")) << manifest::partition_problem("gpu\nx");
}

TEST(SbatchValues, OneSbatchOptionPerEntry) {
  std::string why;
  auto o = manifest::parse_sbatch_option("--mem=16G", why);
  ASSERT_TRUE(o) << why;
  EXPECT_TRUE(o->is_long);
  EXPECT_EQ(o->name, "mem");
  EXPECT_EQ(o->value, "16G");
  o = manifest::parse_sbatch_option("--comment=a \"b\" $(c) `d` #e;f", why);
  ASSERT_TRUE(o) << why;
  EXPECT_EQ(o->value, "a \"b\" $(c) `d` #e;f");
  o = manifest::parse_sbatch_option("--exclusive", why);
  ASSERT_TRUE(o) << why;
  EXPECT_FALSE(o->has_value);
  o = manifest::parse_sbatch_option("-A rna lab", why);
  ASSERT_TRUE(o) << why;
  EXPECT_FALSE(o->is_long);
  EXPECT_EQ(o->name, "A");
  EXPECT_EQ(o->value, "rna lab");
  EXPECT_FALSE(o->attached);
  o = manifest::parse_sbatch_option("-Arna", why);
  ASSERT_TRUE(o) << why;
  EXPECT_TRUE(o->attached);
  EXPECT_EQ(o->value, "rna");
  o = manifest::parse_sbatch_option("-H", why);
  ASSERT_TRUE(o) << why;
  EXPECT_FALSE(o->has_value);

  for (const char* bad : {"mem=4G", "", "-", "--", "-1", "-A ", "--Mem=4G", "--mem 4G", "--a b=c", "--9x",
                          "--mem=4G\n#SBATCH --qos=high", "--mem=4G\ntouch PWNED", "--comment=a\rb", "--comment=a\tb",
                          "--comment=a\x7f", "--comment=hetjob", "-A packjob", "--mem$(touch PWNED)",
                          "--mem;x=1"}) {
    EXPECT_FALSE(manifest::parse_sbatch_option(bad, why)) << manifest::printable(bad);
    EXPECT_FALSE(why.empty()) << manifest::printable(bad);
  }
  EXPECT_FALSE(manifest::parse_sbatch_option(std::string("--comment=a\0b", 13), why));
  EXPECT_TRUE(contains(why, "a NUL byte")) << why;
  EXPECT_FALSE(manifest::parse_sbatch_option("--mem=4G\n#SBATCH --qos=high", why));
  EXPECT_TRUE(contains(why, "a newline")) << why;
}

// ---- the renderer refuses on its own what the manifest reader refuses

ScriptSpec plain_spec() {
  ScriptSpec s;
  s.job_name = "j";
  s.manifest = "/jobs/j.yaml";
  s.output = "/out";
  s.screen_exe = "/bin/screen";
  s.shards = 2;
  s.cluster.present = true;
  return s;
}

// The message of the E both scripts throw for `s` (the same check runs before either is rendered).
template <class E>
std::string render_error(const ScriptSpec& s) {
  std::string message[2];
  for (int merge = 0; merge < 2; ++merge) {
    try {
      const std::string text = merge ? merge_script(s) : array_script(s);
      return (merge ? "merge" : "array") + std::string(" script rendered, no error:\n") + text;
    } catch (const E& e) {
      message[merge] = e.what();
    } catch (const std::exception& e) {
      return std::string("another error: ") + e.what();
    }
  }
  return message[0] == message[1] ? message[1] : "different errors: " + message[0] + " / " + message[1];
}

TEST(SbatchScript, RefusesControlCharactersInEveryValue) {
  for (const std::string& bad : std::vector<std::string>{"\n", "\r", "\t", std::string(1, '\0'), "\x1b", "\x7f"}) {
    ScriptSpec s = plain_spec();
    s.output = "/out" + bad + "x";
    EXPECT_TRUE(contains(render_error<ManifestError>(s), "job.output")) << render_error<ManifestError>(s);
    s = plain_spec();
    s.job_name = "j" + bad;
    EXPECT_TRUE(contains(render_error<ManifestError>(s), "job.name")) << render_error<ManifestError>(s);
    s = plain_spec();
    s.cluster.partition = "gpu" + bad + "#SBATCH --qos=x";
    EXPECT_TRUE(contains(render_error<ManifestError>(s), "cluster.partition")) << render_error<ManifestError>(s);
    s = plain_spec();
    s.cluster.time_limit = "01:00:00" + bad;
    EXPECT_TRUE(contains(render_error<ManifestError>(s), "cluster.time_limit")) << render_error<ManifestError>(s);
    s = plain_spec();
    s.cluster.extra_sbatch = {"--mem=1G", "--comment=x" + bad + "touch PWNED"};
    EXPECT_TRUE(contains(render_error<ManifestError>(s), "cluster.extra_sbatch[1]")) << render_error<ManifestError>(s);
    s = plain_spec();
    s.manifest = "/jobs/a" + bad + "b.yaml";
    EXPECT_TRUE(contains(render_error<UsageError>(s), "the manifest path")) << render_error<UsageError>(s);
    s = plain_spec();
    s.screen_exe = "/bin/scr" + bad + "een";
    EXPECT_TRUE(contains(render_error<UsageError>(s), "the screen executable")) << render_error<UsageError>(s);
  }
  ScriptSpec s = plain_spec();
  s.manifest = "/jobs/a\nb.yaml";
  EXPECT_TRUE(contains(render_error<UsageError>(s), "the manifest path '/jobs/a\\nb.yaml' contains a newline (\\n)"))
      << render_error<UsageError>(s);
}

TEST(SbatchScript, RefusesWhatSbatchWouldMisread) {
  ScriptSpec s = plain_spec();
  s.output = "/out\\x";  // a backslash turns off %A / %a / %j in --output
  EXPECT_TRUE(contains(render_error<ManifestError>(s), "job.output")) << render_error<ManifestError>(s);
  s = plain_spec();
  s.job_name = "myhetjob";
  EXPECT_TRUE(contains(render_error<ManifestError>(s), "heterogeneous")) << render_error<ManifestError>(s);
  s = plain_spec();
  s.job_name = "a b";
  EXPECT_TRUE(contains(render_error<ManifestError>(s), "job.name")) << render_error<ManifestError>(s);
  s = plain_spec();
  s.cluster.partition = "gpu debug";
  EXPECT_TRUE(contains(render_error<ManifestError>(s), "cluster.partition")) << render_error<ManifestError>(s);
  s = plain_spec();
  s.cluster.time_limit = "1h";
  EXPECT_TRUE(contains(render_error<ManifestError>(s), "cluster.time_limit")) << render_error<ManifestError>(s);
  s = plain_spec();
  s.cluster.extra_sbatch = {"--mem 4G"};  // a space in the name part: not one option
  EXPECT_TRUE(contains(render_error<ManifestError>(s), "cluster.extra_sbatch[0]")) << render_error<ManifestError>(s);
  s.cluster.extra_sbatch = {"--mem=4G --qos=high; touch PWNED"};  // a value with spaces stays one value
  EXPECT_TRUE(contains(array_script(s), "\n#SBATCH --mem=\"4G --qos=high; touch PWNED\"\nexec ")) << array_script(s);
}

TEST(SbatchScript, ExtraOptionsAreRebuiltAndQuoted) {
  ScriptSpec s = plain_spec();
  s.cluster.extra_sbatch = {"--comment=a \"b\" #c", "-A rna lab", "-k", "-Jx y", "--exclusive", "--comment=",
                             "--comment=back\\slash"};
  const std::string t = array_script(s);
  EXPECT_TRUE(contains(t, "#SBATCH --comment=\"a \\\"b\\\" #c\"\n#SBATCH -A \"rna lab\"\n#SBATCH -k\n"
                          "#SBATCH -J\"x y\"\n#SBATCH --exclusive\n#SBATCH --comment=\"\"\n"
                          "#SBATCH --comment=\"back\\\\slash\"\n"))
      << t;
  const Directives lines = sbatch_directives(t);
  const Directives tail = {{"--comment=a \"b\" #c"}, {"-A", "rna lab"}, {"-k"}, {"-Jx y"}, {"--exclusive"},
                           {"--comment="}, {"--comment=back\\slash"}};
  ASSERT_GE(lines.size(), tail.size());
  EXPECT_EQ(Directives(lines.end() - static_cast<std::ptrdiff_t>(tail.size()), lines.end()), tail) << t;
}

// ---- through the built screen: every field, every hostile value

TEST(ManifestInjection, ClusterFieldsThatTakeNoFreeTextRefuseEveryHostileValue) {
  struct Case {
    std::string field;
    std::string prefix;  // a valid value the hostile text is appended to ("" alone)
    std::string key;     // the YAML key under cluster:
  };
  const std::vector<Case> cases = {{"cluster.partition", "", "partition"},
                                   {"cluster.partition", "gpu", "partition"},
                                   {"cluster.time_limit", "02:00:00", "time_limit"},
                                   {"cluster.time_limit", "", "time_limit"},
                                   {"cluster.scheduler", "slurm", "scheduler"},
                                   {"cluster.gpus_per_task", "1", "gpus_per_task"},
                                   {"cluster.max_concurrent", "2", "max_concurrent"}};
  for (const auto& h : hostile_values()) {
    for (const auto& c : cases) {
      TempDir dir;
      const std::string manifest =
          write_manifest(dir, "cluster:\n  " + c.key + ": " + yaml_quoted(c.prefix + h.text) + "\n");
      expect_refused(manifest, c.field, c.field + " = " + c.prefix + " + " + h.name);
    }
    TempDir dir;
    const std::string manifest = write_manifest(dir, "cluster:\n  partition: gpu\n",
                                           "  name: " + yaml_quoted("small" + h.text) + "\n  output: out\n");
    expect_refused(manifest, "job.name", "job.name + " + h.name);
  }
}

TEST(ManifestInjection, ExtraSbatchValuesAreOneQuotedArgumentOrRefused) {
  for (const auto& h : hostile_values()) {
    {  // --name=value and -X value: accepted (quoted) unless a control character
      TempDir dir;
      const std::string manifest = write_manifest(
          dir, "cluster:\n  extra_sbatch:\n    - " + yaml_quoted("--comment=" + h.text) + "\n    - " +
                   yaml_quoted("-A " + h.text) + "\n    - --mem=4G\n");
      if (h.control) {
        expect_refused(manifest, "cluster.extra_sbatch[0]", "--comment= + " + h.name);
        expect_refused(manifest, "cluster.extra_sbatch[1]", "-A + " + h.name);
      } else {
        const std::string out = dir.file("out");
        const Directives extra = {{"--comment=" + h.text}, {"-A", h.text}, {"--mem=4G"}};
        expect_accepted(dir, manifest, expected_array_directives("", out, extra),
                        expected_merge_directives("", out, extra), "extra_sbatch + " + h.name);
      }
    }
    for (const std::string& entry : {h.text, "--mem" + h.text, "--mem=4G\n" + h.text}) {  // never an option
      TempDir dir;
      const std::string manifest = write_manifest(dir, "cluster:\n  extra_sbatch: [" + yaml_quoted(entry) + "]\n");
      expect_refused(manifest, "cluster.extra_sbatch[0]", "extra_sbatch entry " + manifest::printable(entry));
    }
  }
}

TEST(ManifestInjection, OutputFolderIsQuotedOrRefused) {
  for (const auto& h : hostile_values()) {
    TempDir dir;
    const std::string job_lines = "  name: small\n  output: " + yaml_quoted("out" + h.text) + "\n";
    const std::string manifest = write_manifest(dir, "cluster:\n  partition: gpu,debug\n", job_lines);
    if (h.control) {
      expect_refused(manifest, "job.output", "job.output + " + h.name);
      continue;
    }
    const std::string out = dir.file("out" + h.text);
    expect_accepted(dir, manifest, expected_array_directives("gpu,debug", out, {}),
                    expected_merge_directives("gpu,debug", out, {}), "job.output + " + h.name);
  }
}

// A backslash in the output folder would turn off SLURM's %A / %a / %j in --output: the manifest is
// valid for `screen run`, but `screen submit` refuses it.
TEST(ManifestInjection, OutputFolderWithABackslashIsRefusedBySubmit) {
  TempDir dir;
  const std::string manifest =
      write_manifest(dir, "cluster:\n  partition: gpu\n", "  name: small\n  output: 'out\\x'\n");
  EXPECT_EQ(screen("validate " + manifest).code, 0);
  const Result r = screen("submit " + manifest + " --dry-run");
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_TRUE(contains(r.out, "job.output: '" + dir.file("out\\x") + "' contains '\\'")) << r.out;
}

// The manifest `plain` copied into `folder` (created), its FASTA paths made absolute; its new path.
std::string move_manifest(const TempDir& dir, const std::string& plain, const std::string& folder) {
  fs::create_directories(folder);
  std::string text = slurp(plain);
  for (const std::string fasta : {"queries.fa", "targets.fa"})
    text.replace(text.find("fasta: " + fasta), 7 + fasta.size(), "fasta: " + dir.file(fasta));
  const std::string manifest = folder + "/job.yaml";
  spit(manifest, text);
  return manifest;
}

// A manifest in a folder whose name needs quoting everywhere, with an output folder holding '%'.
TEST(ManifestInjection, ManifestPathAndOutputFolderWithAwkwardCharacters) {
  TempDir dir;
  const std::string plain = write_manifest(dir, "cluster:\n  time_limit: \"01:00:00\"\n",
                                      "  name: small\n  output: \"out 100% 'q' \\\"dq\\\" $(touch PWNED) #x\"\n");
  const std::string folder = dir.file("jobs 50% 'q' \"dq\" $(touch PWNED) `touch PWNED` ;x #y");
  const std::string manifest = move_manifest(dir, plain, folder);
  const std::string out = folder + "/out 100% 'q' \"dq\" $(touch PWNED) #x";
  Directives array_lines = expected_array_directives("", out, {}), merge_lines = expected_merge_directives("", out, {});
  array_lines[2] = merge_lines[1] = {"--time=01:00:00"};
  expect_accepted(dir, manifest, array_lines, merge_lines, "awkward manifest path and output folder");
  EXPECT_TRUE(contains(array_script(script_spec(manifest::load_manifest(manifest), 3, "/s")), "%%")) << "the '%'s";
}

TEST(ManifestInjection, ManifestPathWithANewlineIsRefused) {
  TempDir dir;
  const std::string plain = write_manifest(dir, "cluster:\n  partition: gpu\n");
  const std::string folder = dir.file("jobs\n#SBATCH --qos=high\ntouch PWNED");
  const std::string manifest = move_manifest(dir, plain, folder);
  const Result r = screen("submit " + shell_quote(manifest) + " --dry-run");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "the manifest path '" + manifest::printable(manifest) + "' contains a newline (\\n)"))
      << r.out;
  EXPECT_FALSE(fs::exists(folder + "/out/slurm/array.sbatch")) << "no script is written";
}

// A refused value is shown with its control characters escaped: the problem stays one line.
TEST(ManifestInjection, ProblemsShowControlCharactersEscaped) {
  TempDir dir;
  const std::string manifest = write_manifest(
      dir, "cluster:\n  time_limit: \"02:00:00\\n#SBATCH --qos=x\"\n  partition: \"gpu\\r\"\n"
           "  extra_sbatch: [\"--mem=1G\\ttouch PWNED\"]\n");
  const Result r = screen("validate " + manifest);
  EXPECT_EQ(r.code, 3) << r.out;
  for (const char* line : {"cluster.time_limit: expected a time limit \"HH:MM:SS\" or \"D-HH:MM:SS\", got "
                           "'02:00:00\\n#SBATCH --qos=x'\n",
                           "cluster.partition: 'gpu\\r' contains a carriage return (\\r)",
                           "cluster.extra_sbatch[0]: '--mem=1G\\ttouch PWNED' contains a tab (\\t)",
                           "is not valid (3 problems)"})
    EXPECT_TRUE(contains(r.out, line)) << line << " not in\n" << r.out;
}

}  // namespace
}  // namespace screen::cluster::testing
