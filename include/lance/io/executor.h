// SPDX-License-Identifier: Apache-2.0
/// \file executor.h
/// \brief The process's one bounded pool for I/O and decode work, with task groups,
/// cancellation and a memory budget (the role of Arrow's io::IOContext and Lance's
/// scan scheduler).
///
/// Every place that used to start its own threads (ranged S3 reads, multipart uploads,
/// coalesced range fetches, scan read-ahead, parallel encoding) submits tasks here
/// instead, so that the number of threads in the process is bounded no matter how many
/// readers and writers run at once.
///
/// Nesting is safe: a task may submit tasks and wait for them. Waiting never blocks on a
/// task no thread has started: the waiter claims it and runs it itself ("caller runs"),
/// so a full pool cannot deadlock on its own sub-tasks; it only waits for tasks another
/// thread is already running.

#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>
#include <utility>

#include "lance/result.h"
#include "lance/status.h"

namespace lance::io {

/// \brief A shared flag: Cancel() makes every holder see cancelled() == true.
class CancellationToken {
 public:
  CancellationToken() : flag_(std::make_shared<std::atomic<bool>>(false)) {}
  void Cancel() const { flag_->store(true, std::memory_order_release); }
  bool cancelled() const { return flag_->load(std::memory_order_acquire); }

 private:
  std::shared_ptr<std::atomic<bool>> flag_;
};

struct ExecutorOptions {
  /// \brief Worker threads. 0: the environment variable LANCE_IO_THREADS, else
  /// max(8, 4 x hardware threads) (I/O-bound tasks mostly wait on the network).
  int threads = 0;
  /// \brief Bytes that Reserve() hands out at once. 0: LANCE_IO_MEMORY_BUDGET (bytes),
  /// else 1 GiB.
  int64_t memory_budget_bytes = 0;
};

/// \brief Counters of an Executor (observable; see also `lance-cpp --stats`).
struct ExecutorStats {
  int threads = 0;
  /// \brief Tasks submitted, and of those run by the waiting thread instead of a worker.
  int64_t tasks_submitted = 0;
  int64_t tasks_run_by_waiter = 0;
  /// \brief Tasks dropped unrun because their group was cancelled.
  int64_t tasks_cancelled = 0;
  int64_t memory_budget_bytes = 0;
  int64_t bytes_reserved = 0;
  int64_t peak_bytes_reserved = 0;
  /// \brief Reserve() calls that had to wait for memory.
  int64_t memory_waits = 0;
};

class Executor;

namespace internal {

/// One unit of work: queued -> running -> done, or queued -> cancelled. A worker and a
/// waiter race for it with TryClaim(); exactly one runs it.
class Task {
 public:
  virtual ~Task() = default;
  bool TryClaim() {
    int expected = kQueued;
    return state_.compare_exchange_strong(expected, kRunning, std::memory_order_acq_rel);
  }
  void RunClaimed();      // runs Body() and marks the task done
  bool CancelIfQueued();  // queued -> cancelled (done, body never runs)
  void WaitDone();        // blocks until done or cancelled
  bool done() const { return state_.load(std::memory_order_acquire) >= kDone; }

 protected:
  virtual void Body() = 0;

 private:
  static constexpr int kQueued = 0, kRunning = 1, kDone = 2, kCancelled = 3;
  std::atomic<int> state_{kQueued};
  std::mutex mu_;
  std::condition_variable cv_;
};

template <typename T>
class ResultTask final : public Task {
 public:
  explicit ResultTask(std::function<Result<T>()> fn) : fn_(std::move(fn)) {}
  std::optional<Result<T>> result;

 protected:
  void Body() override {
    result.emplace(fn_());
    fn_ = nullptr;
  }

 private:
  std::function<Result<T>()> fn_;
};

}  // namespace internal

/// \brief The result of Executor::Spawn: Get() waits for it, or runs it on the calling
/// thread if no worker has started it yet. Destroying an unfinished Pending cancels the
/// task if it has not started and otherwise waits for it (a task never outlives what its
/// Pending guards).
template <typename T>
class Pending {
 public:
  Pending() = default;
  Pending(Pending&&) noexcept = default;
  Pending& operator=(Pending&& other) noexcept {
    Abandon();
    task_ = std::move(other.task_);
    return *this;
  }
  Pending(const Pending&) = delete;
  Pending& operator=(const Pending&) = delete;
  ~Pending() { Abandon(); }

  bool valid() const { return task_ != nullptr; }
  /// \brief Whether the result is there (Get() would not wait or run anything).
  bool ready() const { return task_ && task_->done(); }

  /// \brief The task's result; the Pending is empty afterwards.
  Result<T> Get();

 private:
  friend class Executor;
  explicit Pending(std::shared_ptr<internal::ResultTask<T>> task)
      : task_(std::move(task)) {}
  void Abandon() {
    if (!task_) return;
    if (!task_->CancelIfQueued()) task_->WaitDone();
    task_.reset();
  }
  std::shared_ptr<internal::ResultTask<T>> task_;
};

/// \brief Memory held from an Executor's budget; released when destroyed.
class MemoryReservation {
 public:
  MemoryReservation() = default;
  MemoryReservation(MemoryReservation&& other) noexcept
      : executor_(std::exchange(other.executor_, nullptr)),
        bytes_(std::exchange(other.bytes_, 0)) {}
  MemoryReservation& operator=(MemoryReservation&& other) noexcept;
  MemoryReservation(const MemoryReservation&) = delete;
  MemoryReservation& operator=(const MemoryReservation&) = delete;
  ~MemoryReservation() { Release(); }
  int64_t bytes() const { return bytes_; }
  void Release();

 private:
  friend class Executor;
  MemoryReservation(Executor* executor, int64_t bytes)
      : executor_(executor), bytes_(bytes) {}
  Executor* executor_ = nullptr;
  int64_t bytes_ = 0;
};

/// \brief A fixed set of worker threads running queued tasks in FIFO order.
///
/// Thread-safe. The process-wide one is Default(); tests make their own to pin sizes.
class Executor {
 public:
  explicit Executor(ExecutorOptions options = {});
  /// \brief Runs what is queued, then joins the workers.
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  /// \brief The process-wide executor (created on first use, sized from the
  /// environment; lives until exit).
  static Executor& Default();

  int threads() const { return static_cast<int>(num_threads_); }
  ExecutorStats stats() const;

  /// \brief Queues fn (returning Result<T> or Status) and returns its Pending.
  template <typename F>
  auto Spawn(F&& fn) {
    using R = std::invoke_result_t<F&>;
    if constexpr (std::is_same_v<R, Status>) {
      auto task = std::make_shared<internal::ResultTask<bool>>(
          [f = std::forward<F>(fn)]() mutable -> Result<bool> {
            Status st = f();
            if (!st.ok()) return st;
            return true;
          });
      Enqueue(task);
      return Pending<bool>(std::move(task));
    } else {
      using T = typename R::value_type;
      auto task = std::make_shared<internal::ResultTask<T>>(std::forward<F>(fn));
      Enqueue(task);
      return Pending<T>(std::move(task));
    }
  }

  /// \brief Takes `bytes` from the memory budget, waiting while others hold it (unless
  /// nothing is held: a single request larger than the budget still proceeds, alone).
  /// \return Cancelled if `cancel` fires while waiting.
  Result<MemoryReservation> Reserve(int64_t bytes,
                                    const CancellationToken* cancel = nullptr);

  /// Queues a task (used by Spawn and TaskGroup).
  void Enqueue(std::shared_ptr<internal::Task> task);

 private:
  friend class MemoryReservation;
  void ReleaseBytes(int64_t bytes);
  void WorkerLoop();

  struct Impl;
  std::unique_ptr<Impl> impl_;
  size_t num_threads_ = 0;
};

/// \brief Tasks that succeed or fail together: Wait() returns the first error, and after
/// an error (or Cancel()) the tasks no thread has started are dropped.
///
/// With max_in_flight > 0, Submit() first waits for the oldest unfinished task when that
/// many are outstanding: back-pressure for producers that must not run ahead (multipart
/// parts, read-ahead). Destroying a group cancels what has not started and waits for the
/// rest. Not thread-safe: one thread submits and waits; the tasks run anywhere.
class TaskGroup {
 public:
  explicit TaskGroup(Executor& executor = Executor::Default(), int max_in_flight = 0);
  ~TaskGroup();
  TaskGroup(const TaskGroup&) = delete;
  TaskGroup& operator=(const TaskGroup&) = delete;

  /// \brief Queues task. Tasks check token() themselves if they are long.
  /// \return the error of an earlier task waited for under back-pressure (the new task is
  /// then not queued), else OK.
  Status Submit(std::function<Status()> task);
  /// \brief Waits for every task (running unstarted ones here). \return the first error.
  Status Wait();
  /// \brief Drops unstarted tasks; started ones see token().cancelled().
  void Cancel();
  const CancellationToken& token() const { return token_; }

 private:
  class GroupTask;
  Status WaitOldest();

  Executor& executor_;
  int max_in_flight_;
  CancellationToken token_;
  std::deque<std::shared_ptr<GroupTask>> pending_;
  Status first_error_;
};

template <typename T>
Result<T> Pending<T>::Get() {
  if (!task_)
    return Status::Invalid("Pending::Get on an empty or already consumed result");
  if (task_->TryClaim()) task_->RunClaimed();
  task_->WaitDone();
  auto task = std::move(task_);
  if (!task->result) return Status::Cancelled("task was cancelled before it ran");
  return std::move(*task->result);
}

}  // namespace lance::io
