// A stand-in ConnectionHandler until the rooms layer exists: answers hello
// with a welcome and anything else with an error. Delete it (and its use in
// main.cpp) when the rooms layer plugs in.
#pragma once

#include <memory>

#include "server/connection.hpp"

namespace gofish::server {

std::shared_ptr<ConnectionHandler> make_placeholder_handler();

}  // namespace gofish::server
