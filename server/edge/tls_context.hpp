// TlsContext: the server's TLS settings and its current certificate. Loads
// the certificate chain and private key (PEM) into an OpenSSL context that
// allows TLS 1.2 and 1.3 only, with forward-secret AEAD ciphers for 1.2
// (1.3's own suites are all of that kind) and no renegotiation or
// compression. reload() reads the files again into a new context: a
// connection keeps the context it began with (EdgeStream holds it), new
// handshakes get the new one, and a reload that fails keeps the old.
#pragma once

#include <boost/asio/ssl/context.hpp>

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>

namespace gofish::server {

class TlsContext {
 public:
  // Throws std::runtime_error naming the file and OpenSSL's reason if the
  // certificate or key cannot be used (unreadable, not PEM, not a pair).
  TlsContext(std::filesystem::path cert_file, std::filesystem::path key_file);

  // The context new connections use. Any thread.
  std::shared_ptr<boost::asio::ssl::context> current() const;

  // Reads the files again; on success new connections use them. Returns an
  // empty string, or why the files were not taken (the old ones stay). Any
  // thread.
  std::string reload();

  // The certificate's subject and expiry, for the log ("CN=example.org,
  // valid until 2027-03-01 12:00:00 UTC").
  std::string describe() const;

 private:
  std::shared_ptr<boost::asio::ssl::context> load() const;

  const std::filesystem::path cert_file_;
  const std::filesystem::path key_file_;
  mutable std::mutex mutex_;
  std::shared_ptr<boost::asio::ssl::context> current_;
};

}  // namespace gofish::server
