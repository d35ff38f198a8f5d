// The PostgreSQL store's leases (which node owns a room) and handovers (a
// node asking the owner to let a room go, by NOTIFY on its channel).
#include <libpq-fe.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "server/store/postgres_store.hpp"
#include "server/store/postgres_result.hpp"
#include "server/store/postgres_step.hpp"

namespace gofish::server {

using namespace postgres_statements;
using postgres_step::step;

void PostgresStore::fence_as(const std::string& node) {
  {
    std::lock_guard lock(mutex_);
    // The node's count of leases lost, 0 if new; read by the first batch.
    with_retry([&] { run(step(kAddNodeFence, node)); });
    std::lock_guard fence(fence_->mutex);
    fence_->node = node;
    fence_->losses = -1;
  }
  // Handover requests come on a connection of their own: were they heard
  // on this one, any query run here could take one in, and a wait on the
  // socket would miss it.
  auto listener = std::shared_ptr<PostgresStore>(new PostgresStore(*this, Role::kListener));
  std::lock_guard lock(mutex_);
  listener_ = std::move(listener);
}

void PostgresStore::listen() {
  std::string node;
  {
    std::lock_guard fence(fence_->mutex);
    node = fence_->node;
  }
  if (!listens_ || node.empty()) return;
  const std::string channel = kHandoverChannel + node;
  char* quoted = PQescapeIdentifier(conn_, channel.c_str(), channel.size());
  if (quoted == nullptr) throw StoreError("listening for handovers: " + Result::one_line(PQerrorMessage(conn_)));
  const std::string sql = std::string("LISTEN ") + quoted;
  PQfreemem(quoted);
  exec(sql.c_str());
}

std::optional<std::int64_t> PostgresStore::take_lease(const std::string& code, const std::string& node,
                                                      std::chrono::milliseconds ttl) {
  std::lock_guard lock(mutex_);
  return with_retry([&]() -> std::optional<std::int64_t> {
    const Result rows = run(step(kTakeLease, code, node, static_cast<std::int64_t>(ttl.count())));
    if (rows.rows() == 0) return std::nullopt;
    const std::int64_t epoch = rows.integer(0, 0);
    std::lock_guard fence(fence_->mutex);
    if (node == fence_->node) fence_->epochs[code] = epoch;
    return epoch;
  });
}

std::vector<std::string> PostgresStore::renew_leases(const std::string& node, std::chrono::milliseconds ttl) {
  std::lock_guard lock(mutex_);
  return with_retry([&] {
    std::vector<std::string> held;
    const Result rows = run(step(kRenewLeases, node, static_cast<std::int64_t>(ttl.count())));
    for (int i = 0; i < rows.rows(); ++i) held.push_back(rows.bytes(i, 0));
    std::lock_guard fence(fence_->mutex);
    if (node == fence_->node) {
      std::erase_if(fence_->epochs,
                    [&](const auto& entry) { return std::find(held.begin(), held.end(), entry.first) == held.end(); });
    }
    return held;
  });
}

void PostgresStore::release_leases(const std::string& node, const std::vector<std::string>& codes) {
  std::lock_guard lock(mutex_);
  with_retry([&] {
    if (codes.empty()) {
      run(step(kReleaseAllLeases, node));
    } else {
      // A text[] literal: room codes are letters and digits only.
      std::string array = "{";
      for (const auto& code : codes) array += (array.size() > 1 ? "," : "") + code;
      array += "}";
      Step release = step(kReleaseLeases, node);
      release.values.push_back(array);
      release.formats.push_back(0);
      release.nulls.push_back(0);
      run(release);
    }
  });
  std::lock_guard fence(fence_->mutex);
  if (node == fence_->node) {
    if (codes.empty()) {
      fence_->epochs.clear();
    } else {
      for (const auto& code : codes) fence_->epochs.erase(code);
    }
  }
}

std::optional<std::string> PostgresStore::ask_handover(const std::string& code, const std::string& asker,
                                                       const std::string& asked_before) {
  std::lock_guard lock(mutex_);
  return with_retry([&]() -> std::optional<std::string> {
    const Result rows = run(step(kAskHandover, code, std::string(kHandoverChannel), asker, asked_before));
    if (rows.rows() == 0) return std::nullopt;
    return rows.bytes(0, 0);
  });
}

std::shared_ptr<PostgresStore> PostgresStore::listener() const {
  std::lock_guard lock(mutex_);
  return listener_;
}

std::vector<std::string> PostgresStore::handover_requests() {
  const auto listener = this->listener();
  return listener ? listener->notifications() : std::vector<std::string>{};
}

int PostgresStore::handover_socket() {
  const auto listener = this->listener();
  if (!listener) return -1;
  std::lock_guard lock(listener->mutex_);
  return listener->connection_lost() ? -1 : PQsocket(listener->conn_);
}

std::vector<std::string> PostgresStore::notifications() {
  std::lock_guard lock(mutex_);
  reconnect_if_lost();  // also reads what arrived while idle
  std::vector<std::string> codes;
  if (PQconsumeInput(conn_) != 1) return codes;
  while (PGnotify* notify = PQnotifies(conn_)) {
    codes.emplace_back(notify->extra ? notify->extra : "");
    PQfreemem(notify);
  }
  return codes;
}

}  // namespace gofish::server
