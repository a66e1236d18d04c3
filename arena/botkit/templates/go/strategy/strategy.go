// Package strategy is the bot's strategy: it reads the match from MatchStart and answers each
// DecisionRequest with one of its legal action ids. Make it play well.
package strategy

import "cardarena/agentpb"

// Player plays one match; a fresh Player is made for each match.
type Player struct {
	// What the match is: start.Game ("briscola"), start.Seat, start.NumSeats, start.Teams,
	// start.Parameters, and start.Deck: every card's id, Suit, Rank and names ("7D", "7♦").
	// A Rank is the card's place in the deck; its worth in this game is in start.CardValues:
	// Points and TrickStrength by card id (docs/protocol.md, "Card values").
	start *agentpb.MatchStart
	// cards holds the deck's cards by id.
	cards map[int32]*agentpb.Card
}

// NewPlayer reads what the strategy needs from MatchStart.
func NewPlayer(start *agentpb.MatchStart) *Player {
	cards := make(map[int32]*agentpb.Card)
	for _, card := range start.GetDeck().GetCards() {
		cards[card.GetId()] = card
	}
	return &Player{start: start, cards: cards}
}

// Decide is the id of one of the request's legal actions.
func (p *Player) Decide(request *agentpb.DecisionRequest) uint32 {
	// What this seat may know is request.Observation (hidden cards are -1):
	//   .Hand            this seat's cards, as card ids (p.cards[id].Code -> "7D")
	//   .Trick           the cards played to this trick, each with its Seat and Card
	//   .Table           the cards on the table (fishing games such as scopa)
	//   .TrumpSuit       the trump suit where there is one (-1 otherwise)
	//   .Points, .Scores this hand's card points and the scores so far, per seat
	//   .Events          the public history: deals, bids, plays, captures, declarations
	// Each legal action has an Id (the answer), a Kind (ACTION_KIND_PLAY, ..._BID, ...),
	// the Cards it plays, the table cards it Captured, a Value, and a Label ("7D", "pass").
	// Time left: request.TimeLeft.DecisionMs for this decision, .BankMs in the bank.
	//
	// Put the strategy here. For a start: play the lowest card by rank, else the first action.
	actions := request.GetLegalActions()
	var best *agentpb.LegalAction
	for _, action := range actions {
		if action.GetKind() != agentpb.ActionKind_ACTION_KIND_PLAY || len(action.GetCards()) != 1 {
			continue
		}
		if best == nil || p.rank(action.GetCards()[0]) < p.rank(best.GetCards()[0]) {
			best = action
		}
	}
	if best != nil {
		return best.GetId()
	}
	return actions[0].GetId()
}

// rank is the rank index of a card, and -1 for a hidden card.
func (p *Player) rank(card int32) int32 {
	if known, ok := p.cards[card]; ok {
		return known.GetRank()
	}
	return -1
}
