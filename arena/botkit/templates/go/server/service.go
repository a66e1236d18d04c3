// Package server serves a bot over gRPC: the cardarena.v1 AgentService, one Play stream per
// match, on the address the arena gives.
package server

import (
	"io"
	"log"
	"runtime/debug"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"cardarena/agentpb"
)

// ProtocolVersion is the protocol this bot speaks.
const ProtocolVersion = "cardarena.v1"

// Player plays one match: a fresh one answers each match's decisions.
type Player interface {
	// Decide is the id of one of the request's legal actions.
	Decide(request *agentpb.DecisionRequest) uint32
}

// Bot names the bot and makes the Player of each match from its MatchStart.
type Bot struct {
	Name      string
	Version   string
	NewPlayer func(start *agentpb.MatchStart) Player
}

// service is the AgentService of one bot.
type service struct {
	agentpb.UnimplementedAgentServiceServer
	bot Bot
}

// Play answers MatchStart with Ready and each DecisionRequest with a Decision. After MatchEnd
// it waits on the stream, where the arena may start the next match (Ready says keeps_stream:
// it saves opening a stream per match), each with a new Player, until the arena closes its side.
func (s *service) Play(stream agentpb.AgentService_PlayServer) (err error) {
	defer func() {
		if problem := recover(); problem != nil {
			log.Printf("bot %s panicked: %v\n%s", s.bot.Name, problem, debug.Stack())
			err = status.Errorf(codes.Internal, "bot %s panicked: %v", s.bot.Name, problem)
		}
	}()
	var player Player
	for {
		request, err := stream.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch message := request.GetMessage().(type) {
		case *agentpb.PlayRequest_MatchStart:
			if player != nil {
				return status.Error(codes.FailedPrecondition,
					"a second MatchStart on the same stream: one stream plays one match")
			}
			player = s.start(message.MatchStart)
			if err := stream.Send(s.ready()); err != nil {
				return err
			}
		case *agentpb.PlayRequest_DecisionRequest:
			if player == nil {
				return status.Error(codes.FailedPrecondition, "a DecisionRequest before MatchStart")
			}
			if err := stream.Send(decision(player, message.DecisionRequest)); err != nil {
				return err
			}
		case *agentpb.PlayRequest_MatchEnd:
			player = nil
		default:
			return status.Error(codes.InvalidArgument, "an empty PlayRequest")
		}
	}
}

// start makes the match's Player, noting an arena that speaks another protocol.
func (s *service) start(start *agentpb.MatchStart) Player {
	if start.GetProtocolVersion() != ProtocolVersion {
		log.Printf("the arena speaks %q, this bot %q; answering Ready with the bot's version",
			start.GetProtocolVersion(), ProtocolVersion)
	}
	return s.bot.NewPlayer(start)
}

// ready is the answer to MatchStart.
func (s *service) ready() *agentpb.PlayResponse {
	return &agentpb.PlayResponse{Message: &agentpb.PlayResponse_Ready{Ready: &agentpb.Ready{
		ProtocolVersion: ProtocolVersion, BotName: s.bot.Name, BotVersion: s.bot.Version,
		KeepsStream: true}}}
}

// decision asks the Player and wraps its answer for the request.
func decision(player Player, request *agentpb.DecisionRequest) *agentpb.PlayResponse {
	actionID := player.Decide(request)
	if !isLegal(request, actionID) {
		log.Printf("answered action %d, which is not legal in request %d",
			actionID, request.GetRequestId())
	}
	return &agentpb.PlayResponse{Message: &agentpb.PlayResponse_Decision{
		Decision: &agentpb.Decision{RequestId: request.GetRequestId(), ActionId: actionID}}}
}

// isLegal tells whether an id is one of the request's legal actions.
func isLegal(request *agentpb.DecisionRequest, actionID uint32) bool {
	for _, action := range request.GetLegalActions() {
		if action.GetId() == actionID {
			return true
		}
	}
	return false
}
