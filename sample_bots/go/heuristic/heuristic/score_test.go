package heuristic

import (
	"strings"
	"testing"

	"cardarena/agentpb"
)

// byRank spreads a table by rank index over the 40 cards of an Italian deck.
func byRank(table [10]int32) []int32 {
	cards := make([]int32, 40)
	for card := range cards {
		cards[card] = table[card%10]
	}
	return cards
}

// cardValues is what the arena sends as MatchStart.card_values for the game
// (docs/protocol.md, "Card values"): the briscola and tressette orders and points.
func cardValues(game string) *agentpb.CardValues {
	switch {
	case strings.HasPrefix(game, "briscola") || game == "madrasso":
		return &agentpb.CardValues{
			TrickStrength: byRank([10]int32{9, 0, 8, 1, 2, 3, 4, 5, 6, 7}),
			Points:        byRank([10]int32{11, 0, 10, 0, 0, 0, 0, 2, 3, 4}), PointsTotal: 120}
	case strings.HasPrefix(game, "tressette"):
		return &agentpb.CardValues{
			TrickStrength: byRank([10]int32{7, 8, 9, 0, 1, 2, 3, 4, 5, 6}),
			Points:        byRank([10]int32{3, 1, 1, 0, 0, 0, 0, 1, 1, 1}), PointsTotal: 35}
	}
	return &agentpb.CardValues{}
}

// italianDeck is a MatchStart with a 40-card Italian deck (card id = 10 × suit + rank) and the
// game's card values.
func italianDeck(game string) *agentpb.MatchStart {
	deck := &agentpb.Deck{Name: "italian-40"}
	for suit := int32(0); suit < 4; suit++ {
		for rank := int32(0); rank < 10; rank++ {
			deck.Cards = append(deck.Cards, &agentpb.Card{Id: 10*suit + rank, Suit: suit, Rank: rank})
		}
	}
	return &agentpb.MatchStart{Game: game, Deck: deck, CardValues: cardValues(game)}
}

func TestStrengthAndPointsComeFromTheCardValues(t *testing.T) {
	start := italianDeck("briscola")
	start.CardValues = &agentpb.CardValues{}
	for card := int32(0); card < 40; card++ {
		start.CardValues.Points = append(start.CardValues.Points, card%7)
		start.CardValues.TrickStrength = append(start.CardValues.TrickStrength, 39-card)
	}
	for _, game := range []string{"briscola", "tressette"} {
		start.Game = game
		figures := NewFigures(start)
		for card := int32(0); card < 40; card++ {
			if got, want := figures.Value(card), int(16*(card%7)+39-card); got != want {
				t.Errorf("%s card %d: value %d, want %d", game, card, got, want)
			}
		}
	}
	start.Game = "high-card"
	if got := NewFigures(start).Value(19); got != 9 {
		t.Errorf("family N: value %d, want the rank index 9", got)
	}
	start.Game = "briscola"
	start.CardValues = nil
	if got := NewFigures(start).Value(0); got != 0 {
		t.Errorf("no card values: value %d, want the rank index 0", got)
	}
}

// play is a PLAY action of the given cards.
func play(id uint32, cards ...int32) *agentpb.LegalAction {
	return &agentpb.LegalAction{Id: id, Kind: agentpb.ActionKind_ACTION_KIND_PLAY, Cards: cards}
}

func TestValueFollowsTheFamily(t *testing.T) {
	briscola := NewFigures(italianDeck("briscola"))
	if got := briscola.Value(0); got != 16*11+9 {
		t.Errorf("briscola ace: %d", got)
	}
	tressette := NewFigures(italianDeck("tressette-pozzo"))
	if got := tressette.Value(2); got != 16*1+9 {
		t.Errorf("tressette three: %d", got)
	}
	scopa := NewFigures(italianDeck("scopa"))
	if got := scopa.Value(7); got != 7 {
		t.Errorf("scopa jack: %d", got)
	}
	if got := scopa.Value(Hidden); got != 0 {
		t.Errorf("hidden card: %d", got)
	}
}

func TestTiesGoToTheLowestID(t *testing.T) {
	player := NewPlayer(italianDeck("scopa"))
	request := &agentpb.DecisionRequest{
		Observation: &agentpb.Observation{},
		LegalActions: []*agentpb.LegalAction{
			{Id: 9, Kind: agentpb.ActionKind_ACTION_KIND_KEEP},
			{Id: 4, Kind: agentpb.ActionKind_ACTION_KIND_DONE},
			{Id: 6, Kind: agentpb.ActionKind_ACTION_KIND_PASS},
		},
	}
	if got := player.Decide(request); got != 4 {
		t.Errorf("chose %d, want 4", got)
	}
}

func TestAWinningCardTakesAWorthyTrick(t *testing.T) {
	player := NewPlayer(italianDeck("briscola"))
	observation := &agentpb.Observation{
		Seat: 1, TrumpSuit: 3,
		Trick: []*agentpb.TrickPlay{{Seat: 0, Card: 2}}, // the three of suit 0: 10 points
	}
	request := &agentpb.DecisionRequest{
		Observation: observation,
		// The two of suit 0 loses; the ace of suit 0 wins; the two of trumps wins cheaply.
		LegalActions: []*agentpb.LegalAction{play(1, 1), play(2, 0), play(3, 31)},
	}
	if got := player.Decide(request); got != 3 {
		t.Errorf("chose %d, want the two of trumps (3)", got)
	}
	observation.Teammates = []int32{0}
	if got := player.Decide(request); got != 1 {
		t.Errorf("chose %d against a partner's trick, want the cheapest card (1)", got)
	}
}

func TestACaptureCountsCoinsSevensAndTheSweep(t *testing.T) {
	figures := NewFigures(italianDeck("scopa"))
	observation := &agentpb.Observation{Table: []int32{16, 25}}
	// The seven of coins (16) taken with the seven of suit 2 (26): two sevens, one coin, the
	// settebello, but not a sweep.
	action := &agentpb.LegalAction{Kind: agentpb.ActionKind_ACTION_KIND_CAPTURE,
		Cards: []int32{26}, Captured: []int32{16}}
	if got, want := Score(figures, observation, action), 3000+10+5+3+3+20; got != want {
		t.Errorf("capture: %d, want %d", got, want)
	}
	action.Captured = []int32{16, 25}
	if got, want := Score(figures, observation, action), 3000+20+5+3+3+20+100; got != want {
		t.Errorf("sweep: %d, want %d", got, want)
	}
}

func TestBriscola31DeclaresOnlyAt31(t *testing.T) {
	figures := NewFigures(italianDeck("briscola-31"))
	declare := &agentpb.LegalAction{Kind: agentpb.ActionKind_ACTION_KIND_DECLARE}
	observation := &agentpb.Observation{Seat: 0, Points: []int32{20, 5, 11, 0},
		Teammates: []int32{2}}
	if got := Score(figures, observation, declare); got != 4000 {
		t.Errorf("31 points with the partner: %d", got)
	}
	observation.Points[2] = 10
	if got := Score(figures, observation, declare); got != -5000 {
		t.Errorf("30 points: %d", got)
	}
}

// avoid is an observation of tressette-non-prendere for seat 0, holding thirds of its own, with
// the trick's cards played by seats 1 and 2.
func avoid(thirds int32, trick ...int32) *agentpb.Observation {
	observation := &agentpb.Observation{Seat: 0, TrumpSuit: -1, Points: []int32{thirds, 0, 0}}
	for i, card := range trick {
		observation.Trick = append(observation.Trick, &agentpb.TrickPlay{Seat: int32(i + 1), Card: card})
	}
	return observation
}

func TestTheAvoidGameTakesAnyPointWhileItNeedsOne(t *testing.T) {
	figures := NewFigures(italianDeck(AvoidGame))
	two := play(1, 1) // the two of suit 0 (1 third) over the four
	if got := Score(figures, avoid(2, 3), two); got != 3000-(16+8) {
		t.Errorf("needy: %d", got)
	}
	if got := Score(figures, avoid(3, 3), two); got != 1000-(16+8) {
		t.Errorf("with a point: %d", got)
	}
}

func TestTheAvoidGameShedsTheDearestCardThatLosesTheTrick(t *testing.T) {
	player := NewPlayer(italianDeck(AvoidGame))
	request := &agentpb.DecisionRequest{
		Observation: avoid(3, 1), // a two of suit 0 leads
		// The three takes the lead; the king and the ace do not.
		LegalActions: []*agentpb.LegalAction{play(4, 2), play(3, 9), play(2, 0)},
	}
	if got := player.Decide(request); got != 2 {
		t.Errorf("chose %d, want the ace (2)", got)
	}
	if got := Score(player.figures, request.Observation, play(3, 9)); got != 2000+16+6 {
		t.Errorf("king under a two: %d", got)
	}
}

func TestTheAvoidGameLeadsTheStrongestCardOnlyWhileItNeedsAPoint(t *testing.T) {
	player := NewPlayer(italianDeck(AvoidGame))
	// The ace of suit 0, the three of suit 2, the four of suit 3.
	actions := []*agentpb.LegalAction{play(1, 0), play(2, 22), play(3, 33)}
	needy := &agentpb.DecisionRequest{Observation: avoid(2), LegalActions: actions}
	if got := player.Decide(needy); got != 2 {
		t.Errorf("needy: chose %d, want the three (2)", got)
	}
	safe := &agentpb.DecisionRequest{Observation: avoid(5), LegalActions: actions}
	if got := player.Decide(safe); got != 3 {
		t.Errorf("with a point: chose %d, want the four (3)", got)
	}
}

func TestTheAvoidGamePassesAndSetsAsideTheDearestCard(t *testing.T) {
	figures := NewFigures(italianDeck(AvoidGame))
	give := &agentpb.LegalAction{Id: 1, Kind: agentpb.ActionKind_ACTION_KIND_GIVE, Cards: []int32{0}}
	if got := Score(figures, avoid(0), give); got != 1000+16*3+7 {
		t.Errorf("give an ace: %d", got)
	}
	discard := &agentpb.LegalAction{Id: 2, Kind: agentpb.ActionKind_ACTION_KIND_DISCARD, Cards: []int32{9}}
	if got := Score(figures, avoid(0), discard); got != 1000+16+6 {
		t.Errorf("set aside a king: %d", got)
	}
}
