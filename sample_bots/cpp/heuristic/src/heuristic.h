// The portable heuristic (docs/portable-heuristic.md): every legal action gets a score, the
// highest wins, ties go to the lowest action id.
#ifndef HEURISTIC_HEURISTIC_H_
#define HEURISTIC_HEURISTIC_H_

#include <cstdint>
#include <string>
#include <vector>

#include "cardarena/v1/agent.pb.h"

namespace heuristic {

namespace pb = cardarena::v1;

// The card families of the strategy: Briscola-like, Tressette-like, and every other game.
enum class Family { kBriscola, kTressette, kOther };

// The family of a game id: `briscola*` and `madrasso` are B, `tressette*` T, the rest N.
Family FamilyOf(const std::string& game);

// What the strategy knows of each card of the deck: suit, rank, strength and points. In
// families B and T strength and points are MatchStart.card_values' trick_strength and points
// (a card they do not cover has its rank index and no points); family N uses the rank index.
class CardFigures {
 public:
  CardFigures(Family family, const pb::Deck& deck, const pb::CardValues& values);

  Family family() const { return family_; }
  // True for the Italian decks, where coins, sevens and the settebello count in captures.
  bool italian() const { return italian_; }

  // False for a hidden card (-1) or an id outside the deck.
  bool Known(int card) const;
  int Suit(int card) const;
  int Rank(int card) const;
  int Strength(int card) const;
  int Points(int card) const;
  // 16 x points + strength; a hidden card is worth nothing.
  int Value(int card) const;
  int Value(const google::protobuf::RepeatedField<int32_t>& cards) const;

 private:
  struct Figure {
    bool known = false;
    int suit = -1;
    int rank = -1;
    int strength = 0;
    int points = 0;
  };

  Family family_;
  bool italian_;
  std::vector<Figure> cards_;
};

// The score of one legal action for this observation.
int64_t Score(const CardFigures& figures, const pb::Observation& observation,
              const pb::LegalAction& action);

// True when a single-card PLAY takes the trick in progress, worth enough points, from a seat
// that is not a teammate (families B and T only); in tressette-non-prendere, a trick worth any
// point, and only while the seat has taken under one point (3 thirds).
bool IsWinningCard(const CardFigures& figures, const pb::Observation& observation,
                   const pb::LegalAction& action);

// The id of the best-scored legal action (ties to the lowest id), 0 when there is none.
uint32_t Choose(const CardFigures& figures, const pb::DecisionRequest& request);

}  // namespace heuristic

#endif  // HEURISTIC_HEURISTIC_H_
