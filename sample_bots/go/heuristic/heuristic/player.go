package heuristic

import "cardarena/agentpb"

// Player plays one match: it keeps the figures of the match's deck.
type Player struct {
	figures *Figures
}

// NewPlayer reads what the strategy needs from MatchStart.
func NewPlayer(start *agentpb.MatchStart) *Player {
	return &Player{figures: NewFigures(start)}
}

// Decide is the id of the best-scoring legal action; ties go to the lowest id.
func (p *Player) Decide(request *agentpb.DecisionRequest) uint32 {
	var bestID uint32
	bestScore := 0
	for index, action := range request.GetLegalActions() {
		score := Score(p.figures, request.GetObservation(), action)
		if index == 0 || score > bestScore || (score == bestScore && action.GetId() < bestID) {
			bestID, bestScore = action.GetId(), score
		}
	}
	return bestID
}
