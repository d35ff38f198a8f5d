// The names the load generator's network classes (LoadRun, Player, Room)
// share: Asio, Beast, and the clock every time they measure is read from.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/beast/websocket.hpp>

#include <chrono>

namespace gofish::load {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

}  // namespace gofish::load
