package heuristic

import "cardarena/agentpb"

// AvoidGame is the game a seat loses by taking the most points, or none: it wants one point,
// then no more.
const AvoidGame = "tressette-non-prendere"

// OnePoint is the thirds of one point in family T.
const OnePoint = 3

// Score is the score of one legal action in one observation; the higher, the better.
func Score(f *Figures, observation *agentpb.Observation, action *agentpb.LegalAction) int {
	switch action.GetKind() {
	case agentpb.ActionKind_ACTION_KIND_SWAP:
		return 5000
	case agentpb.ActionKind_ACTION_KIND_DECLARE:
		return scoreDeclare(f, observation)
	case agentpb.ActionKind_ACTION_KIND_CAPTURE:
		return scoreCapture(f, observation, action)
	case agentpb.ActionKind_ACTION_KIND_PLAY:
		if IsWinningCard(f, observation, action) {
			return 3000 - f.Values(action.GetCards())
		}
		if f.Game == AvoidGame {
			return scoreAvoidPlay(f, observation, action)
		}
		return 2000 - f.Values(action.GetCards())
	case agentpb.ActionKind_ACTION_KIND_PLAY_FACE_DOWN:
		return 2000 - f.Values(action.GetCards())
	case agentpb.ActionKind_ACTION_KIND_KEEP, agentpb.ActionKind_ACTION_KIND_DONE,
		agentpb.ActionKind_ACTION_KIND_DRAW:
		return 1000
	case agentpb.ActionKind_ACTION_KIND_GIVE, agentpb.ActionKind_ACTION_KIND_DISCARD:
		if f.Game == AvoidGame {
			return 1000 + f.Values(action.GetCards())
		}
		return 1000 - f.Values(action.GetCards())
	case agentpb.ActionKind_ACTION_KIND_CALL:
		return scoreCall(f, action)
	case agentpb.ActionKind_ACTION_KIND_PASS:
		return 600
	case agentpb.ActionKind_ACTION_KIND_BID:
		return 900 - int(action.GetValue()) // an unset value reads as 0
	}
	return 0 // REDEAL, OTHER
}

// scoreDeclare: next after SWAP; in briscola-31 only once the own side reaches 31 points.
func scoreDeclare(f *Figures, observation *agentpb.Observation) int {
	if f.Game == "briscola-31" && OwnSidePoints(observation) < 31 {
		return -5000
	}
	return 4000
}

// OwnSidePoints is the card points of the seat and of every teammate.
func OwnSidePoints(observation *agentpb.Observation) int {
	points := observation.GetPoints()
	seats := append([]int32{observation.GetSeat()}, observation.GetTeammates()...)
	total := 0
	for _, seat := range seats {
		if seat >= 0 && int(seat) < len(points) {
			total += int(points[seat])
		}
	}
	return total
}

// NeedsAPoint tells whether the seat's own points are under one point (3 thirds).
func NeedsAPoint(observation *agentpb.Observation) bool {
	points := observation.GetPoints()
	seat := observation.GetSeat()
	own := 0
	if seat >= 0 && int(seat) < len(points) {
		own = int(points[seat])
	}
	return own < OnePoint
}

// scoreAvoidPlay: a PLAY of the avoid game that is no winning card. Lead the strongest card
// while the seat needs a point, else the cheapest; follow with the dearest card that does not
// take the lead, else the cheapest. A play of other than one visible card scores as in any game.
func scoreAvoidPlay(f *Figures, observation *agentpb.Observation, action *agentpb.LegalAction) int {
	cards := action.GetCards()
	if len(cards) != 1 {
		return 2000 - f.Values(cards)
	}
	card, ok := f.Card(cards[0])
	if !ok {
		return 2000 - f.Values(cards)
	}
	value := f.Value(cards[0])
	if len(observation.GetTrick()) == 0 {
		if NeedsAPoint(observation) {
			return 2000 + card.Strength
		}
		return 2000 - value
	}
	if best, ok := TrickBest(f, observation); ok {
		bestFigures, _ := f.Card(best.GetCard())
		if Beats(observation.GetTrumpSuit(), card, bestFigures) {
			return 1000 - value
		}
	}
	return 2000 + value
}

// scoreCapture: more cards, coins, sevens, the settebello and a sweep of the table score more.
func scoreCapture(f *Figures, observation *agentpb.Observation, action *agentpb.LegalAction) int {
	captured := action.GetCaptured()
	score := 3000 + 10*len(captured)
	if f.Italian {
		taken := append(append([]int32{}, action.GetCards()...), captured...)
		for _, card := range taken {
			figures, ok := f.Card(card)
			if !ok {
				continue
			}
			coins := figures.Suit == Coins
			seven := figures.Rank == Seven
			if coins {
				score += 5
			}
			if seven {
				score += 3
			}
			if coins && seven {
				score += 20
			}
		}
	}
	if len(captured) == len(observation.GetTable()) {
		score += 100
	}
	return score
}

// scoreCall: the most valuable card named, else the highest rank named.
func scoreCall(f *Figures, action *agentpb.LegalAction) int {
	if len(action.GetCards()) == 1 {
		return 1000 + f.Value(action.GetCards()[0])
	}
	if action.GetRank() >= 0 {
		return 1000 + int(action.GetRank())
	}
	return 1000
}

// Beats tells whether card becomes the best over best: the same suit and stronger, or a trump
// over a card that is not one.
func Beats(trumpSuit int32, card, best CardFigures) bool {
	if card.Suit == best.Suit && card.Strength > best.Strength {
		return true
	}
	return trumpSuit >= 0 && card.Suit == int(trumpSuit) && best.Suit != int(trumpSuit)
}

// TrickBest is the best visible card of the trick so far, and false when none is visible.
func TrickBest(f *Figures, observation *agentpb.Observation) (*agentpb.TrickPlay, bool) {
	var best *agentpb.TrickPlay
	var bestFigures CardFigures
	for _, play := range observation.GetTrick() {
		figures, ok := f.Card(play.GetCard())
		if !ok {
			continue
		}
		if best == nil || Beats(observation.GetTrumpSuit(), figures, bestFigures) {
			best, bestFigures = play, figures
		}
	}
	return best, best != nil
}

// IsWinningCard tells whether a PLAY of one card, in family B or T, takes from the other side
// a trick worth the family's threshold; in the avoid game, a trick worth anything, and only while
// the seat needs a point.
func IsWinningCard(f *Figures, observation *agentpb.Observation, action *agentpb.LegalAction) bool {
	if f.Family == nil || len(action.GetCards()) != 1 {
		return false
	}
	avoid := f.Game == AvoidGame
	if avoid && !NeedsAPoint(observation) {
		return false
	}
	threshold := f.Family.Threshold
	if avoid {
		threshold = 1
	}
	card, ok := f.Card(action.GetCards()[0])
	if !ok {
		return false
	}
	best, ok := TrickBest(f, observation)
	if !ok || isTeammate(observation, best.GetSeat()) {
		return false
	}
	bestFigures, _ := f.Card(best.GetCard())
	if !Beats(observation.GetTrumpSuit(), card, bestFigures) {
		return false
	}
	trickPoints := 0
	for _, play := range observation.GetTrick() {
		trickPoints += f.CardPoints(play.GetCard())
	}
	return trickPoints+card.Points >= threshold
}

// isTeammate tells whether a seat is one of the observing seat's known partners.
func isTeammate(observation *agentpb.Observation, seat int32) bool {
	for _, teammate := range observation.GetTeammates() {
		if teammate == seat {
			return true
		}
	}
	return false
}
