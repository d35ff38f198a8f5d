// TlsContext (tls_context.hpp): the OpenSSL settings and the certificate
// (re)load.
#include "server/edge/tls_context.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <array>
#include <ctime>
#include <stdexcept>

namespace gofish::server {

namespace {

namespace ssl = boost::asio::ssl;

// TLS 1.2's suites: ECDHE key exchange (forward secrecy) and AEAD ciphers
// only, the strongest first; TLS 1.3 uses OpenSSL's defaults (all AEAD).
constexpr const char* kTls12Ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

// OpenSSL's most recent error as a sentence, or `fallback`.
std::string openssl_reason(const std::string& fallback) {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return fallback;
  std::array<char, 256> text{};
  ERR_error_string_n(code, text.data(), text.size());
  return text.data();
}

// Offers only HTTP/1.1 over ALPN (what Beast speaks), so a client that asks
// for h2 falls back rather than guessing.
int select_http11(SSL*, const unsigned char** out, unsigned char* out_length, const unsigned char* in,
                  unsigned int in_length, void*) {
  static constexpr unsigned char kHttp11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
  unsigned char* selected = nullptr;
  if (SSL_select_next_proto(&selected, out_length, kHttp11, sizeof kHttp11, in, in_length) !=
      OPENSSL_NPN_NEGOTIATED) {
    return SSL_TLSEXT_ERR_NOACK;
  }
  *out = selected;
  return SSL_TLSEXT_ERR_OK;
}

}  // namespace

TlsContext::TlsContext(std::filesystem::path cert_file, std::filesystem::path key_file)
    : cert_file_(std::move(cert_file)), key_file_(std::move(key_file)), current_(load()) {}

std::shared_ptr<ssl::context> TlsContext::current() const {
  std::lock_guard lock(mutex_);
  return current_;
}

std::string TlsContext::reload() {
  try {
    auto fresh = load();
    std::lock_guard lock(mutex_);
    current_ = std::move(fresh);
    return {};
  } catch (const std::exception& error) {
    return error.what();
  }
}

std::shared_ptr<ssl::context> TlsContext::load() const {
  auto context = std::make_shared<ssl::context>(ssl::context::tls_server);
  SSL_CTX* native = context->native_handle();
  context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                       ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 | ssl::context::no_compression |
                       ssl::context::single_dh_use);
  SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
  SSL_CTX_set_options(native, SSL_OP_NO_RENEGOTIATION);
  if (SSL_CTX_set_cipher_list(native, kTls12Ciphers) != 1) {
    throw std::runtime_error("TLS: the cipher list was refused: " + openssl_reason("unknown reason"));
  }
  SSL_CTX_set_alpn_select_cb(native, select_http11, nullptr);
  if (SSL_CTX_use_certificate_chain_file(native, cert_file_.c_str()) != 1) {
    throw std::runtime_error("TLS: cannot use the certificate file " + cert_file_.string() + ": " +
                             openssl_reason("not a PEM certificate"));
  }
  if (SSL_CTX_use_PrivateKey_file(native, key_file_.c_str(), SSL_FILETYPE_PEM) != 1) {
    throw std::runtime_error("TLS: cannot use the key file " + key_file_.string() + ": " +
                             openssl_reason("not a PEM private key"));
  }
  if (SSL_CTX_check_private_key(native) != 1) {
    throw std::runtime_error("TLS: the key in " + key_file_.string() + " does not belong to the certificate in " +
                             cert_file_.string());
  }
  return context;
}

std::string TlsContext::describe() const {
  const auto context = current();
  X509* certificate = SSL_CTX_get0_certificate(context->native_handle());
  if (!certificate) return "no certificate";
  std::array<char, 256> subject{};
  X509_NAME_oneline(X509_get_subject_name(certificate), subject.data(), static_cast<int>(subject.size()));
  std::string text = subject.data();
  std::tm until{};
  if (ASN1_TIME_to_tm(X509_get0_notAfter(certificate), &until) == 1) {
    std::array<char, 32> date{};
    std::strftime(date.data(), date.size(), "%Y-%m-%d %H:%M:%S UTC", &until);
    text += std::string(", valid until ") + date.data();
  }
  return text;
}

}  // namespace gofish::server
