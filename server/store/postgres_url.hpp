// Whether a string is a connection string libpq accepts (a postgresql:// URI
// or key=value pairs), asked of libpq's own parser without connecting. The
// configuration checks --postgres-url with it, so that libpq stays inside
// the store.
#pragma once

#include <string>

namespace gofish::server {

// Empty if libpq parses `url`; otherwise libpq's reason, with `url` itself
// (which may hold a password) replaced by "<the URL>".
std::string postgres_url_problem(const std::string& url);

}  // namespace gofish::server
