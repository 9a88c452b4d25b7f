// SPDX-License-Identifier: Apache-2.0

#include "lance/io/refreshing_credentials.h"

#include <algorithm>
#include <ctime>
#include <exception>
#include <iterator>
#include <random>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "io/refresh_stats_registry.h"
#include "lance/core/logging.h"
#include "lance/core/temporal.h"
#include "lance/io/session.h"
#include "lance/macros.h"

namespace lance::io {

using Creds = std::shared_ptr<const Credentials>;
using Trigger = RefreshEvent::Trigger;

namespace {

// One row per trigger, in the enumerators' order: its name in messages and the counter
// of RefreshStats its fetches add to.
struct TriggerRow {
  std::string_view name;
  int64_t RefreshStats::*counter;
};
constexpr TriggerRow kTriggers[] = {
    {"background", &RefreshStats::background_refreshes},
    {"expired", &RefreshStats::blocking_refreshes},
    {"rejected", &RefreshStats::forced_refreshes},
    {"inline", &RefreshStats::inline_refreshes},
};
static_assert(std::size(kTriggers) == static_cast<size_t>(Trigger::kInline) + 1);

constexpr std::string_view kRefreshModeNames[] = {"background", "inline"};
static_assert(std::size(kRefreshModeNames) ==
              static_cast<size_t>(RefreshMode::kInline) + 1);

std::string_view TriggerName(Trigger trigger) {
  return kTriggers[static_cast<size_t>(trigger)].name;
}

std::string FormatMillis(std::chrono::milliseconds d) {
  return std::to_string(d.count()) + " ms";
}

// What one fetch produced, parsed outside the lock.
struct Fetched {
  StorageOptions options;
  Credentials credentials;
  std::optional<int64_t> expires_at;
  std::chrono::milliseconds offset{0};
};

}  // namespace

std::string_view RefreshModeName(RefreshMode mode) {
  return kRefreshModeNames[static_cast<size_t>(mode)];
}

std::string FormatEpochMillis(int64_t epoch_millis) {
  return FormatIsoTimestamp(epoch_millis, TimeUnit::kMilli, "UTC");
}

std::string RefreshEvent::ToString() const {
  std::string out = "credential refresh (" + std::string(TriggerName(trigger)) +
                    ") from provider '" + provider_id + "' ";
  if (kind == Kind::kSucceeded) {
    out += "succeeded in " + FormatMillis(latency) + ": " + credentials;
    out += expires_at_millis ? ", expires at " + FormatEpochMillis(*expires_at_millis)
                             : std::string(", never expires");
  } else {
    out += "failed after " + FormatMillis(latency) + ": " + error.ToString();
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// State

struct RefreshingCredentialsSource::State final : internal::RefreshCounters {
  State() = default;
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  // Folds the counters into the session's statistics (Session::CredentialRefreshStats).
  ~State() override {
    if (refresh_stats) refresh_stats->Retire(provider_id, stats);
  }

  RefreshStats CountersSnapshot(bool* alive) const override {
    std::lock_guard<std::mutex> guard(mu);
    *alive = source_alive;
    return Snapshot();
  }

  // Immutable after Make().
  std::shared_ptr<StorageOptionsProvider> provider;
  std::shared_ptr<Clock> clock;
  RefreshingCredentialsOptions options;
  std::string provider_id;

  mutable std::mutex mu;
  // Signalled when a fetch completes and when a refresh thread exits.
  mutable std::condition_variable cv;

  // The cache. Guarded by mu.
  Creds creds;  // null: none yet
  std::optional<int64_t> expires_at;
  std::chrono::milliseconds offset{kDefaultRefreshOffsetMillis};
  StorageOptions latest_options;

  // Fetch bookkeeping. Guarded by mu.
  bool in_flight = false;
  uint64_t started_seq = 0;    // number of the last fetch started (1-based)
  uint64_t completed_seq = 0;  // number of the last fetch completed
  bool have_last_start = false;
  Clock::SteadyTimePoint last_start{};  // monotonic start of the last fetch
  int64_t last_start_wall_ms = 0;       // wall start of the last fetch
  bool last_failed = false;             // outcome of the last completed fetch
  Status last_error;
  Clock::SteadyTimePoint retry_at{};  // after a failure: earliest next fetch
  int consecutive_failures = 0;
  int active_workers = 0;
  std::vector<std::thread::id> worker_ids;
  std::mt19937_64 rng;
  RefreshStats stats;
  // The statistics of the session the source was built for (set once by Make).
  std::shared_ptr<internal::RefreshStatsRegistry> refresh_stats;
  // The RefreshingCredentialsSource is alive (a refresh thread may keep the state a
  // little longer). Guarded by mu.
  bool source_alive = true;

  // ---- helpers; all REQUIRE mu held ----

  // A request waited `waited` for credentials.
  void RecordWait(Clock::SteadyTimePoint::duration waited) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(waited);
    ++stats.waits;
    stats.total_wait += ms;
    stats.max_wait = std::max(stats.max_wait, ms);
  }

  // The counters plus the current expiry and offset.
  RefreshStats Snapshot() const {
    RefreshStats out = stats;
    out.expires_at_millis = creds ? expires_at : std::nullopt;
    out.refresh_offset = offset;
    return out;
  }

  bool Expired(int64_t now_ms) const {
    return creds == nullptr || (expires_at.has_value() && now_ms >= *expires_at);
  }

  // A fetch may start now (rate limit after a success, backoff after a failure).
  Clock::SteadyTimePoint NextAllowedFetch() const {
    if (!have_last_start) return Clock::SteadyTimePoint::min();
    if (last_failed) return retry_at;
    return last_start + options.min_fetch_interval;
  }

  // The last completed fetch failed and was attempted after the cached credentials
  // expired (or when there were none): the refresh "on expiry" has been tried.
  bool FailedSinceExpiry() const {
    return last_failed && (creds == nullptr || !expires_at.has_value() ||
                           last_start_wall_ms >= *expires_at);
  }

  std::chrono::milliseconds Backoff() {
    const auto initial = std::max<int64_t>(options.initial_retry_backoff.count(), 1);
    const auto cap = std::max<int64_t>(options.max_retry_backoff.count(), initial);
    int64_t b = initial;
    for (int i = 1; i < consecutive_failures && b < cap; ++i) b *= 2;
    b = std::min(b, cap);
    std::uniform_int_distribution<int64_t> dist(b / 2, b);
    return std::chrono::milliseconds(dist(rng));
  }

  std::string CredentialsDescription() const {
    return creds ? creds->ToString() : std::string("<none>");
  }

  // The error of a request that needs credentials and cannot get them.
  Status NoCredentialsError(std::string_view why) const {
    if (creds == nullptr) {
      return Status::Unauthorized("no credentials yet for storage options provider '" +
                                  provider_id + "': " + std::string(why));
    }
    std::string msg = "credentials " + creds->ToString() +
                      " from storage options provider '" + provider_id + "' expired at " +
                      FormatEpochMillis(*expires_at) +
                      " (expires_at_millis=" + std::to_string(*expires_at) + ") and " +
                      std::string(why);
    return Status::TokenExpired(msg);
  }

  Status FailedRefreshError(Clock::SteadyTimePoint steady) const {
    std::string why = "the refresh failed because: " + last_error.ToString();
    if (steady < retry_at) {
      why +=
          " (next attempt in " +
          FormatMillis(std::chrono::ceil<std::chrono::milliseconds>(retry_at - steady)) +
          ")";
    }
    return NoCredentialsError(why);
  }

  Status TimeoutError() const {
    return NoCredentialsError("no refresh completed within " +
                              FormatMillis(options.max_wait));
  }
};

namespace {

using State = RefreshingCredentialsSource::State;

// Records the wait of a Current() call (if it waited) when the call returns.
class WaitRecorder {
 public:
  WaitRecorder(State& state, Clock::SteadyTimePoint start) : s_(state), begin_(start) {}
  WaitRecorder(const WaitRecorder&) = delete;
  WaitRecorder& operator=(const WaitRecorder&) = delete;
  ~WaitRecorder() {
    if (waited_) s_.RecordWait(s_.clock->SteadyNow() - begin_);
  }
  void MarkWaited() { waited_ = true; }

 private:
  bool waited_ = false;
  State& s_;
  Clock::SteadyTimePoint begin_;
};

Result<Fetched> ParseFetched(const State& s,
                             Result<std::optional<StorageOptions>> fetched) {
  if (!fetched.ok()) return fetched.status();
  if (!fetched->has_value()) {
    return Status::NotFound("the provider returned no storage options");
  }
  Fetched out;
  out.options = std::move(**fetched);
  auto credentials = CredentialsFromStorageOptions(out.options);
  if (!credentials.ok()) {
    return credentials.status().WithContext(
        "parsing the credentials the provider returned");
  }
  out.credentials = std::move(*credentials);
  if (out.credentials.empty()) {
    return Status::Invalid(
        "the provider returned storage options without credentials (no "
        "aws_access_key_id, azure_storage_sas_token, azure_storage_account_key, "
        "azure_storage_token or google_storage_token)");
  }
  LANCE_ASSIGN_OR_RAISE(out.expires_at, ExpiresAtMillis(out.options));
  LANCE_ASSIGN_OR_RAISE(out.offset,
                        RefreshOffset(out.options, s.options.default_refresh_offset));
  return out;
}

// Runs one fetch on a refresh thread. Holds the state alive by itself, so the source may
// be destroyed (from this very thread, in on_event) without pulling anything from under
// it.
void RunFetch(const std::shared_ptr<State>& st, uint64_t seq, Trigger trigger) {
  State& s = *st;
  const auto start = s.clock->SteadyNow();
  Result<std::optional<StorageOptions>> raw = Status::Unknown("not fetched");
  try {
    // A user provider may throw (bindings); an exception escaping this thread would
    // terminate the process.
    raw = s.provider->FetchStorageOptions();
  } catch (const std::exception& e) {
    raw = Status::Unknown(std::string("the provider threw: ") + e.what());
  } catch (...) {
    raw = Status::Unknown("the provider threw a non-standard exception");
  }
  Result<Fetched> fetched = ParseFetched(s, std::move(raw));
  const auto end = s.clock->SteadyNow();
  const auto latency = std::chrono::duration_cast<std::chrono::milliseconds>(end - start);

  RefreshEvent event{RefreshEvent::Kind::kSucceeded,
                     trigger,
                     s.provider_id,
                     {},
                     {},
                     latency,
                     Status::OK()};
  {
    std::unique_lock<std::mutex> lock(s.mu);
    const int64_t now_ms = s.clock->NowMillis();
    if (fetched.ok() && fetched->expires_at.has_value() &&
        *fetched->expires_at <= now_ms) {
      // Accepting them would make every request fetch again at once.
      fetched =
          Status::TokenExpired("the provider returned credentials that expired at " +
                               FormatEpochMillis(*fetched->expires_at) +
                               ", before they arrived at " + FormatEpochMillis(now_ms));
    }
    if (fetched.ok()) {
      Fetched& f = *fetched;
      s.creds = std::make_shared<const Credentials>(std::move(f.credentials));
      s.expires_at = f.expires_at;
      s.offset = f.offset;
      s.latest_options = std::move(f.options);
      s.last_failed = false;
      s.last_error = Status::OK();
      s.consecutive_failures = 0;
      event.credentials = s.creds->ToString();
      event.expires_at_millis = s.expires_at;
    } else {
      s.last_failed = true;
      s.last_error = fetched.status();
      ++s.consecutive_failures;
      s.retry_at = end + s.Backoff();
      ++s.stats.failures;
      event.kind = RefreshEvent::Kind::kFailed;
      event.error = fetched.status();
    }
    s.completed_seq = seq;
    s.in_flight = false;
    ++s.stats.completed_fetches;
    s.stats.last_fetch_latency = latency;
    s.stats.max_fetch_latency = std::max(s.stats.max_fetch_latency, latency);
    s.stats.total_fetch_latency += latency;
  }
  s.cv.notify_all();
  // RefreshEvent::ToString carries only redacted credentials.
  if (event.kind == RefreshEvent::Kind::kSucceeded) {
    LANCE_LOG(Info, "credentials") << event.ToString();
  } else {
    LANCE_LOG(Warn, "credentials") << event.ToString();
  }
  if (s.options.on_event) s.options.on_event(event);
  {
    std::lock_guard<std::mutex> guard(s.mu);
    auto it =
        std::find(s.worker_ids.begin(), s.worker_ids.end(), std::this_thread::get_id());
    if (it != s.worker_ids.end()) s.worker_ids.erase(it);
    --s.active_workers;
    s.cv.notify_all();
  }
}

// Starts a fetch on a new refresh thread. REQUIRES: s.mu held via `lock`, !s.in_flight.
void StartFetch(const std::shared_ptr<State>& st, Trigger trigger) {
  State& s = *st;
  s.in_flight = true;
  const uint64_t seq = ++s.started_seq;
  s.have_last_start = true;
  s.last_start = s.clock->SteadyNow();
  s.last_start_wall_ms = s.clock->NowMillis();
  ++s.stats.fetches;
  ++(s.stats.*kTriggers[static_cast<size_t>(trigger)].counter);
  ++s.active_workers;
  LANCE_LOG(Debug, "credentials")
      << "starting credential refresh (" << TriggerName(trigger) << ") from provider '"
      << s.provider_id << "'";
  try {
    std::thread worker([st, seq, trigger] { RunFetch(st, seq, trigger); });
    // Registered before the lock is released; the thread needs the lock to finish.
    s.worker_ids.push_back(worker.get_id());
    worker.detach();
  } catch (const std::system_error& e) {
    --s.active_workers;
    s.in_flight = false;
    s.completed_seq = seq;
    s.last_failed = true;
    s.last_error =
        Status::Unavailable(std::string("could not start a refresh thread: ") + e.what());
    ++s.consecutive_failures;
    s.retry_at = s.last_start + s.Backoff();
    ++s.stats.failures;
    s.cv.notify_all();
  }
}

}  // namespace

std::vector<ProviderRefreshStats> CredentialRefreshStats() {
  return Session::Default()->CredentialRefreshStats();
}

ProviderRefreshStats ToProviderRefreshStats(const RefreshingCredentialsSource& source) {
  ProviderRefreshStats out;
  out.provider_id = source.provider_id();
  out.sources = 1;
  out.live_sources = 1;
  out.stats = source.stats();
  return out;
}

std::vector<std::pair<std::string, int64_t>> RefreshStatsFields(
    const ProviderRefreshStats& entry) {
  const RefreshStats& s = entry.stats;
  const int64_t avg =
      s.completed_fetches > 0 ? s.total_fetch_latency.count() / s.completed_fetches : 0;
  return {{"sources", entry.sources},
          {"live_sources", entry.live_sources},
          {"fetches", s.fetches},
          {"completed_fetches", s.completed_fetches},
          {"background_refreshes", s.background_refreshes},
          {"blocking_refreshes", s.blocking_refreshes},
          {"forced_refreshes", s.forced_refreshes},
          {"inline_refreshes", s.inline_refreshes},
          {"failures", s.failures},
          {"failed_requests", s.failed_requests},
          {"deferred_refreshes", s.deferred_refreshes},
          {"waits", s.waits},
          {"total_wait_ms", s.total_wait.count()},
          {"max_wait_ms", s.max_wait.count()},
          {"last_fetch_latency_ms", s.last_fetch_latency.count()},
          {"max_fetch_latency_ms", s.max_fetch_latency.count()},
          {"total_fetch_latency_ms", s.total_fetch_latency.count()},
          {"avg_fetch_latency_ms", avg},
          {"expires_at_millis", s.expires_at_millis.value_or(0)},
          {"refresh_offset_ms", s.refresh_offset.count()}};
}

// ---------------------------------------------------------------------------------------
// RefreshingCredentialsSource

RefreshingCredentialsSource::RefreshingCredentialsSource(std::shared_ptr<State> state)
    : state_(std::move(state)) {}

Result<std::shared_ptr<RefreshingCredentialsSource>> RefreshingCredentialsSource::Make(
    const StorageOptions& initial_options,
    std::shared_ptr<StorageOptionsProvider> provider, std::shared_ptr<Clock> clock,
    RefreshingCredentialsOptions options) {
  return MakeInSession(*Session::Default(), initial_options, std::move(provider),
                       std::move(clock), std::move(options));
}

Result<std::shared_ptr<RefreshingCredentialsSource>>
RefreshingCredentialsSource::MakeInSession(
    Session& session, const StorageOptions& initial_options,
    std::shared_ptr<StorageOptionsProvider> provider, std::shared_ptr<Clock> clock,
    RefreshingCredentialsOptions options) {
  if (provider == nullptr) {
    return Status::Invalid(
        "RefreshingCredentialsSource needs a storage options provider");
  }
  auto state = std::make_shared<State>();
  state->provider_id = provider->provider_id();
  const std::string context =
      "reading the initial storage options for provider '" + state->provider_id + "'";
  auto credentials = CredentialsFromStorageOptions(initial_options);
  if (!credentials.ok()) return credentials.status().WithContext(context);
  auto expires_at = ExpiresAtMillis(initial_options);
  if (!expires_at.ok()) return expires_at.status().WithContext(context);
  auto offset = RefreshOffset(initial_options, options.default_refresh_offset);
  if (!offset.ok()) return offset.status().WithContext(context);

  state->provider = std::move(provider);
  state->clock = clock ? std::move(clock) : RealClock::Instance();
  state->rng.seed(options.jitter_seed != 0 ? options.jitter_seed
                                           : std::random_device{}());
  state->options = std::move(options);
  // Options without credentials seed nothing: the first request fetches.
  if (!credentials->empty()) {
    state->creds = std::make_shared<const Credentials>(std::move(*credentials));
    state->expires_at = *expires_at;
    state->latest_options = initial_options;
  }
  state->offset = *offset;
  state->refresh_stats = session.refresh_stats_;
  state->refresh_stats->Register(state->provider_id, state);
  return std::shared_ptr<RefreshingCredentialsSource>(
      new RefreshingCredentialsSource(std::move(state)));
}

Status RefreshingCredentialsSource::Reseed(const StorageOptions& options) {
  const std::string context = "reseeding provider '" + state_->provider_id + "'";
  auto credentials = CredentialsFromStorageOptions(options);
  if (!credentials.ok()) return credentials.status().WithContext(context);
  if (credentials->empty()) return Status::OK();
  auto expires_at = ExpiresAtMillis(options);
  if (!expires_at.ok()) return expires_at.status().WithContext(context);
  auto offset = RefreshOffset(options, state_->options.default_refresh_offset);
  if (!offset.ok()) return offset.status().WithContext(context);
  State& s = *state_;
  std::lock_guard<std::mutex> guard(s.mu);
  // Later expiry wins; "never expires" beats any expiry.
  const bool fresher =
      s.creds == nullptr || (s.expires_at.has_value() &&
                             (!expires_at->has_value() || **expires_at > *s.expires_at));
  if (!fresher) return Status::OK();
  s.creds = std::make_shared<const Credentials>(std::move(*credentials));
  s.expires_at = *expires_at;
  s.offset = *offset;
  s.latest_options = options;
  return Status::OK();
}

RefreshingCredentialsSource::~RefreshingCredentialsSource() {
  State& s = *state_;
  std::unique_lock<std::mutex> lock(s.mu);
  // Destroyed from a refresh thread (the provider or on_event dropped the last
  // reference): that thread keeps the state alive, and waiting for it would deadlock.
  const bool on_refresh_thread =
      std::find(s.worker_ids.begin(), s.worker_ids.end(), std::this_thread::get_id()) !=
      s.worker_ids.end();
  const int allowed = on_refresh_thread ? 1 : 0;
  s.source_alive = false;
  // Real time on purpose: the fetch finishes on its own, whatever the injected clock
  // says.
  s.cv.wait(lock, [&] { return s.active_workers <= allowed; });
}

Result<Creds> RefreshingCredentialsSource::Current() {
  State& s = *state_;
  std::unique_lock<std::mutex> lock(s.mu);
  // Fast path (every request): one wall-clock read under an uncontended mutex.
  if (s.creds &&
      (!s.expires_at || s.clock->NowMillis() + s.offset.count() < *s.expires_at)) {
    return s.creds;
  }
  const auto begin = s.clock->SteadyNow();
  const auto deadline = begin + s.options.max_wait;
  // Declared after `lock`, so it records the wait with the lock still held.
  WaitRecorder recorder(s, begin);
  while (true) {
    const int64_t now_ms = s.clock->NowMillis();
    const auto steady = s.clock->SteadyNow();

    // Fresh, or never expiring (again: the loop comes back here after waiting).
    if (s.creds && (!s.expires_at || now_ms + s.offset.count() < *s.expires_at)) {
      return s.creds;
    }
    // Refresh window.
    if (!s.Expired(now_ms)) {
      if (s.options.mode == RefreshMode::kInline) {
        // As Lance: the request fetches (or joins the fetch in flight) and waits.
        if (!s.in_flight) {
          if (steady < s.NextAllowedFetch()) {
            ++s.stats.deferred_refreshes;
            return s.creds;
          }
          StartFetch(state_, Trigger::kInline);
        }
        const uint64_t awaited = s.started_seq;
        recorder.MarkWaited();
        if (!s.clock->WaitUntil(lock, s.cv, deadline,
                                [&] { return s.completed_seq >= awaited; }) &&
            !s.Expired(s.clock->NowMillis())) {
          return s.creds;  // still valid: better late than failed
        }
        // Succeeded: fresh. Failed while valid: the backoff defers, the valid
        // credentials are served. Expired meanwhile: the expiry path below.
        continue;
      }
      // Background: serve the valid credentials, refresh behind the request.
      if (!s.in_flight) {
        if (steady >= s.NextAllowedFetch()) {
          StartFetch(state_, Trigger::kBackground);
        } else {
          ++s.stats.deferred_refreshes;
        }
      }
      return s.creds;
    }

    // Expired (or none): this request needs the outcome of a fetch.
    if (!s.in_flight) {
      if (s.FailedSinceExpiry() && steady < s.retry_at) {
        // The refresh on expiry was tried and failed recently: fail fast instead of
        // sending every request to a failing provider.
        ++s.stats.failed_requests;
        return s.FailedRefreshError(steady);
      }
      const auto allowed = s.last_start + s.options.min_fetch_interval;
      if (!s.last_failed && s.have_last_start && steady < allowed) {
        // The credentials lived shorter than the minimum fetch interval: rate limit.
        if (steady >= deadline) {
          ++s.stats.failed_requests;
          return s.TimeoutError();
        }
        recorder.MarkWaited();
        s.clock->WaitUntil(lock, s.cv, std::min(deadline, allowed),
                           [&] { return s.in_flight; });
        continue;
      }
      StartFetch(state_, Trigger::kExpired);
    }
    const uint64_t awaited = s.started_seq;
    recorder.MarkWaited();
    if (!s.clock->WaitUntil(lock, s.cv, deadline,
                            [&] { return s.completed_seq >= awaited; })) {
      ++s.stats.failed_requests;
      return s.TimeoutError();
    }
    // A failure of a fetch started before the expiry (a background refresh) does not
    // count as the refresh on expiry: the loop then starts that one.
    if (s.Expired(s.clock->NowMillis()) && s.FailedSinceExpiry()) {
      ++s.stats.failed_requests;
      return s.FailedRefreshError(s.clock->SteadyNow());
    }
  }
}

Result<Creds> RefreshingCredentialsSource::OnRejected(const Credentials& rejected) {
  State& s = *state_;
  std::unique_lock<std::mutex> lock(s.mu);
  const auto deadline = s.clock->SteadyNow() + s.options.max_wait;
  // Fetches numbered from here on started after the rejection: their result counts.
  const uint64_t first_own_seq = s.started_seq + 1;
  auto rejected_error = [&](std::string_view why) {
    return Status::Unauthorized("the server rejected credentials ", rejected.ToString(),
                                " from storage options provider '", s.provider_id,
                                "' and ", why);
  };
  while (true) {
    const int64_t now_ms = s.clock->NowMillis();
    const auto steady = s.clock->SteadyNow();
    if (s.creds && *s.creds != rejected) {
      if (!s.Expired(now_ms)) return s.creds;  // another thread already refreshed
      lock.unlock();
      return Current();  // newer, but expired: the ordinary expiry path
    }
    if (s.in_flight) {
      const uint64_t awaited = s.started_seq;
      if (!s.clock->WaitUntil(lock, s.cv, deadline,
                              [&] { return s.completed_seq >= awaited; })) {
        return rejected_error("no refresh completed within " +
                              FormatMillis(s.options.max_wait));
      }
      if (awaited >= first_own_seq && s.last_failed) {
        return rejected_error("the refresh failed because: " + s.last_error.ToString());
      }
      continue;
    }
    if (s.completed_seq >= first_own_seq) {
      // A fetch started after the rejection completed and the credentials are still the
      // rejected ones.
      return rejected_error("the provider returned the same credentials again");
    }
    if (s.last_failed && steady < s.retry_at) {
      return rejected_error("the last refresh failed because: " +
                            s.last_error.ToString() + " (next attempt in " +
                            FormatMillis(std::chrono::ceil<std::chrono::milliseconds>(
                                s.retry_at - steady)) +
                            ")");
    }
    const auto allowed = s.last_start + s.options.min_fetch_interval;
    if (!s.last_failed && s.have_last_start && steady < allowed) {
      if (steady >= deadline) {
        return rejected_error("the fetch rate limit left no time within " +
                              FormatMillis(s.options.max_wait));
      }
      s.clock->WaitUntil(lock, s.cv, std::min(deadline, allowed),
                         [&] { return s.in_flight; });
      continue;
    }
    StartFetch(state_, Trigger::kRejected);
  }
}

std::string RefreshingCredentialsSource::id() const {
  return "provider:" + state_->provider_id;
}

const std::string& RefreshingCredentialsSource::provider_id() const {
  return state_->provider_id;
}

std::string RefreshingCredentialsSource::ToString() const {
  const State& s = *state_;
  std::lock_guard<std::mutex> guard(s.mu);
  std::string out = "RefreshingCredentials(provider='" + s.provider_id +
                    "', credentials=" + s.CredentialsDescription();
  out += ", expires_at=" +
         (s.expires_at ? FormatEpochMillis(*s.expires_at) : std::string("never"));
  out += ", refresh_offset=" + FormatMillis(s.offset);
  out += ", fetches=" + std::to_string(s.stats.fetches);
  out += ", failures=" + std::to_string(s.stats.failures) + ")";
  return out;
}

StorageOptions RefreshingCredentialsSource::latest_storage_options() const {
  std::lock_guard<std::mutex> guard(state_->mu);
  return state_->latest_options;
}

RefreshStats RefreshingCredentialsSource::stats() const {
  const State& s = *state_;
  std::lock_guard<std::mutex> guard(s.mu);
  return s.Snapshot();
}

bool RefreshingCredentialsSource::WaitIdle(std::chrono::milliseconds timeout) const {
  const State& s = *state_;
  std::unique_lock<std::mutex> lock(s.mu);
  return s.cv.wait_for(lock, timeout,
                       [&] { return !s.in_flight && s.active_workers == 0; });
}

}  // namespace lance::io
