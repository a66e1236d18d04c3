// The gRPC server of a bot: one Player per match; a Play stream carries one match after another.
#ifndef CARDARENA_BOT_SERVER_H_
#define CARDARENA_BOT_SERVER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "address.h"
#include "cardarena/v1/agent.pb.h"

namespace cardarena_bot {

namespace pb = cardarena::v1;

// The protocol this bot speaks, sent in Ready.
constexpr const char* kProtocolVersion = "cardarena.v1";

// One match as the bot plays it.
class Player {
 public:
  virtual ~Player() = default;
  // The id of one of the request's legal actions.
  virtual uint32_t Decide(const pb::DecisionRequest& request) = 0;
  // The match is over (its returns, reasons and whole event log).
  virtual void End(const pb::MatchEnd& /*end*/) {}
};

// Makes the Player of a match from its MatchStart.
using PlayerFactory = std::function<std::unique_ptr<Player>(const pb::MatchStart&)>;

// A bot: its name and version (for Ready) and its Player factory.
struct BotInfo {
  std::string name;
  std::string version;
  PlayerFactory new_player;
};

// Serves the bot at the address until SIGTERM or SIGINT, then stops cleanly and removes the
// unix socket; returns the process's exit status (0, or 2 when it cannot listen). The stop
// signals must already be blocked in every thread (see BlockStopSignals).
int Serve(const BotInfo& bot, const Address& address);

// Blocks SIGTERM and SIGINT in the calling thread and in every thread started after it, so
// Serve can wait for them; call it first in main.
void BlockStopSignals();

// The whole of main: block the stop signals, find the address, serve.
int Run(const BotInfo& bot, int argc, char** argv);

}  // namespace cardarena_bot

#endif  // CARDARENA_BOT_SERVER_H_
