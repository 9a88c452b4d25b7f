// SPDX-License-Identifier: Apache-2.0
#include "command.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>

#include "lance/io/executor.h"
#include "lance/io/refreshing_credentials.h"
#include "lance/macros.h"
#include "lib/json.h"

namespace lance::cli {

// Verbs register here, in help order. Each Make<Verb>Command lives in commands/<verb>.cc.
std::vector<Command> MakeCommands();

const std::vector<OptionSpec>& GlobalOptions() {
  static const std::vector<OptionSpec> kGlobal = {
      {"help", false, false, "show help (for a verb: lance-cpp VERB --help)"},
      {"version", false, false, "print the version"},
      {"json", false, false, "machine-readable JSON output where the output is data"},
      {"stats", false, false,
       "after the verb, print I/O counters on stderr: the process's peak memory, the "
       "I/O executor's and the credential refresh counters per storage options "
       "provider (one JSON object with --json); never a secret"},
  };
  return kGlobal;
}

const std::vector<Command>& Commands() {
  static const std::vector<Command> kCommands = MakeCommands();
  return kCommands;
}

namespace {

// Whether `name` is an option that takes a value in any verb (so that the argument after
// it is its value, not the verb).
bool AnyVerbOptionTakesValue(const std::string& name) {
  for (const auto& c : Commands()) {
    for (const auto& o : c.options) {
      if (o.name == name && o.takes_value) return true;
    }
  }
  return false;
}

bool CommandDefines(const Command* command, const std::string& name) {
  if (command == nullptr) return false;
  for (const auto& o : command->options) {
    if (o.name == name) return true;
  }
  return false;
}

void PrintUsage(const Streams& s) {
  std::fprintf(
      s.out,
      "lance-cpp %s: read and write Lance datasets\n\n"
      "Usage: lance-cpp [--help] [--version] [--json] [--stats] VERB [ARGS...]\n\n",
      LANCE_VERSION);
  if (Commands().empty()) {
    std::fprintf(s.out, "Verbs: none yet.\n");
  } else {
    std::fprintf(s.out, "Verbs:\n");
    for (const auto& c : Commands()) {
      std::fprintf(s.out, "  %-10s %s\n", c.name.c_str(), c.summary.c_str());
    }
  }
  std::fprintf(s.out, "\nOptions:\n");
  std::fputs(FormatOptionHelp(GlobalOptions(), /*width=*/14).c_str(), s.out);
  std::fprintf(
      s.out,
      "\nData goes to stdout and nothing else does; logs and errors go to stderr.\n"
      "Exit codes: 0 success, 1 failure, 2 usage error.\n");
}

// The peak resident set of this process's address space in bytes (VmHWM), or -1 where
// /proc does not say. Unlike ru_maxrss, which a parent measures with wait4 and which
// carries the high-water mark of whatever ran in the process before its exec, VmHWM
// belongs to the image that runs now: the figure the streaming-import tests bound.
int64_t PeakResidentBytes() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return -1;
  char line[256];
  int64_t kib = -1;
  while (std::fgets(line, sizeof(line), f) != nullptr) {
    long long value = 0;
    if (std::strncmp(line, "VmHWM:", 6) == 0 &&
        std::sscanf(line + 6, "%lld", &value) == 1) {
      kib = value;
      break;
    }
  }
  std::fclose(f);
  return kib < 0 ? -1 : kib * 1024;
}

// `--stats`: the process's peak memory and I/O counters, on stderr, after the verb.
void PrintStats(const Streams& s, bool json) {
  const int64_t peak_rss = PeakResidentBytes();
  const io::ExecutorStats ex = io::Executor::Default().stats();
  const std::vector<std::pair<std::string, int64_t>> executor = {
      {"threads", ex.threads},
      {"tasks_submitted", ex.tasks_submitted},
      {"tasks_run_by_waiter", ex.tasks_run_by_waiter},
      {"tasks_cancelled", ex.tasks_cancelled},
      {"memory_budget_bytes", ex.memory_budget_bytes},
      {"bytes_reserved", ex.bytes_reserved},
      {"peak_bytes_reserved", ex.peak_bytes_reserved},
      {"memory_waits", ex.memory_waits}};
  const std::vector<io::ProviderRefreshStats> providers = io::CredentialRefreshStats();
  if (json) {
    JsonDoc doc = JsonDoc::object();
    JsonDoc& process = doc["process"] = JsonDoc::object();
    process["peak_rss_bytes"] = peak_rss;
    JsonDoc& ex_doc = doc["executor"] = JsonDoc::object();
    for (const auto& [name, value] : executor) ex_doc[name] = value;
    JsonDoc& creds = doc["credentials"] = JsonDoc::array();
    for (const auto& p : providers) {
      JsonDoc entry = JsonDoc::object();
      entry["provider_id"] = p.provider_id;
      for (const auto& [name, value] : io::RefreshStatsFields(p)) entry[name] = value;
      creds.push_back(std::move(entry));
    }
    std::fprintf(s.err, "%s\n", DumpJson(JsonDoc{{"stats", std::move(doc)}}).c_str());
    return;
  }
  std::fprintf(s.err, "stats: process peak_rss_bytes=%lld\n",
               static_cast<long long>(peak_rss));
  std::string line = "stats: executor";
  for (const auto& [name, value] : executor) {
    line += " " + name + "=" + std::to_string(value);
  }
  std::fprintf(s.err, "%s\n", line.c_str());
  if (providers.empty()) {
    std::fprintf(s.err, "stats: credentials: no storage options provider was used\n");
  }
  for (const auto& p : providers) {
    line = "stats: credentials provider=" + DumpJson(JsonDoc(p.provider_id));
    for (const auto& [name, value] : io::RefreshStatsFields(p)) {
      line += " " + name + "=" + std::to_string(value);
    }
    std::fprintf(s.err, "%s\n", line.c_str());
  }
}

void PrintCommandHelp(const Command& c, const Streams& s) {
  std::fprintf(s.out, "Usage: lance-cpp %s\n\n%s\n\nOptions:\n", c.usage.c_str(),
               c.summary.c_str());
  std::vector<OptionSpec> shown = c.options;
  for (const auto& g : GlobalOptions()) {
    if (!CommandDefines(&c, g.name)) shown.push_back(g);
  }
  std::fputs(FormatOptionHelp(shown).c_str(), s.out);
}

}  // namespace

int Main(const std::vector<std::string>& argv, const Streams& s) {
  // The verb is the first argument that is neither an option nor an option's value.
  const Command* command = nullptr;
  size_t verb_index = argv.size();
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "--") {
      if (i + 1 < argv.size()) {
        verb_index = i + 1;
      }
      break;
    }
    if (a.rfind("--", 0) == 0) {
      if (a.find('=') == std::string::npos && AnyVerbOptionTakesValue(a.substr(2)) &&
          a != "--version") {
        ++i;  // skip the option's value
      }
      continue;
    }
    verb_index = i;
    break;
  }
  if (verb_index < argv.size()) {
    const std::string& a = argv[verb_index];
    for (const auto& c : Commands()) {
      if (c.name == a) command = &c;
    }
    if (command == nullptr) {
      std::fprintf(s.err, "lance-cpp: unknown verb '%s' (see lance-cpp --help)\n",
                   a.c_str());
      return 2;
    }
  }
  // A verb's own option wins over a global one of the same name (`count --version N`).
  std::vector<OptionSpec> specs;
  std::vector<std::string> rest = argv;
  if (command != nullptr) {
    specs = command->options;
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(verb_index));
  }
  for (const auto& g : GlobalOptions()) {
    if (!CommandDefines(command, g.name)) specs.push_back(g);
  }
  Result<Args> parsed = ParseArgs(rest, specs);
  if (!parsed.ok()) {
    std::fprintf(s.err, "lance-cpp: %s\n", parsed.status().message().c_str());
    if (command != nullptr) {
      std::fprintf(s.err, "Usage: lance-cpp %s (see lance-cpp %s --help)\n",
                   command->usage.c_str(), command->name.c_str());
    }
    return 2;
  }
  const Args& args = *parsed;
  if (args.Has("version") && !CommandDefines(command, "version")) {
    if (args.Has("json")) {
      const JsonDoc doc = {{"name", "lance-cpp"}, {"version", LANCE_VERSION}};
      std::fprintf(s.out, "%s\n", DumpJson(doc).c_str());
    } else {
      std::fprintf(s.out, "lance-cpp %s\n", LANCE_VERSION);
    }
    return 0;
  }
  if (command == nullptr) {
    PrintUsage(s);
    return args.Has("help") ? 0 : 2;
  }
  if (args.Has("help")) {
    PrintCommandHelp(*command, s);
    return 0;
  }
  Status st;
  try {
    st = command->run(args, s);
  } catch (const std::exception& e) {  // the process boundary: nothing escapes main
    st = Status::Unknown("unexpected exception: ", e.what());
  }
  if (!st.ok()) {
    std::fprintf(s.err, "lance-cpp %s: %s\n", command->name.c_str(),
                 st.ToString().c_str());
  }
  if (args.Has("stats") && !CommandDefines(command, "stats")) {
    std::fflush(s.out);
    PrintStats(s, args.Has("json"));
  }
  if (!st.ok()) return st.IsInvalid() ? 2 : 1;
  return 0;
}

}  // namespace lance::cli
