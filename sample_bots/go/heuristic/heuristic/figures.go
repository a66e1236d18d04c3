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

// Family gives card strength and points by rank index, and the points a trick must be worth
// before a card is played to win it.
type Family struct {
	Strength  [10]int
	Points    [10]int
	Threshold int
}

// FamilyB is the briscola family: ace, three, king, knight, jack.
var FamilyB = &Family{
	Strength:  [10]int{9, 0, 8, 1, 2, 3, 4, 5, 6, 7},
	Points:    [10]int{11, 0, 10, 0, 0, 0, 0, 2, 3, 4},
	Threshold: 10,
}

// FamilyT is the tressette family: three, two, ace high; points in thirds.
var FamilyT = &Family{
	Strength:  [10]int{7, 8, 9, 0, 1, 2, 3, 4, 5, 6},
	Points:    [10]int{3, 1, 1, 0, 0, 0, 0, 1, 1, 1},
	Threshold: 3,
}

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

// NewFigures reads the game id and every card of MatchStart.deck.
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
	figures.Cards = make([]CardFigures, size)
	figures.Known = make([]bool, size)
	for _, card := range start.GetDeck().GetCards() {
		if card.GetId() < 0 {
			continue
		}
		rank := int(card.GetRank())
		entry := CardFigures{Suit: int(card.GetSuit()), Rank: rank, Strength: rank}
		if figures.Family != nil && rank >= 0 && rank < len(figures.Family.Strength) {
			entry.Strength = figures.Family.Strength[rank]
			entry.Points = figures.Family.Points[rank]
		}
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
