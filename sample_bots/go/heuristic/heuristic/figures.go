// Package heuristic plays the portable heuristic of docs/portable-heuristic.md: it scores every
// legal action from what the wire gives and answers the best, ties going to the lowest id.
package heuristic

import (
	"strings"

	"cardarena/agentpb"
)

// Hidden is the card id of a card the seat may not see.
const Hidden = -1

// Coins is the suit index of coins, and Seven the rank index of the seven, in the Italian decks.
const (
	Coins = 1
	Seven = 6
)

// Family gives the points a trick must be worth before a card is played to win it; card
// strength and points come from MatchStart.card_values.
type Family struct {
	Threshold int
}

// FamilyB is the briscola family: a trick worth an ace or a three.
var FamilyB = &Family{Threshold: 10}

// FamilyT is the tressette family: a trick worth one point (three thirds).
var FamilyT = &Family{Threshold: 3}

// FamilyOf is family B or T for a game id, nil for every other game (family N).
func FamilyOf(game string) *Family {
	switch {
	case strings.HasPrefix(game, "briscola") || game == "madrasso":
		return FamilyB
	case strings.HasPrefix(game, "tressette"):
		return FamilyT
	}
	return nil
}

// CardFigures is what the strategy knows of one card.
type CardFigures struct {
	Suit, Rank, Strength, Points int
}

// Figures is what the strategy knows of a match: the game and every card of the deck.
type Figures struct {
	Game    string
	Family  *Family
	Italian bool
	Cards   []CardFigures // by card id
	Known   []bool        // by card id: whether the deck listed the card
}

// wireFigure is a card's entry in a card-values table, or fallback where the table does not
// cover it (an empty table: family N, or an arena that sends no card values).
func wireFigure(table []int32, card int32, fallback int) int {
	if card >= 0 && int(card) < len(table) {
		return int(table[card])
	}
	return fallback
}

// NewFigures reads the game id, every card of MatchStart.deck and, in families B and T, each
// card's trick strength and points from MatchStart.card_values.
func NewFigures(start *agentpb.MatchStart) *Figures {
	figures := &Figures{
		Game:    start.GetGame(),
		Family:  FamilyOf(start.GetGame()),
		Italian: strings.HasPrefix(start.GetDeck().GetName(), "italian"),
	}
	size := 0
	for _, card := range start.GetDeck().GetCards() {
		if int(card.GetId())+1 > size {
			size = int(card.GetId()) + 1
		}
	}
	var strength, points []int32
	if figures.Family != nil {
		strength = start.GetCardValues().GetTrickStrength()
		points = start.GetCardValues().GetPoints()
	}
	figures.Cards = make([]CardFigures, size)
	figures.Known = make([]bool, size)
	for _, card := range start.GetDeck().GetCards() {
		if card.GetId() < 0 {
			continue
		}
		rank := int(card.GetRank())
		entry := CardFigures{Suit: int(card.GetSuit()), Rank: rank,
			Strength: wireFigure(strength, card.GetId(), rank),
			Points:   wireFigure(points, card.GetId(), 0)}
		figures.Cards[card.GetId()] = entry
		figures.Known[card.GetId()] = true
	}
	return figures
}

// Card is the figures of a card id, and false for a hidden or unknown card.
func (f *Figures) Card(card int32) (CardFigures, bool) {
	if card < 0 || int(card) >= len(f.Cards) || !f.Known[card] {
		return CardFigures{}, false
	}
	return f.Cards[card], true
}

// Value is 16 × points + strength of one card; a hidden card is worth nothing.
func (f *Figures) Value(card int32) int {
	figures, ok := f.Card(card)
	if !ok {
		return 0
	}
	return 16*figures.Points + figures.Strength
}

// Values is the value of a list of cards.
func (f *Figures) Values(cards []int32) int {
	total := 0
	for _, card := range cards {
		total += f.Value(card)
	}
	return total
}

// CardPoints is the points of one card; a hidden card has none.
func (f *Figures) CardPoints(card int32) int {
	figures, _ := f.Card(card)
	return figures.Points
}
