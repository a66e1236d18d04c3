// The AgentService: MatchStart -> Ready, DecisionRequest -> Decision. After MatchEnd the stream
// waits for the arena's next match (Ready says keeps_stream), with a new Player, or its close.
#include "server.h"

#include <grpcpp/grpcpp.h>
#include <signal.h>

#include <chrono>
#include <exception>
#include <iostream>

#include "cardarena/v1/agent.grpc.pb.h"

namespace cardarena_bot {
namespace {

// Threads for the sync server: a few pollers and one per open stream. The sandbox allows 64
// processes and threads in all, gRPC's own threads included.
constexpr int kMaxThreads = 16;
constexpr int kMinPollers = 1;
constexpr int kMaxPollers = 2;
// Seconds open streams get to finish when the bot stops.
constexpr int kGraceSeconds = 1;
constexpr int kMaxMessageBytes = 64 << 20;

void Log(const std::string& message) { std::cerr << "cardarena_bot: " << message << std::endl; }

sigset_t StopSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  return signals;
}

class AgentService final : public pb::AgentService::Service {
 public:
  explicit AgentService(const BotInfo& bot) : bot_(bot) {}

  grpc::Status Play(grpc::ServerContext* /*context*/,
                    grpc::ServerReaderWriter<pb::PlayResponse, pb::PlayRequest>* stream)
      override {
    std::unique_ptr<Player> player;
    pb::PlayRequest request;
    while (stream->Read(&request)) {
      pb::PlayResponse response;
      switch (request.message_case()) {
        case pb::PlayRequest::kMatchStart:
          if (player) {
            return Fail(grpc::StatusCode::FAILED_PRECONDITION,
                        "a second MatchStart on the same stream: one stream plays one match");
          }
          try {
            player = bot_.new_player(request.match_start());
          } catch (const std::exception& error) {
            return Crash(error, "MatchStart");
          }
          *response.mutable_ready() = Ready();
          break;
        case pb::PlayRequest::kDecisionRequest: {
          if (!player) {
            return Fail(grpc::StatusCode::FAILED_PRECONDITION,
                        "a DecisionRequest before MatchStart");
          }
          const pb::DecisionRequest& decision_request = request.decision_request();
          pb::Decision* decision = response.mutable_decision();
          decision->set_request_id(decision_request.request_id());
          try {
            decision->set_action_id(player->Decide(decision_request));
          } catch (const std::exception& error) {
            return Crash(error, "Decide");
          }
          break;
        }
        case pb::PlayRequest::kMatchEnd:
          if (player) {
            try {
              player->End(request.match_end());
            } catch (const std::exception& error) {
              return Crash(error, "End");
            }
          }
          player.reset();
          continue;  // MatchEnd asks for no answer
        default:
          return Fail(grpc::StatusCode::INVALID_ARGUMENT, "an empty PlayRequest");
      }
      if (!stream->Write(response)) return grpc::Status::OK;
    }
    return grpc::Status::OK;
  }

 private:
  pb::Ready Ready() const {
    pb::Ready ready;
    ready.set_protocol_version(kProtocolVersion);
    ready.set_bot_name(bot_.name);
    ready.set_bot_version(bot_.version);
    ready.set_keeps_stream(true);
    return ready;
  }

  grpc::Status Fail(grpc::StatusCode code, const std::string& details) const {
    Log("bot " + bot_.name + ": " + details);
    return grpc::Status(code, details);
  }

  grpc::Status Crash(const std::exception& error, const std::string& where) const {
    return Fail(grpc::StatusCode::INTERNAL, "raised in " + where + ": " + error.what());
  }

  const BotInfo& bot_;
};

std::unique_ptr<grpc::Server> Start(AgentService* service, const Address& address,
                                    int* port) {
  grpc::ServerBuilder builder;
  builder.AddListeningPort(address.target, grpc::InsecureServerCredentials(), port);
  builder.RegisterService(service);
  grpc::ResourceQuota quota("cardarena-bot");
  quota.SetMaxThreads(kMaxThreads);
  builder.SetResourceQuota(quota);
  builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::NUM_CQS, 1);
  builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MIN_POLLERS, kMinPollers);
  builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MAX_POLLERS, kMaxPollers);
  builder.SetMaxReceiveMessageSize(kMaxMessageBytes);
  if (!address.is_unix()) builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  return builder.BuildAndStart();
}

std::string BoundAddress(const Address& address, int port) {
  if (address.is_unix()) return address.target;
  return address.target.substr(0, address.target.rfind(':') + 1) + std::to_string(port);
}

}  // namespace

void BlockStopSignals() {
  sigset_t signals = StopSignals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
}

int Serve(const BotInfo& bot, const Address& address) {
  AgentService service(bot);
  int port = 0;
  std::unique_ptr<grpc::Server> server = Start(&service, address, &port);
  if (!server || port == 0) {
    std::cerr << "error: cannot listen on " << address.target
              << ": the address is in use or not available" << std::endl;
    return 2;
  }
  if (address.is_unix()) OpenSocket(address.unix_path);
  Log("bot " + bot.name + " " + bot.version + " listening on " + BoundAddress(address, port));

  sigset_t signals = StopSignals();
  int signal_number = 0;
  sigwait(&signals, &signal_number);

  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(kGraceSeconds));
  server->Wait();
  if (address.is_unix()) RemoveSocket(address.unix_path);
  Log("bot " + bot.name + " stopped");
  return 0;
}

int Run(const BotInfo& bot, int argc, char** argv) {
  BlockStopSignals();
  Address address;
  try {
    address = ParseAddress(ResolveAddress(argc, argv));
  } catch (const AddressError& error) {
    std::cerr << "error: " << error.what() << std::endl;
    return 2;
  }
  return Serve(bot, address);
}

}  // namespace cardarena_bot
