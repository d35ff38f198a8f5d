// The TLS half of EdgeStream: the only place the TLS stream's reads, writes
// and server handshake are compiled (see edge_stream.hpp).
#include "server/edge/edge_stream.hpp"

namespace gofish::server {

EdgeStream::EdgeStream(boost::beast::tcp_stream&& tcp, std::shared_ptr<boost::asio::ssl::context> context)
    : plain_(std::move(tcp)), context_(std::move(context)) {
  tls_.emplace(std::move(*plain_), *context_);
  plain_.reset();
}

EdgeStream::~EdgeStream() = default;

void EdgeStream::tls_handshake(boost::asio::const_buffer already_read, IoHandler handler) {
  tls_->async_handshake(boost::asio::ssl::stream_base::server, already_read, std::move(handler));
}

void EdgeStream::tls_read_some(boost::asio::mutable_buffer buffer, IoHandler handler) {
  tls_->async_read_some(buffer, std::move(handler));
}

void EdgeStream::tls_write_some(boost::asio::const_buffer buffer, IoHandler handler) {
  tls_->async_write_some(buffer, std::move(handler));
}

}  // namespace gofish::server
