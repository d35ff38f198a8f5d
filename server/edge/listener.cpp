// The accept loop (listener.hpp): per-address and total socket caps, the
// spare descriptor for when the process runs out, and the hand-off of each
// admitted socket to an HttpSession on a strand of its own.
#include "server/edge/listener.hpp"

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <limits>
#include <memory>
#include <string>

#include "server/edge/http_session.hpp"
#include "server/edge/server_state.hpp"

namespace gofish::server {

namespace {

// After an accept error other than running out of descriptors, wait this
// long rather than spin.
constexpr std::chrono::milliseconds kAcceptRetry{100};

}  // namespace

Listener::Listener(Server::State& state, PortRole role)
    : state_(state), role_(role), acceptor_(state.ioc), retry_timer_(state.control_strand) {}

std::size_t Listener::socket_cap(const Limits& limits) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) {
    return std::numeric_limits<std::size_t>::max();
  }
  const auto descriptors = static_cast<std::size_t>(limit.rlim_cur);
  return descriptors > limits.descriptor_reserve ? descriptors - limits.descriptor_reserve : 1;
}

std::uint16_t Listener::open(const tcp::endpoint& endpoint) {
  acceptor_.open(endpoint.protocol());
  acceptor_.set_option(net::socket_base::reuse_address(true));
  acceptor_.bind(endpoint);
  acceptor_.listen(net::socket_base::max_listen_connections);
  // drop_waiting_connection() accepts by hand and must not block.
  acceptor_.native_non_blocking(true);
  const auto port = acceptor_.local_endpoint().port();
  spare_descriptor_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (role_ != PortRole::kPublic) return port;
  const Limits& limits = state_.config.limits;
  if (limits.max_sockets_per_address < limits.max_connections_per_address) {
    spdlog::warn("--max-sockets-per-address {} is below --max-connections-per-address {}: every WebSocket is a "
                 "socket, so an address can have only {} connections",
                 limits.max_sockets_per_address, limits.max_connections_per_address,
                 limits.max_sockets_per_address);
  }
  if (state_.socket_cap != std::numeric_limits<std::size_t>::max()) {
    spdlog::info("sockets: at most {} open ({} from one address), {} descriptors kept back", state_.socket_cap,
                 limits.max_sockets_per_address, limits.descriptor_reserve);
  }
  return port;
}

void Listener::run() {
  net::post(state_.control_strand, [this] { do_accept(); });
}

void Listener::close() {
  beast::error_code ec;
  acceptor_.close(ec);
  retry_timer_.cancel();
}

void Listener::release() {
  close();
  if (spare_descriptor_ >= 0) ::close(spare_descriptor_);
  spare_descriptor_ = -1;
}

bool Listener::drop_waiting_connection() {
  if (spare_descriptor_ < 0) return false;
  ::close(spare_descriptor_);
  const int waiting = ::accept4(acceptor_.native_handle(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (waiting >= 0) ::close(waiting);
  spare_descriptor_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  return waiting >= 0;
}

void Listener::do_accept() {
  acceptor_.async_accept(
      net::make_strand(state_.ioc),
      net::bind_executor(state_.control_strand, [this](beast::error_code ec, tcp::socket socket) {
        on_accept(ec, std::move(socket));
      }));
}

void Listener::on_accept(beast::error_code ec, tcp::socket socket) {
  if (!acceptor_.is_open()) return;  // shutting down
  if (ec) {
    const bool out_of_descriptors = ec == net::error::no_descriptors || ec.value() == ENFILE;
    if (out_of_descriptors && drop_waiting_connection()) {
      state_.metrics->connection_refused("descriptors");
      state_.client_warning("descriptors", "accept: out of file descriptors; a connection was accepted and closed");
      return do_accept();
    }
    // Otherwise wait a little rather than spin.
    state_.client_warning("accept", "accept: {}", ec.message());
    retry_timer_.expires_after(kAcceptRetry);
    retry_timer_.async_wait([this](beast::error_code wait_ec) {
      if (!wait_ec && acceptor_.is_open()) do_accept();
    });
    return;
  }
  const auto endpoint = socket.remote_endpoint(ec);
  if (ec) {  // the peer is gone already
    socket.close(ec);
    return do_accept();
  }
  std::string address = AddressLimits::key_of(endpoint.address().to_string());
  // A trusted proxy's connection counts under the proxy's address until its
  // PROXY header names the client (HttpSession moves it there): a proxy
  // that stalls holds at most max_sockets_per_address of them.
  const bool proxied = state_.trusted_proxies.contains(endpoint.address());
  AddressLimits::Slot slot;
  if (const auto admission = state_.addresses.take(AddressLimits::Pool::kSockets, address, slot);
      admission != AddressLimits::Admission::kAdmitted) {
    const bool per_address = admission == AddressLimits::Admission::kAddressFull;
    const char* reason = per_address ? "address_sockets" : "sockets_full";
    state_.metrics->connection_refused(reason);
    state_.client_warning(reason, "socket from {} closed: {}", address,
                          per_address ? "its address has as many sockets open as it may"
                                      : "as many sockets open as the server takes");
    socket.close(ec);
    return do_accept();
  }
  socket.set_option(tcp::no_delay(true), ec);
  if (const auto bytes = state_.config.limits.socket_send_buffer_bytes; bytes > 0) {
    socket.set_option(net::socket_base::send_buffer_size(static_cast<int>(std::min<std::size_t>(
                          bytes, static_cast<std::size_t>(std::numeric_limits<int>::max())))),
                      ec);
  }
  std::make_shared<HttpSession>(state_.shared_from_this(), std::move(socket), std::move(slot), std::move(address),
                                state_.next_id++, role_, proxied && role_ != PortRole::kAdmin)
      ->run();
  do_accept();
}

}  // namespace gofish::server
