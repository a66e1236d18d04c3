// Command heuristic is the Card Arena sample bot in Go: it plays the portable heuristic
// (docs/portable-heuristic.md) in every game.
package main

import (
	"fmt"
	"os"
	"runtime"

	"bot/heuristic"
	"bot/server"
	"cardarena/agentpb"
)

func main() {
	if os.Getenv("GOMAXPROCS") == "" {
		// One decision at a time needs one processor, and few threads fit the sandbox.
		runtime.GOMAXPROCS(1)
	}
	address, err := server.ResolveAddress(os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "heuristic-go: error: %v\n", err)
		os.Exit(2)
	}
	bot := server.Bot{
		Name:    "heuristic-go",
		Version: "1.0.0",
		NewPlayer: func(start *agentpb.MatchStart) server.Player {
			return heuristic.NewPlayer(start)
		},
	}
	os.Exit(server.Run(bot, address))
}
