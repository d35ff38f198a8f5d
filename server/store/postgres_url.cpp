#include "server/store/postgres_url.hpp"

#include <libpq-fe.h>

namespace gofish::server {

std::string postgres_url_problem(const std::string& url) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(url.c_str(), &error);
  if (options != nullptr) {
    PQconninfoFree(options);
    return {};
  }
  std::string message = error != nullptr ? error : "out of memory";
  PQfreemem(error);
  for (auto at = message.find(url); !url.empty() && at != std::string::npos; at = message.find(url)) {
    message.replace(at, url.size(), "<the URL>");
  }
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  return message;
}

}  // namespace gofish::server
