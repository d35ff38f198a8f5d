#include "clients/cli/connection.hpp"

#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <deque>
#include <memory>

#include "server/edge/edge_stream.hpp"

namespace gofish::cli {

namespace net = boost::asio;
namespace ssl = net::ssl;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = net::ip::tcp;

namespace {

// Plain or TLS, as the address says: the server's own stream class, so
// Beast's WebSocket operations are compiled once for both.
using Socket = websocket::stream<server::EdgeStream>;

// A client context that trusts the system's authorities, or only those in
// `ca_file`, and speaks TLS 1.2 or 1.3. The peer is always verified.
std::shared_ptr<ssl::context> client_context(const std::optional<std::string>& ca_file) {
  auto context = std::make_shared<ssl::context>(ssl::context::tls_client);
  SSL_CTX_set_min_proto_version(context->native_handle(), TLS1_2_VERSION);
  context->set_verify_mode(ssl::verify_peer);
  beast::error_code ec;
  if (ca_file) {
    context->load_verify_file(*ca_file, ec);
    if (ec) throw ConnectError("Cannot read certificate authorities from " + *ca_file + ": " + ec.message() + ".");
  } else {
    context->set_default_verify_paths(ec);
    if (ec) throw ConnectError("Cannot find the system's certificate authorities: " + ec.message() + ".");
  }
  return context;
}

}  // namespace

struct Connection::Impl {
  net::io_context io;
  // The WebSocket, plain or over TLS (wss://): made in open().
  std::optional<Socket> ws;
  beast::flat_buffer buffer;
  std::deque<std::string> outbox;
  std::optional<net::posix::stream_descriptor> input;
  ConnectionHandler* handler = nullptr;
  std::optional<std::string> ended;  // why the connection ended, once it has
  bool stopping = false;

  // Liveness (watch_liveness): when the server was last heard from, and
  // whether it has been pinged since.
  std::chrono::milliseconds silence_limit{0};
  net::steady_timer liveness_timer{io};
  std::chrono::steady_clock::time_point last_heard = std::chrono::steady_clock::now();
  bool pinged = false;
  bool silent = false;

  ~Impl() {
    if (input) input->release();  // the terminal's descriptor is not ours to close
  }

  void finish(std::optional<std::string> why) {
    if (!ended && !stopping) ended = std::move(why);
    io.stop();
  }

  void read() {
    ws->async_read(buffer, [this](beast::error_code ec, std::size_t) { on_read(ec); });
  }

  void on_read(beast::error_code ec) {
    {
      if (ec) {
        if (stopping) return finish(std::nullopt);
        if (ec == websocket::error::closed) {
          const websocket::close_reason reason = ws->reason();
          std::string why = "The server closed the connection";
          if (!reason.reason.empty()) why += " (" + std::string(reason.reason.data(), reason.reason.size()) + ")";
          return finish(why + ".");
        }
        return finish("The connection to the server was lost (" + ec.message() + ").");
      }
      heard();
      const auto data = buffer.cdata();
      const std::string frame(static_cast<const char*>(data.data()), data.size());
      buffer.consume(buffer.size());
      handler->on_frame(frame);
      if (!io.stopped()) read();
    }
  }

  void write() {
    ws->async_write(net::buffer(outbox.front()), [this](beast::error_code ec, std::size_t) { on_written(ec); });
  }

  void on_written(beast::error_code ec) {
    if (ec) {
      if (stopping) return finish(std::nullopt);
      return finish("The connection to the server was lost while sending (" + ec.message() + ").");
    }
    outbox.pop_front();
    if (!outbox.empty()) return write();
    if (stopping) close();
  }

  // A polite close, bounded: a server that does not answer is left behind.
  // Beast allows no close while a write is under way, so write() calls this
  // once the outbox is empty.
  void close() {
    auto timer = std::make_shared<net::steady_timer>(io, std::chrono::seconds(1));
    timer->async_wait([this, timer](beast::error_code) { io.stop(); });
    ws->async_close(websocket::close_code::normal, [this](beast::error_code) { io.stop(); });
  }

  void heard() {
    last_heard = std::chrono::steady_clock::now();
    pinged = false;
  }

  // Looks at the silence six times per limit: a ping goes out once it has
  // lasted a third of the limit, and the server is given up for gone
  // between the limit and a sixth more.
  void watch_liveness() {
    liveness_timer.expires_after(silence_limit / 6);
    liveness_timer.async_wait([this](beast::error_code ec) {
      if (ec || stopping || ended) return;
      const auto quiet = std::chrono::steady_clock::now() - last_heard;
      if (quiet >= silence_limit) {
        silent = true;
        return finish("The server stopped answering (nothing from it for " +
                      std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(quiet).count()) +
                      " ms, not even an answer to a ping).");
      }
      if (quiet >= silence_limit / 3 && !pinged) {
        pinged = true;
        // Beast lets a ping go out beside a write under way (it waits its turn).
        ws->async_ping({}, [](beast::error_code) {});
      }
      watch_liveness();
    });
  }

  void wait_input() {
    input->async_wait(net::posix::descriptor_base::wait_read, [this](beast::error_code ec) {
      if (ec) return;
      handler->on_input();
      if (!io.stopped() && input) wait_input();
    });
  }
};

Connection::Connection(std::optional<std::string> ca_file) : impl_(std::make_unique<Impl>()), ca_file_(std::move(ca_file)) {}
Connection::~Connection() = default;

namespace {

// Why a TLS handshake failed, as a sentence: the certificate's fault when
// OpenSSL's verification says so, else the handshake's.
std::string tls_failure(SSL* session, const beast::error_code& ec, const std::string& where, bool private_ca) {
  const long verdict = SSL_get_verify_result(session);
  if (verdict != X509_V_OK) {
    std::string why = X509_verify_cert_error_string(verdict);
    if (verdict == X509_V_ERR_HOSTNAME_MISMATCH || verdict == X509_V_ERR_IP_ADDRESS_MISMATCH) {
      why = "it is not issued for that name (" + why + ")";
    } else if (verdict == X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY ||
               verdict == X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT || verdict == X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN ||
               verdict == X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT) {
      why = std::string("no authority this client trusts issued it (") + why + ")" +
            (private_ca ? "" : "; for a private authority, give its certificate with --ca-file FILE");
    }
    return "The server at " + where + " presented a certificate that cannot be trusted: " + why + ".";
  }
  return "The TLS handshake with " + where + " failed (" + ec.message() + "); does it speak TLS on that port?";
}

}  // namespace

void Connection::open(const ServerAddress& address, std::chrono::milliseconds timeout,
                      const std::optional<std::string>& room_code) {
  const std::string where = host_and_port(address);
  // A room code is letters and digits only (protocol::normalize_room_code), so it needs no escaping.
  const std::string target = room_code ? "/ws?room=" + *room_code : "/ws";
  auto& impl = *impl_;
  beast::tcp_stream transport(impl.io);
  if (address.tls) {
    impl.ws.emplace(server::EdgeStream(std::move(transport), client_context(ca_file_)));
    SSL* session = impl.ws->next_layer().tls()->native_handle();
    // The certificate must name the host: an IP address among its IP
    // addresses, a name among its DNS names. SNI carries names only.
    beast::error_code not_ip;
    net::ip::make_address(address.host, not_ip);
    if (not_ip) {
      SSL_set_tlsext_host_name(session, address.host.c_str());
      SSL_set1_host(session, address.host.c_str());
    } else {
      X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(session), address.host.c_str());
    }
  } else {
    impl.ws.emplace(server::EdgeStream(std::move(transport)));
  }
  beast::error_code ec;
  bool tls_failed = false;
  tcp::resolver resolver(impl.io);
  const auto endpoints = resolver.resolve(address.host, address.port, ec);
  if (ec) throw ConnectError("Cannot reach the server at " + where + ": " + ec.message() + ".");
  const auto started = std::chrono::steady_clock::now();
  bool done = false;
  // The handlers run in impl.io.run() below, after this function has
  // returned: they hold the stream by pointer and the steps by value, and
  // refer only to open()'s own locals (where, target, ec, done, tls_failed).
  Socket* stream = &*impl.ws;
  // The deadline covers the TCP connection, the TLS handshake and the upgrade.
  auto& tcp_stream = beast::get_lowest_layer(*stream);
  tcp_stream.expires_after(timeout);
  const auto upgrade = [stream, &where, &target, &ec, &done] {
    stream->async_handshake(where, target, [&ec, &done](beast::error_code h) {
      ec = h;
      done = true;
    });
  };
  tcp_stream.async_connect(endpoints, [stream, upgrade, &ec, &done, &tls_failed](beast::error_code e,
                                                                                  const tcp::endpoint&) {
    ec = e;
    if (ec) {
      done = true;
    } else if (auto* tls = stream->next_layer().tls()) {
      tls->async_handshake(ssl::stream_base::client, [upgrade, &ec, &done, &tls_failed](beast::error_code h) {
        ec = h;
        tls_failed = static_cast<bool>(h);
        if (h) {
          done = true;
        } else {
          upgrade();
        }
      });
    } else {
      upgrade();
    }
  });
  impl.io.run();
  impl.io.restart();
  if (!done || ec) {
    if (ec == websocket::error::upgrade_declined) {
      throw ConnectError("The server at " + where + " did not accept a WebSocket at /ws; is it a Go Fish server?");
    }
    if (ec == beast::error::timeout) {
      const auto waited =
          std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
      throw ConnectError("The server at " + where + " did not answer within " + std::to_string(waited.count()) + " ms.",
                         true);
    }
    if (tls_failed) {
      throw ConnectError(tls_failure(impl.ws->next_layer().tls()->native_handle(), ec, where, ca_file_.has_value()));
    }
    if (!address.tls && ec == beast::http::error::end_of_stream) {
      // A TLS port closes a connection that does not begin with a TLS handshake.
      throw ConnectError("The server at " + where +
                         " closed the connection at the WebSocket upgrade; if it speaks TLS, use wss://" + where + ".");
    }
    throw ConnectError("Cannot reach the server at " + where + ": " + ec.message() + ".");
  }
  beast::get_lowest_layer(*impl.ws).expires_never();
  impl.ws->set_option(websocket::stream_base::timeout::suggested(beast::role_type::client));
  impl.ws->set_option(websocket::stream_base::decorator(
      [](websocket::request_type& request) { request.set(beast::http::field::user_agent, "gofish-cli"); }));
  // Pongs, and the server's own pings, are news of it too.
  impl.ws->control_callback([&impl](websocket::frame_type, beast::string_view) { impl.heard(); });
  impl.heard();
}

void Connection::send(std::string frame) {
  impl_->outbox.push_back(std::move(frame));
  if (impl_->outbox.size() == 1) impl_->write();
}

void Connection::watch_input(int fd) {
  if (impl_->input) return;
  impl_->input.emplace(impl_->io, fd);
  if (impl_->handler) impl_->wait_input();
}

void Connection::post(std::function<void()> action) { net::post(impl_->io, std::move(action)); }

void Connection::after(std::chrono::milliseconds delay, std::function<void()> action) {
  auto timer = std::make_shared<net::steady_timer>(impl_->io, delay);
  timer->async_wait([timer, action = std::move(action)](beast::error_code ec) {
    if (!ec) action();
  });
}

void Connection::watch_liveness(std::chrono::milliseconds silence_limit) { impl_->silence_limit = silence_limit; }

bool Connection::went_silent() const { return impl_->silent; }

std::optional<std::string> Connection::run(ConnectionHandler& handler) {
  impl_->handler = &handler;
  impl_->read();
  if (impl_->input) impl_->wait_input();
  if (impl_->silence_limit.count() > 0) impl_->watch_liveness();
  impl_->io.run();
  return impl_->ended;
}

void Connection::stop() {
  if (impl_->stopping) return;
  impl_->stopping = true;
  impl_->liveness_timer.cancel();
  if (impl_->input) impl_->input->cancel();
  if (impl_->outbox.empty()) impl_->close();
}

void Connection::drop(std::string why) { impl_->finish(std::move(why)); }

}  // namespace gofish::cli
