// The portable heuristic: card figures, the score of each action kind, and the choice.
#include "heuristic.h"

#include <algorithm>
#include <array>
#include <utility>

namespace heuristic {
namespace {

// The trick points a winning card must reach: 10 in family B, 3 (thirds) in family T.
constexpr int kBriscolaThreshold = 10;
constexpr int kTressetteThreshold = 3;

// Italian decks: coins are suit 1, sevens rank 6.
constexpr int kCoins = 1;
constexpr int kSeven = 6;

constexpr int64_t kSwap = 5000;
constexpr int64_t kDeclare = 4000;
constexpr int64_t kFalseDeclare = -5000;
constexpr int64_t kCapture = 3000;
constexpr int64_t kPlay = 2000;
constexpr int64_t kWinningPlay = 3000;
constexpr int64_t kNeutral = 1000;
constexpr int64_t kPass = 600;
constexpr int64_t kBid = 900;
constexpr int kBriscola31Target = 31;

// The game a seat loses by taking the most points, or none: it wants one point, then no more.
const char kAvoidGame[] = "tressette-non-prendere";
// The thirds of one point in family T.
constexpr int kOnePoint = 3;

bool StartsWith(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

bool Contains(const google::protobuf::RepeatedField<int32_t>& values, int value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

// The card points of one seat plus its teammates', as the observation shows them.
int OwnSidePoints(const pb::Observation& observation) {
  auto points_of = [&observation](int seat) {
    return seat >= 0 && seat < observation.points_size() ? observation.points(seat) : 0;
  };
  int total = points_of(observation.seat());
  for (int teammate : observation.teammates()) total += points_of(teammate);
  return total;
}

// True while the seat's own points are under one point (3 thirds).
bool NeedsAPoint(const pb::Observation& observation) {
  int seat = observation.seat();
  int own = seat >= 0 && seat < observation.points_size() ? observation.points(seat) : 0;
  return own < kOnePoint;
}

int64_t DeclareScore(const pb::Observation& observation) {
  if (observation.game() != "briscola-31") return kDeclare;
  return OwnSidePoints(observation) >= kBriscola31Target ? kDeclare : kFalseDeclare;
}

int64_t CaptureScore(const CardFigures& figures, const pb::Observation& observation,
                     const pb::LegalAction& action) {
  int coins = 0, sevens = 0, settebello = 0;
  if (figures.italian()) {
    auto count = [&](int card) {
      if (!figures.Known(card)) return;
      bool coin = figures.Suit(card) == kCoins;
      bool seven = figures.Rank(card) == kSeven;
      coins += coin;
      sevens += seven;
      settebello += coin && seven;
    };
    for (int card : action.cards()) count(card);
    for (int card : action.captured()) count(card);
  }
  int64_t score = kCapture + 10 * action.captured_size() + 5 * coins + 3 * sevens +
                  20 * settebello;
  if (action.captured_size() == observation.table_size()) score += 100;
  return score;
}

int64_t CallScore(const CardFigures& figures, const pb::LegalAction& action) {
  if (action.cards_size() == 1) return kNeutral + figures.Value(action.cards(0));
  if (action.rank() >= 0) return kNeutral + action.rank();
  return kNeutral;
}

// True when `card` would take the trick's lead from `best` (same suit and stronger, or trump
// over a card that is not).
bool Beats(const CardFigures& figures, int trump_suit, int card, int best) {
  int suit = figures.Suit(card);
  int best_suit = figures.Suit(best);
  if (suit == best_suit && figures.Strength(card) > figures.Strength(best)) return true;
  return trump_suit >= 0 && suit == trump_suit && best_suit != trump_suit;
}

// The best visible card of the trick so far and its seat; -1 and -1 when none is visible.
std::pair<int, int> TrickBest(const CardFigures& figures, const pb::Observation& observation) {
  int best = -1;
  int best_seat = -1;
  for (const pb::TrickPlay& play : observation.trick()) {
    if (!figures.Known(play.card())) continue;
    if (best < 0 || Beats(figures, observation.trump_suit(), play.card(), best)) {
      best = play.card();
      best_seat = play.seat();
    }
  }
  return {best, best_seat};
}

// A PLAY of the avoid game that is no winning card: lead the strongest card while the seat
// needs a point, else the cheapest; follow with the dearest card that does not take the lead,
// else the cheapest. A play of other than one visible card scores as in any game.
int64_t AvoidPlayScore(const CardFigures& figures, const pb::Observation& observation,
                       const pb::LegalAction& action) {
  if (action.cards_size() != 1 || !figures.Known(action.cards(0))) {
    return kPlay - figures.Value(action.cards());
  }
  int card = action.cards(0);
  if (observation.trick_size() == 0) {
    return NeedsAPoint(observation) ? kPlay + figures.Strength(card)
                                    : kPlay - figures.Value(card);
  }
  int best = TrickBest(figures, observation).first;
  if (best >= 0 && Beats(figures, observation.trump_suit(), card, best)) {
    return kNeutral - figures.Value(card);
  }
  return kPlay + figures.Value(card);
}

}  // namespace

Family FamilyOf(const std::string& game) {
  if (StartsWith(game, "briscola") || game == "madrasso") return Family::kBriscola;
  if (StartsWith(game, "tressette")) return Family::kTressette;
  return Family::kOther;
}

CardFigures::CardFigures(Family family, const pb::Deck& deck, const pb::CardValues& values)
    : family_(family), italian_(StartsWith(deck.name(), "italian")) {
  bool wire = family != Family::kOther;
  for (const pb::Card& card : deck.cards()) {
    if (card.id() < 0) continue;
    if (static_cast<size_t>(card.id()) >= cards_.size()) cards_.resize(card.id() + 1);
    Figure figure{true, card.suit(), card.rank(), std::max(card.rank(), 0), 0};
    if (wire && card.id() < values.trick_strength_size()) {
      figure.strength = values.trick_strength(card.id());
    }
    if (wire && card.id() < values.points_size()) figure.points = values.points(card.id());
    cards_[card.id()] = figure;
  }
}

bool CardFigures::Known(int card) const {
  return card >= 0 && static_cast<size_t>(card) < cards_.size() && cards_[card].known;
}

int CardFigures::Suit(int card) const { return Known(card) ? cards_[card].suit : -1; }

int CardFigures::Rank(int card) const { return Known(card) ? cards_[card].rank : -1; }

int CardFigures::Strength(int card) const { return Known(card) ? cards_[card].strength : 0; }

int CardFigures::Points(int card) const { return Known(card) ? cards_[card].points : 0; }

int CardFigures::Value(int card) const {
  return Known(card) ? 16 * Points(card) + Strength(card) : 0;
}

int CardFigures::Value(const google::protobuf::RepeatedField<int32_t>& cards) const {
  int total = 0;
  for (int card : cards) total += Value(card);
  return total;
}

bool IsWinningCard(const CardFigures& figures, const pb::Observation& observation,
                   const pb::LegalAction& action) {
  if (figures.family() == Family::kOther) return false;
  if (action.kind() != pb::ACTION_KIND_PLAY || action.cards_size() != 1) return false;
  if (observation.trick_size() == 0) return false;
  int card = action.cards(0);
  if (!figures.Known(card)) return false;
  // The avoid game takes a trick worth anything, and only while the seat needs a point.
  bool avoid = observation.game() == kAvoidGame;
  if (avoid && !NeedsAPoint(observation)) return false;
  auto [best, best_seat] = TrickBest(figures, observation);
  // A trick whose cards are all hidden has no best card to take.
  if (best < 0 || Contains(observation.teammates(), best_seat)) return false;
  if (!Beats(figures, observation.trump_suit(), card, best)) return false;
  int trick_points = 0;
  for (const pb::TrickPlay& play : observation.trick()) {
    if (figures.Known(play.card())) trick_points += figures.Points(play.card());
  }
  int threshold = avoid ? 1
                  : figures.family() == Family::kBriscola ? kBriscolaThreshold
                                                          : kTressetteThreshold;
  return trick_points + figures.Points(card) >= threshold;
}

int64_t Score(const CardFigures& figures, const pb::Observation& observation,
              const pb::LegalAction& action) {
  switch (action.kind()) {
    case pb::ACTION_KIND_SWAP:
      return kSwap;
    case pb::ACTION_KIND_DECLARE:
      return DeclareScore(observation);
    case pb::ACTION_KIND_CAPTURE:
      return CaptureScore(figures, observation, action);
    case pb::ACTION_KIND_PLAY:
    case pb::ACTION_KIND_PLAY_FACE_DOWN: {
      if (IsWinningCard(figures, observation, action)) {
        return kWinningPlay - figures.Value(action.cards());
      }
      if (action.kind() == pb::ACTION_KIND_PLAY && observation.game() == kAvoidGame) {
        return AvoidPlayScore(figures, observation, action);
      }
      return kPlay - figures.Value(action.cards());
    }
    case pb::ACTION_KIND_KEEP:
    case pb::ACTION_KIND_DONE:
    case pb::ACTION_KIND_DRAW:
      return kNeutral;
    case pb::ACTION_KIND_GIVE:
    case pb::ACTION_KIND_DISCARD:
      if (observation.game() == kAvoidGame) return kNeutral + figures.Value(action.cards());
      return kNeutral - figures.Value(action.cards());
    case pb::ACTION_KIND_CALL:
      return CallScore(figures, action);
    case pb::ACTION_KIND_PASS:
      return kPass;
    case pb::ACTION_KIND_BID:
      return kBid - (action.has_value() ? action.value() : 0);
    default:
      return 0;
  }
}

uint32_t Choose(const CardFigures& figures, const pb::DecisionRequest& request) {
  const pb::LegalAction* best = nullptr;
  int64_t best_score = 0;
  for (const pb::LegalAction& action : request.legal_actions()) {
    int64_t score = Score(figures, request.observation(), action);
    if (best == nullptr || score > best_score ||
        (score == best_score && action.id() < best->id())) {
      best = &action;
      best_score = score;
    }
  }
  return best == nullptr ? 0 : best->id();
}

}  // namespace heuristic
