// SPDX-License-Identifier: Apache-2.0
/// \file refreshing_credentials.h
/// \brief RefreshingCredentialsSource: credentials from a StorageOptionsProvider, cached
/// until they are about to expire and refreshed with a single fetch.
///
/// The one implementation of the refresh contract (docs/credentials.md and the
/// credential-refresh reference): every store that signs with vended credentials asks
/// one of these on every request.

#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lance/core/clock.h"
#include "lance/io/credentials.h"
#include "lance/io/storage_options_provider.h"
#include "lance/result.h"

namespace lance::io {

class Session;  // session.h

/// \brief What happened to a refresh; passed to RefreshingCredentialsOptions::on_event.
/// Contains no secret: only redacted credentials.
struct RefreshEvent {
  enum class Kind {
    kSucceeded,  ///< new credentials are in use
    kFailed,     ///< the fetch failed; `error` says why
  };
  /// \brief Why the fetch ran.
  enum class Trigger {
    kBackground,  ///< inside the refresh window, old credentials still valid
    kExpired,     ///< no valid credentials: requests waited for this fetch
    kRejected,    ///< the server rejected the current credentials (OnRejected)
    kInline,      ///< RefreshMode::kInline: inside the refresh window, requests waited
  };
  Kind kind;
  Trigger trigger;
  std::string provider_id;
  /// \brief The new credentials, redacted (Credentials::ToString); empty on failure.
  std::string credentials;
  /// \brief Expiry of the new credentials (epoch ms); nullopt: never expire / failure.
  std::optional<int64_t> expires_at_millis;
  std::chrono::milliseconds latency{0};
  /// \brief The failure (OK on success).
  Status error;

  /// \brief One loggable line, e.g. "refresh (background) of provider:X succeeded in 12
  /// ms: AwsCredentials{access_key_id=AKIA…, ...}, expires at 2026-01-01T00:10:00.000Z".
  std::string ToString() const;
};

/// \brief Where a refresh inside the refresh window (E - O <= now < E) runs.
enum class RefreshMode {
  /// \brief Ours (the default): the request that finds the credentials inside the window
  /// is served the still valid credentials at once and the fetch runs behind it; no
  /// request waits unless the credentials have really expired.
  kBackground,
  /// \brief As Lance does (DynamicStorageOptionsCredentialProvider): the request that
  /// finds the credentials inside the window fetches on the request path, and every other
  /// request that needs credentials meanwhile waits for that fetch. For comparison
  /// (bench/refresh_benchmark.cc); rate limit, backoff and failure rules are ours in both
  /// modes (a failed inline fetch inside the window still serves the valid credentials).
  kInline,
};

/// \brief "background" / "inline".
std::string_view RefreshModeName(RefreshMode mode);

/// \brief Tuning of a RefreshingCredentialsSource. Defaults() is what stores use.
struct RefreshingCredentialsOptions {
  /// \brief Background (default) or inline refresh inside the refresh window.
  RefreshMode mode = RefreshMode::kBackground;
  /// \brief Refresh offset for maps without `refresh_offset_millis` (Lance: 60 s).
  std::chrono::milliseconds default_refresh_offset{kDefaultRefreshOffsetMillis};
  /// \brief At most one fetch per this interval, whatever the credentials' lifetime
  /// (protects the provider when it vends credentials that live shorter than the
  /// offset). The first fetch after the credentials expired is exempt, unless the
  /// credentials lived shorter than this interval.
  std::chrono::milliseconds min_fetch_interval{1'000};
  /// \brief After a failed fetch, the next one waits this long, doubled per consecutive
  /// failure up to max_retry_backoff, with jitter (a uniform delay in [b/2, b]).
  std::chrono::milliseconds initial_retry_backoff{1'000};
  std::chrono::milliseconds max_retry_backoff{30'000};
  /// \brief Longest a request waits for credentials when it has to (expired or none).
  std::chrono::milliseconds max_wait{30'000};
  /// \brief Seed of the jitter; 0 draws one from std::random_device.
  uint64_t jitter_seed = 0;
  /// \brief Called after every fetch, on the refresh thread, with no lock held; for logs
  /// and demos. It may call the source's accessors (stats(), ToString()). Keep it short:
  /// the source's destructor waits for it.
  std::function<void(const RefreshEvent&)> on_event;

  static RefreshingCredentialsOptions Defaults() { return {}; }
};

/// \brief Counters of a RefreshingCredentialsSource (observable refresh behaviour).
struct RefreshStats {
  /// \brief Calls to FetchStorageOptions() started (all triggers).
  int64_t fetches = 0;
  /// \brief Of those, started inside the refresh window while the credentials were valid.
  int64_t background_refreshes = 0;
  /// \brief Of those, started because there were no valid credentials (requests waited).
  int64_t blocking_refreshes = 0;
  /// \brief Of those, started by OnRejected().
  int64_t forced_refreshes = 0;
  /// \brief Of those, started on the request path inside the refresh window
  /// (RefreshMode::kInline only).
  int64_t inline_refreshes = 0;
  /// \brief Fetches that failed (error, nullopt, no credentials, already expired, bad
  /// option values).
  int64_t failures = 0;
  /// \brief Current() calls that returned an error.
  int64_t failed_requests = 0;
  /// \brief Times a due background refresh was not started because of the rate limit
  /// or the failure backoff.
  int64_t deferred_refreshes = 0;
  /// \brief Current() calls that had to wait for a fetch (expired or no credentials;
  /// inline mode: also inside the refresh window), and how long they waited in total and
  /// at most (monotonic time of the clock). A wait that ends in an error counts too.
  int64_t waits = 0;
  std::chrono::milliseconds total_wait{0};
  std::chrono::milliseconds max_wait{0};
  /// \brief Fetches completed (succeeded or failed).
  int64_t completed_fetches = 0;
  /// \brief Duration of the last completed fetch (monotonic time of the clock), the
  /// longest and the sum over all completed fetches (average = total_fetch_latency /
  /// completed_fetches).
  std::chrono::milliseconds last_fetch_latency{0};
  std::chrono::milliseconds max_fetch_latency{0};
  std::chrono::milliseconds total_fetch_latency{0};
  /// \brief Expiry of the credentials in use; nullopt: none or never expire.
  std::optional<int64_t> expires_at_millis;
  /// \brief Refresh offset in use (from the last map that carried one, else default).
  std::chrono::milliseconds refresh_offset{0};
};

/// \brief A CredentialsSource over a StorageOptionsProvider.
///
/// Semantics (E = expires_at_millis of the cached options, O = refresh offset, now =
/// the clock's wall time in ms):
/// - The initial storage options seed the cache: construction never fetches. Without
///   credentials in them, the first Current() fetches.
/// - now + O < E, or no E: Current() returns the cached credentials (no fetch, ever, for
///   options without E).
/// - E - O <= now < E (refresh window): Current() returns the cached credentials at once
///   and starts one background fetch (unless one is in flight, the previous fetch was
///   less than min_fetch_interval ago, or a failure backoff is running). No request
///   waits.
/// - now >= E, or no credentials: requests wait (at most max_wait) for one shared fetch.
///   If it fails, they fail with TokenExpired: "... expired at <time> and the refresh
///   from provider <id> failed because <error>" (no secret).
/// - A failed background fetch fails no request; it is retried with backoff and jitter
///   on later calls. While credentials are expired and a failure backoff runs, requests
///   fail at once with the last error (no fetch storm on a failing provider).
/// - O is re-read from every fetched map (`refresh_offset_millis`, default
///   options.default_refresh_offset); E likewise.
/// - Only the credentials of a fetched map are used (CredentialsFromStorageOptions: AWS
///   keys, Azure account key / SAS / bearer token, Google token, under the aliases of
///   kCredentialOptionKeys); other options are ignored (the store is built).
/// - No timers: an idle source calls nothing.
///
/// Thread-safe. Destruction waits for an in-flight fetch to finish (the fetch holds only
/// shared state, so nothing it touches dies under it).
class RefreshingCredentialsSource final : public CredentialsSource {
 public:
  /// \brief Builds a source seeded with `initial_options` (the options that located the
  /// table), counted in the default session's statistics (Session::Default()); `clock`
  /// null means RealClock. Not shared: io::MakeCredentialsSource shares one per provider.
  /// \return the source; Invalid for a null provider or malformed initial options
  /// (expires_at_millis, refresh_offset_millis, a key id without secret...).
  static Result<std::shared_ptr<RefreshingCredentialsSource>> Make(
      const StorageOptions& initial_options,
      std::shared_ptr<StorageOptionsProvider> provider,
      std::shared_ptr<Clock> clock = nullptr,
      RefreshingCredentialsOptions options = RefreshingCredentialsOptions::Defaults());

  /// \brief As Make, counted in the statistics of `session`
  /// (Session::CredentialRefreshStats), which the source may outlive.
  static Result<std::shared_ptr<RefreshingCredentialsSource>> MakeInSession(
      Session& session, const StorageOptions& initial_options,
      std::shared_ptr<StorageOptionsProvider> provider,
      std::shared_ptr<Clock> clock = nullptr,
      RefreshingCredentialsOptions options = RefreshingCredentialsOptions::Defaults());

  ~RefreshingCredentialsSource() override;
  RefreshingCredentialsSource(const RefreshingCredentialsSource&) = delete;
  RefreshingCredentialsSource& operator=(const RefreshingCredentialsSource&) = delete;

  /// \brief Cached credentials, refreshed as described above.
  /// \return the credentials; TokenExpired when they expired and the refresh failed or
  /// did not finish within max_wait; Unauthorized when there never were credentials and
  /// the first fetch failed.
  Result<std::shared_ptr<const Credentials>> Current() override;

  /// \brief The server rejected `rejected`. If the cached credentials already differ
  /// (another thread refreshed), returns them; otherwise forces one fetch shared by all
  /// concurrent rejecting callers (rate-limited like any fetch) and returns its result.
  /// \return the new credentials; Unauthorized when the fetch failed or returned the
  /// rejected credentials again.
  Result<std::shared_ptr<const Credentials>> OnRejected(
      const Credentials& rejected) override;

  /// \brief Offers options that located the table again (a later describe_table answer
  /// for the same provider, e.g. when a second handle opens the table while this source
  /// still serves the first): adopted when they carry credentials that expire later than
  /// the cached ones (or there are none), so that answer is never wasted on a fetch.
  /// \return OK (also when not adopted); Invalid for malformed options.
  Status Reseed(const StorageOptions& options);

  /// \brief "provider:" + provider_id().
  std::string id() const override;
  /// \brief "RefreshingCredentials(provider=..., credentials=AKIA…, expires_at=...,
  /// refresh_offset=60000ms, fetches=N, failures=N)"; no secret.
  std::string ToString() const override;

  /// \brief The storage options last seeded or fetched (contains secrets: never log it).
  /// For handing current options on, e.g. to distributed workers.
  StorageOptions latest_storage_options() const;

  RefreshStats stats() const;
  const std::string& provider_id() const;

  /// \brief Blocks (real time, at most `timeout`) until no fetch is in flight.
  /// \return true when idle. For tests and orderly shutdown.
  bool WaitIdle(std::chrono::milliseconds timeout) const;

  /// \brief The shared state (public only so the .cc can name it).
  struct State;

 private:
  explicit RefreshingCredentialsSource(std::shared_ptr<State> state);

  std::shared_ptr<State> state_;
};

/// \brief The refresh counters of one provider id in a session (Session).
struct ProviderRefreshStats {
  /// \brief StorageOptionsProvider::provider_id() (never a secret).
  std::string provider_id;
  /// \brief Refreshing sources of this provider id built for the session, and of those
  /// the ones still alive (MakeCredentialsSource keeps at most one alive per id; sources
  /// built directly with RefreshingCredentialsSource::Make may add more).
  int64_t sources = 0;
  int64_t live_sources = 0;
  /// \brief The counters summed over all of those sources, the dead ones included (so
  /// a command can print them after its datasets are gone); max_wait and
  /// max_fetch_latency are the maxima. last_fetch_latency, expires_at_millis and
  /// refresh_offset are those of the newest live source (zero / nullopt when none lives).
  RefreshStats stats;
};

/// \brief Refresh counters of every provider id that had a RefreshingCredentialsSource in
/// the default session (Session::Default()->CredentialRefreshStats(): the process-wide
/// statistics; entries are never dropped), sorted by provider id. Contains no secret.
/// Thread-safe.
std::vector<ProviderRefreshStats> CredentialRefreshStats();

/// \brief The counters of one source, as an entry of CredentialRefreshStats() (sources
/// = live_sources = 1).
ProviderRefreshStats ToProviderRefreshStats(const RefreshingCredentialsSource& source);

/// \brief The counters of `stats` as (name, integer) pairs in a fixed order, the one
/// naming used by the Python binding and `lance-cpp --stats`: sources, live_sources,
/// fetches, completed_fetches, background_refreshes, blocking_refreshes,
/// forced_refreshes, inline_refreshes, failures, failed_requests, deferred_refreshes,
/// waits, total_wait_ms, max_wait_ms, last_fetch_latency_ms, max_fetch_latency_ms,
/// total_fetch_latency_ms, avg_fetch_latency_ms (total / completed, 0 before any),
/// expires_at_millis (0: none or never expire), refresh_offset_ms. No secret.
std::vector<std::pair<std::string, int64_t>> RefreshStatsFields(
    const ProviderRefreshStats& stats);

/// \brief Epoch milliseconds as "2026-01-01T00:00:00.000Z" (UTC), for messages.
std::string FormatEpochMillis(int64_t epoch_millis);

}  // namespace lance::io
