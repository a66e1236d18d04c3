package server

import (
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"google.golang.org/grpc"

	"cardarena/agentpb"
)

// stopGrace is how long open streams get to finish when the bot is asked to stop.
const stopGrace = time.Second

// Run serves the bot at the address until SIGTERM or SIGINT, then stops cleanly and removes
// its Unix socket; it returns the exit status: 0 after a clean stop, 2 for a bad address.
func Run(bot Bot, addressText string) int {
	log.SetFlags(0)
	log.SetPrefix(bot.Name + ": ")
	address, err := ParseAddress(addressText)
	if err != nil {
		log.Printf("error: %v", err)
		return 2
	}
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	listener, err := Listen(address)
	if err != nil {
		log.Printf("error: %v", err)
		return 2
	}
	server := grpc.NewServer()
	agentpb.RegisterAgentServiceServer(server, &service{bot: bot})
	served := make(chan error, 1)
	go func() { served <- server.Serve(listener) }()
	log.Printf("version %s listening on %s", bot.Version, listener.Addr())

	status := 0
	select {
	case <-signals:
	case err := <-served:
		log.Printf("error: serving stopped: %v", err)
		status = 1
	}
	stop(server)
	if address.Network == "unix" {
		RemoveSocket(address.Target)
	}
	log.Print("stopped")
	return status
}

// stop lets open streams finish for stopGrace, then closes them.
func stop(server *grpc.Server) {
	stopped := make(chan struct{})
	go func() {
		server.GracefulStop()
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-time.After(stopGrace):
		server.Stop()
	}
}
