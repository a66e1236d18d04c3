package server

import (
	"fmt"
	"net"
	"os"
	"time"
)

// Listen opens the address; a Unix socket is made reachable by any local user (0666) after a
// stale socket file nobody listens on is removed.
func Listen(address Address) (net.Listener, error) {
	if address.Network == "unix" {
		if err := clearStaleSocket(address.Target); err != nil {
			return nil, err
		}
	}
	listener, err := net.Listen(address.Network, address.Target)
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s: %v", address.Target, err)
	}
	if address.Network == "unix" {
		// An arena that is not root reaches a sandboxed bot running under another uid; the
		// socket's folder is what keeps others out.
		_ = os.Chmod(address.Target, 0o666)
	}
	return listener, nil
}

// clearStaleSocket removes a socket file nobody listens on; it refuses a live socket or any
// other kind of file.
func clearStaleSocket(path string) error {
	info, err := os.Lstat(path)
	if err != nil {
		return nil
	}
	if info.Mode()&os.ModeSocket == 0 {
		return fmt.Errorf("socket path %q exists and is not a socket", path)
	}
	connection, err := net.DialTimeout("unix", path, time.Second)
	if err == nil {
		connection.Close()
		return fmt.Errorf("socket %q is in use by another process", path)
	}
	RemoveSocket(path)
	return nil
}

// RemoveSocket removes a Unix socket file if it is still there (never another kind of file);
// a folder the bot may no longer change (the sandbox locks it) leaves it to the arena.
func RemoveSocket(path string) {
	if info, err := os.Lstat(path); err == nil && info.Mode()&os.ModeSocket != 0 {
		_ = os.Remove(path)
	}
}
