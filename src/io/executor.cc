// SPDX-License-Identifier: Apache-2.0
#include "lance/io/executor.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "lance/macros.h"

namespace lance::io {

namespace internal {

void Task::RunClaimed() {
  Body();
  std::lock_guard<std::mutex> lock(mu_);
  state_.store(kDone, std::memory_order_release);
  cv_.notify_all();
}

bool Task::CancelIfQueued() {
  int expected = kQueued;
  if (!state_.compare_exchange_strong(expected, kCancelled, std::memory_order_acq_rel)) {
    return false;
  }
  std::lock_guard<std::mutex> lock(mu_);
  cv_.notify_all();
  return true;
}

void Task::WaitDone() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return done(); });
}

}  // namespace internal

namespace {

int64_t EnvInt(const char* name, int64_t fallback) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return fallback;
  char* end = nullptr;
  const long long parsed = std::strtoll(value, &end, 10);
  if (end == value || *end != '\0' || parsed <= 0) return fallback;
  return parsed;
}

}  // namespace

struct Executor::Impl {
  mutable std::mutex mu;
  std::condition_variable work_cv;
  std::deque<std::shared_ptr<internal::Task>> queue;
  bool stopping = false;
  std::vector<std::thread> workers;

  std::condition_variable memory_cv;
  int64_t budget = 0;
  int64_t reserved = 0;

  ExecutorStats stats;
};

Executor::Executor(ExecutorOptions options) : impl_(std::make_unique<Impl>()) {
  const int hw = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  int64_t threads = options.threads > 0 ? options.threads
                                        : EnvInt("LANCE_IO_THREADS", std::max(8, 4 * hw));
  threads = std::clamp<int64_t>(threads, 1, 256);
  impl_->budget = options.memory_budget_bytes > 0
                      ? options.memory_budget_bytes
                      : EnvInt("LANCE_IO_MEMORY_BUDGET", int64_t{1} << 30);
  impl_->stats.threads = static_cast<int>(threads);
  impl_->stats.memory_budget_bytes = impl_->budget;
  num_threads_ = static_cast<size_t>(threads);
  impl_->workers.reserve(num_threads_);
  for (size_t i = 0; i < num_threads_; ++i) {
    // If the system refuses a thread, the pool runs with those it got: waiters run
    // unstarted tasks themselves, so even zero workers make progress.
    try {
      impl_->workers.emplace_back([this] { WorkerLoop(); });
    } catch (const std::system_error&) {
      break;
    }
  }
  num_threads_ = impl_->workers.size();
  impl_->stats.threads = static_cast<int>(num_threads_);
}

Executor::~Executor() {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->stopping = true;
  }
  impl_->work_cv.notify_all();
  for (auto& t : impl_->workers) t.join();
  // Without workers left, whatever is still queued runs here (a Pending may wait on it).
  for (auto& task : impl_->queue) {
    if (task->TryClaim()) task->RunClaimed();
  }
}

Executor& Executor::Default() {
  // Never destroyed: worker threads must not be joined during static destruction,
  // when a task could still touch objects already gone.
  static Executor* executor = new Executor();
  return *executor;
}

ExecutorStats Executor::stats() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  ExecutorStats out = impl_->stats;
  out.bytes_reserved = impl_->reserved;
  return out;
}

void Executor::Enqueue(std::shared_ptr<internal::Task> task) {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    ++impl_->stats.tasks_submitted;
    impl_->queue.push_back(std::move(task));
  }
  impl_->work_cv.notify_one();
}

void Executor::WorkerLoop() {
  while (true) {
    std::shared_ptr<internal::Task> task;
    {
      std::unique_lock<std::mutex> lock(impl_->mu);
      impl_->work_cv.wait(lock,
                          [this] { return impl_->stopping || !impl_->queue.empty(); });
      if (impl_->queue.empty()) return;  // stopping, nothing left
      task = std::move(impl_->queue.front());
      impl_->queue.pop_front();
    }
    // A waiter may have claimed (and run) it already, or its group cancelled it.
    if (task->TryClaim()) task->RunClaimed();
  }
}

Result<MemoryReservation> Executor::Reserve(int64_t bytes,
                                            const CancellationToken* cancel) {
  if (bytes <= 0) return MemoryReservation(this, 0);
  std::unique_lock<std::mutex> lock(impl_->mu);
  bool waited = false;
  while (impl_->reserved > 0 && impl_->reserved + bytes > impl_->budget) {
    if (cancel != nullptr && cancel->cancelled()) {
      return Status::Cancelled("waiting for " + std::to_string(bytes) +
                               " bytes of the I/O memory budget");
    }
    waited = true;
    // Bounded waits so a cancellation is noticed without a notify from the canceller.
    impl_->memory_cv.wait_for(lock, std::chrono::milliseconds(50));
  }
  if (waited) ++impl_->stats.memory_waits;
  impl_->reserved += bytes;
  impl_->stats.peak_bytes_reserved =
      std::max(impl_->stats.peak_bytes_reserved, impl_->reserved);
  return MemoryReservation(this, bytes);
}

void Executor::ReleaseBytes(int64_t bytes) {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->reserved -= bytes;
  }
  impl_->memory_cv.notify_all();
}

MemoryReservation& MemoryReservation::operator=(MemoryReservation&& other) noexcept {
  if (this != &other) {
    Release();
    executor_ = std::exchange(other.executor_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void MemoryReservation::Release() {
  if (executor_ != nullptr && bytes_ > 0) executor_->ReleaseBytes(bytes_);
  executor_ = nullptr;
  bytes_ = 0;
}

// ---------------------------------------------------------------------------------------
// TaskGroup

class TaskGroup::GroupTask final : public internal::Task {
 public:
  GroupTask(std::function<Status()> fn, CancellationToken token)
      : fn_(std::move(fn)), token_(std::move(token)) {}
  Status status;

 protected:
  void Body() override {
    // A group that failed or was cancelled runs nothing more. A failure cancels the group
    // at once, so the tasks queued behind it are dropped by whichever thread reaches them
    // (a worker may get there before the waiter has seen the failure).
    status = token_.cancelled() ? Status::Cancelled("task group was cancelled") : fn_();
    if (!status.ok() && status.code() != StatusCode::kCancelled) token_.Cancel();
    fn_ = nullptr;
  }

 private:
  std::function<Status()> fn_;
  CancellationToken token_;
};

TaskGroup::TaskGroup(Executor& executor, int max_in_flight)
    : executor_(executor), max_in_flight_(std::max(0, max_in_flight)) {}

TaskGroup::~TaskGroup() {
  Cancel();
  for (auto& task : pending_) task->WaitDone();
}

Status TaskGroup::Submit(std::function<Status()> task) {
  if (max_in_flight_ > 0) {
    // Finished tasks leave the window first, then the oldest unfinished is waited for.
    while (!pending_.empty() && pending_.front()->done())
      LANCE_RETURN_NOT_OK(WaitOldest());
    while (static_cast<int>(pending_.size()) >= max_in_flight_) {
      LANCE_RETURN_NOT_OK(WaitOldest());
    }
  }
  if (!first_error_.ok()) return first_error_;
  auto t = std::make_shared<GroupTask>(std::move(task), token_);
  pending_.push_back(t);
  executor_.Enqueue(std::move(t));
  return Status::OK();
}

Status TaskGroup::WaitOldest() {
  std::shared_ptr<GroupTask> task = std::move(pending_.front());
  pending_.pop_front();
  if (task->TryClaim()) task->RunClaimed();
  task->WaitDone();
  // After a failure or Cancel() the tasks stopped by it report Cancelled: the first real
  // error is the one to return.
  if (!task->status.ok() && first_error_.ok() &&
      !(task->status.code() == StatusCode::kCancelled && token_.cancelled())) {
    first_error_ = task->status;
  }
  if (!first_error_.ok()) token_.Cancel();
  return first_error_;
}

Status TaskGroup::Wait() {
  while (!pending_.empty()) {
    Status st = WaitOldest();
    (void)st;  // keep draining: every task must be finished before Wait returns
  }
  if (first_error_.ok() && token_.cancelled()) {
    return Status::Cancelled("task group was cancelled");
  }
  return first_error_;
}

void TaskGroup::Cancel() {
  token_.Cancel();
  for (auto& task : pending_) task->CancelIfQueued();
}

}  // namespace lance::io
