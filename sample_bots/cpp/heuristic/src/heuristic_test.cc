// Unit tests of the portable heuristic's figures and scores (`make test`).
#include <cstdlib>
#include <iostream>
#include <string>

#include "heuristic.h"

namespace {

namespace pb = cardarena::v1;
using heuristic::CardFigures;
using heuristic::Family;

int failures = 0;

void Expect(bool condition, const std::string& what) {
  if (!condition) {
    std::cerr << "FAIL " << what << std::endl;
    ++failures;
  }
}

void ExpectEqual(int64_t actual, int64_t expected, const std::string& what) {
  Expect(actual == expected,
         what + ": " + std::to_string(actual) + " != " + std::to_string(expected));
}

// An Italian deck of 40 cards: card id = 10 x suit + rank.
pb::Deck ItalianDeck() {
  pb::Deck deck;
  deck.set_name("italian-40");
  for (int suit = 0; suit < 4; ++suit) {
    for (int rank = 0; rank < 10; ++rank) {
      pb::Card* card = deck.add_cards();
      card->set_id(10 * suit + rank);
      card->set_suit(suit);
      card->set_rank(rank);
    }
  }
  return deck;
}

int Card(int suit, int rank) { return 10 * suit + rank; }

// What the arena sends as MatchStart.card_values (docs/protocol.md, "Card values"): the
// briscola or tressette order and points, by rank index spread over the 40 cards.
pb::CardValues Values(Family family) {
  static const int kBriscolaStrength[10] = {9, 0, 8, 1, 2, 3, 4, 5, 6, 7};
  static const int kBriscolaPoints[10] = {11, 0, 10, 0, 0, 0, 0, 2, 3, 4};
  static const int kTressetteStrength[10] = {7, 8, 9, 0, 1, 2, 3, 4, 5, 6};
  static const int kTressettePoints[10] = {3, 1, 1, 0, 0, 0, 0, 1, 1, 1};
  pb::CardValues values;
  if (family == Family::kOther) return values;
  bool briscola = family == Family::kBriscola;
  for (int card = 0; card < 40; ++card) {
    values.add_trick_strength(briscola ? kBriscolaStrength[card % 10] : kTressetteStrength[card % 10]);
    values.add_points(briscola ? kBriscolaPoints[card % 10] : kTressettePoints[card % 10]);
  }
  return values;
}

pb::LegalAction Action(uint32_t id, pb::ActionKind kind, std::initializer_list<int> cards = {}) {
  pb::LegalAction action;
  action.set_id(id);
  action.set_kind(kind);
  action.set_suit(-1);
  action.set_rank(-1);
  for (int card : cards) action.add_cards(card);
  return action;
}

pb::Observation TrickObservation(std::initializer_list<std::pair<int, int>> plays, int trump) {
  pb::Observation observation;
  observation.set_game("briscola");
  observation.set_seat(0);
  observation.set_trump_suit(trump);
  for (const auto& [seat, card] : plays) {
    pb::TrickPlay* play = observation.add_trick();
    play->set_seat(seat);
    play->set_card(card);
  }
  return observation;
}

void TestFamilies() {
  Expect(heuristic::FamilyOf("briscola") == Family::kBriscola, "briscola is B");
  Expect(heuristic::FamilyOf("briscola-chiamata-due-mazzi") == Family::kBriscola, "chiamata is B");
  Expect(heuristic::FamilyOf("madrasso") == Family::kBriscola, "madrasso is B");
  Expect(heuristic::FamilyOf("tressette-toro") == Family::kTressette, "tressette-toro is T");
  Expect(heuristic::FamilyOf("scopa") == Family::kOther, "scopa is N");
}

void TestValues() {
  CardFigures briscola(Family::kBriscola, ItalianDeck(), Values(Family::kBriscola));
  ExpectEqual(briscola.Value(Card(0, 0)), 16 * 11 + 9, "B ace");
  ExpectEqual(briscola.Value(Card(0, 2)), 16 * 10 + 8, "B three");
  ExpectEqual(briscola.Value(Card(0, 1)), 0, "B two");
  ExpectEqual(briscola.Value(Card(3, 9)), 16 * 4 + 7, "B king");
  ExpectEqual(briscola.Value(-1), 0, "hidden card");
  CardFigures tressette(Family::kTressette, ItalianDeck(), Values(Family::kTressette));
  ExpectEqual(tressette.Value(Card(1, 0)), 16 * 3 + 7, "T ace");
  ExpectEqual(tressette.Value(Card(1, 2)), 16 * 1 + 9, "T three");
  ExpectEqual(tressette.Value(Card(1, 3)), 0, "T four");
  CardFigures other(Family::kOther, ItalianDeck(), Values(Family::kOther));
  ExpectEqual(other.Value(Card(2, 6)), 6, "N seven");
}

void TestValuesComeFromTheWire() {
  pb::CardValues made_up;
  for (int card = 0; card < 40; ++card) {
    made_up.add_points(card % 7);
    made_up.add_trick_strength(39 - card);
  }
  for (Family family : {Family::kBriscola, Family::kTressette}) {
    CardFigures figures(family, ItalianDeck(), made_up);
    for (int card = 0; card < 40; ++card) {
      ExpectEqual(figures.Value(card), 16 * (card % 7) + 39 - card, "made-up card values");
    }
  }
  CardFigures other(Family::kOther, ItalianDeck(), made_up);
  ExpectEqual(other.Value(Card(1, 9)), 9, "family N keeps the rank index");
  CardFigures bare(Family::kBriscola, ItalianDeck(), pb::CardValues());
  ExpectEqual(bare.Value(Card(0, 0)), 0, "no card values: the rank index, no points");
  ExpectEqual(bare.Value(Card(0, 9)), 9, "no card values: the king's rank index");
}

void TestPlays() {
  CardFigures figures(Family::kBriscola, ItalianDeck(), Values(Family::kBriscola));
  // The opponent (seat 1) led the ace of suit 0; trump is suit 2.
  pb::Observation observation = TrickObservation({{1, Card(0, 0)}}, 2);
  pb::LegalAction trump_two = Action(1, pb::ACTION_KIND_PLAY, {Card(2, 1)});
  pb::LegalAction three = Action(2, pb::ACTION_KIND_PLAY, {Card(0, 2)});
  pb::LegalAction king = Action(3, pb::ACTION_KIND_PLAY, {Card(1, 9)});
  ExpectEqual(heuristic::Score(figures, observation, trump_two), 3000, "trump takes the ace");
  ExpectEqual(heuristic::Score(figures, observation, three), 2000 - 168, "three under the ace");
  ExpectEqual(heuristic::Score(figures, observation, king), 2000 - 71, "off-suit king");
  observation.add_teammates(1);
  ExpectEqual(heuristic::Score(figures, observation, trump_two), 2000, "teammate's trick");
  // A low trick is not worth a winning card: a four led, the seven of its suit beats it.
  pb::Observation low = TrickObservation({{1, Card(0, 3)}}, 2);
  ExpectEqual(heuristic::Score(figures, low, Action(4, pb::ACTION_KIND_PLAY, {Card(0, 6)})),
              2000 - 4, "four and seven make 0 points");
  // The king takes a knight: 3 + 4 points, short of 10.
  pb::Observation knight = TrickObservation({{1, Card(0, 8)}}, 2);
  ExpectEqual(heuristic::Score(figures, knight, Action(5, pb::ACTION_KIND_PLAY, {Card(0, 9)})),
              2000 - 71, "7 points are not enough");
  // Hidden cards in the trick are skipped.
  pb::Observation hidden = TrickObservation({{1, -1}, {2, Card(0, 2)}}, -1);
  ExpectEqual(heuristic::Score(figures, hidden, Action(6, pb::ACTION_KIND_PLAY, {Card(0, 0)})),
              3000 - 185, "ace takes the three after a hidden card");
  pb::Observation all_hidden = TrickObservation({{1, -1}}, 2);
  ExpectEqual(heuristic::Score(figures, all_hidden, Action(8, pb::ACTION_KIND_PLAY, {Card(2, 0)})),
              2000 - 185, "no visible card to take");
  ExpectEqual(heuristic::Score(figures, observation,
                               Action(7, pb::ACTION_KIND_PLAY_FACE_DOWN, {Card(2, 1)})),
              2000, "a face-down play is never a winning card");
}

void TestCaptures() {
  CardFigures figures(Family::kOther, ItalianDeck(), Values(Family::kOther));
  pb::Observation observation;
  observation.set_game("scopa");
  observation.add_table(Card(1, 6));
  observation.add_table(Card(0, 2));
  pb::LegalAction settebello = Action(1, pb::ACTION_KIND_CAPTURE, {Card(2, 6)});
  settebello.add_captured(Card(1, 6));
  // 1 card, 1 coin, 2 sevens, the settebello.
  ExpectEqual(heuristic::Score(figures, observation, settebello), 3000 + 10 + 5 + 6 + 20,
              "settebello capture");
  pb::LegalAction sweep = Action(2, pb::ACTION_KIND_CAPTURE, {Card(3, 9)});
  sweep.add_captured(Card(1, 6));
  sweep.add_captured(Card(0, 2));
  ExpectEqual(heuristic::Score(figures, observation, sweep), 3000 + 20 + 5 + 3 + 20 + 100,
              "scopa");
}

void TestOtherKinds() {
  CardFigures figures(Family::kBriscola, ItalianDeck(), Values(Family::kBriscola));
  pb::Observation observation;
  observation.set_game("briscola-31");
  observation.set_seat(0);
  observation.add_points(20);
  observation.add_points(5);
  observation.add_points(11);
  pb::LegalAction declare = Action(1, pb::ACTION_KIND_DECLARE);
  ExpectEqual(heuristic::Score(figures, observation, declare), -5000, "20 points: no claim");
  observation.add_teammates(2);
  ExpectEqual(heuristic::Score(figures, observation, declare), 4000, "20 + 11 points: claim");
  observation.set_game("madrasso");
  observation.clear_teammates();
  ExpectEqual(heuristic::Score(figures, observation, declare), 4000, "declare elsewhere");

  pb::LegalAction bid = Action(2, pb::ACTION_KIND_BID);
  ExpectEqual(heuristic::Score(figures, observation, bid), 900, "unset bid");
  bid.set_value(61);
  ExpectEqual(heuristic::Score(figures, observation, bid), 900 - 61, "bid 61");

  pb::LegalAction call_card = Action(3, pb::ACTION_KIND_CALL, {Card(0, 0)});
  call_card.set_rank(0);
  ExpectEqual(heuristic::Score(figures, observation, call_card), 1000 + 185, "call a card");
  pb::LegalAction call_rank = Action(4, pb::ACTION_KIND_CALL);
  call_rank.set_rank(7);
  ExpectEqual(heuristic::Score(figures, observation, call_rank), 1007, "call a rank");
  pb::LegalAction call_suit = Action(5, pb::ACTION_KIND_CALL);
  call_suit.set_suit(2);
  ExpectEqual(heuristic::Score(figures, observation, call_suit), 1000, "call a suit");

  ExpectEqual(heuristic::Score(figures, observation, Action(6, pb::ACTION_KIND_SWAP)), 5000,
              "swap");
  ExpectEqual(heuristic::Score(figures, observation, Action(7, pb::ACTION_KIND_PASS)), 600,
              "pass");
  ExpectEqual(heuristic::Score(figures, observation,
                               Action(8, pb::ACTION_KIND_DISCARD, {Card(0, 2)})),
              1000 - 168, "discard a three");
  ExpectEqual(heuristic::Score(figures, observation, Action(9, pb::ACTION_KIND_REDEAL)), 0,
              "redeal");
}

// An observation of tressette-non-prendere for seat 0, holding `thirds` of its own.
pb::Observation AvoidObservation(std::initializer_list<std::pair<int, int>> plays, int thirds) {
  pb::Observation observation = TrickObservation(plays, -1);
  observation.set_game("tressette-non-prendere");
  observation.add_points(thirds);
  observation.add_points(0);
  observation.add_points(0);
  return observation;
}

void TestAvoidGame() {
  CardFigures figures(Family::kTressette, ItalianDeck(), Values(Family::kTressette));
  // A two (1 third) over a four is a winning card only while the seat needs a point.
  pb::LegalAction two = Action(1, pb::ACTION_KIND_PLAY, {Card(0, 1)});
  ExpectEqual(heuristic::Score(figures, AvoidObservation({{1, Card(0, 3)}}, 2), two),
              3000 - (16 + 8), "avoid: take a third while needy");
  ExpectEqual(heuristic::Score(figures, AvoidObservation({{1, Card(0, 3)}}, 3), two),
              1000 - (16 + 8), "avoid: a card taking the lead once it has a point");
  // Following a two: the ace and king lose the trick, the three takes it.
  pb::Observation following = AvoidObservation({{1, Card(0, 1)}}, 3);
  ExpectEqual(heuristic::Score(figures, following, Action(2, pb::ACTION_KIND_PLAY, {Card(0, 0)})),
              2000 + 16 * 3 + 7, "avoid: shed an ace under a two");
  ExpectEqual(heuristic::Score(figures, following, Action(3, pb::ACTION_KIND_PLAY, {Card(0, 9)})),
              2000 + 16 + 6, "avoid: shed a king under a two");
  pb::DecisionRequest request;
  *request.mutable_observation() = following;
  *request.add_legal_actions() = Action(4, pb::ACTION_KIND_PLAY, {Card(0, 2)});
  *request.add_legal_actions() = Action(3, pb::ACTION_KIND_PLAY, {Card(0, 9)});
  *request.add_legal_actions() = Action(2, pb::ACTION_KIND_PLAY, {Card(0, 0)});
  ExpectEqual(heuristic::Choose(figures, request), 2, "avoid: the dearest card that loses");
  // Leading: the strongest card while needy, else the cheapest.
  pb::DecisionRequest lead;
  *lead.add_legal_actions() = Action(1, pb::ACTION_KIND_PLAY, {Card(0, 0)});
  *lead.add_legal_actions() = Action(2, pb::ACTION_KIND_PLAY, {Card(2, 2)});
  *lead.add_legal_actions() = Action(3, pb::ACTION_KIND_PLAY, {Card(3, 3)});
  *lead.mutable_observation() = AvoidObservation({}, 2);
  ExpectEqual(heuristic::Choose(figures, lead), 2, "avoid: lead the three while needy");
  *lead.mutable_observation() = AvoidObservation({}, 5);
  ExpectEqual(heuristic::Choose(figures, lead), 3, "avoid: lead the four with a point");
  // Passing and setting aside: the dearest card.
  ExpectEqual(heuristic::Score(figures, following, Action(5, pb::ACTION_KIND_GIVE, {Card(0, 0)})),
              1000 + 16 * 3 + 7, "avoid: pass an ace");
  ExpectEqual(
      heuristic::Score(figures, following, Action(6, pb::ACTION_KIND_DISCARD, {Card(0, 9)})),
      1000 + 16 + 6, "avoid: set a king aside");
}

void TestChoice() {
  CardFigures figures(Family::kOther, ItalianDeck(), Values(Family::kOther));
  pb::DecisionRequest request;
  request.mutable_observation()->set_game("scopa");
  *request.add_legal_actions() = Action(9, pb::ACTION_KIND_PLAY, {Card(0, 4)});
  *request.add_legal_actions() = Action(4, pb::ACTION_KIND_PLAY, {Card(1, 4)});
  *request.add_legal_actions() = Action(2, pb::ACTION_KIND_PLAY, {Card(2, 5)});
  ExpectEqual(heuristic::Choose(figures, request), 4, "tie goes to the lowest id");
  ExpectEqual(heuristic::Choose(figures, pb::DecisionRequest()), 0, "no legal action");
}

}  // namespace

int main() {
  TestFamilies();
  TestValues();
  TestValuesComeFromTheWire();
  TestPlays();
  TestCaptures();
  TestOtherKinds();
  TestAvoidGame();
  TestChoice();
  if (failures > 0) {
    std::cerr << failures << " check(s) failed" << std::endl;
    return EXIT_FAILURE;
  }
  std::cout << "heuristic: all checks passed" << std::endl;
  return EXIT_SUCCESS;
}
