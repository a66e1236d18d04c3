// heuristic-cpp: the portable heuristic as a Card Arena bot.
#include <memory>

#include "heuristic.h"
#include "server.h"

namespace {

// One match: the deck's card figures, then one choice per request.
class HeuristicPlayer final : public cardarena_bot::Player {
 public:
  explicit HeuristicPlayer(const cardarena::v1::MatchStart& start)
      : figures_(heuristic::FamilyOf(start.game()), start.deck(), start.card_values()) {}

  uint32_t Decide(const cardarena::v1::DecisionRequest& request) override {
    return heuristic::Choose(figures_, request);
  }

 private:
  heuristic::CardFigures figures_;
};

}  // namespace

int main(int argc, char** argv) {
  cardarena_bot::BotInfo bot{
      "heuristic-cpp", "1.0.0", [](const cardarena::v1::MatchStart& start) {
        return std::unique_ptr<cardarena_bot::Player>(new HeuristicPlayer(start));
      }};
  return cardarena_bot::Run(bot, argc, argv);
}
