package server

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// AddressEnv is the environment variable the arena sets to the address a bot must listen on.
const AddressEnv = "CARDARENA_ADDRESS"

// unixPathMax is the longest Unix socket path in bytes (sun_path holds 108 with the final NUL).
const unixPathMax = 107

// Address is where the bot listens: a Unix socket path, or a TCP host:port.
type Address struct {
	Network string // "unix" or "tcp"
	Target  string // the socket path, or host:port
}

// ResolveAddress is the address text: CARDARENA_ADDRESS, else the value of --address.
func ResolveAddress(args []string) (string, error) {
	if text := os.Getenv(AddressEnv); text != "" {
		return text, nil
	}
	for index, arg := range args {
		if arg == "--address" {
			if index+1 >= len(args) {
				return "", errors.New("--address needs a value: unix:/path/bot.sock or host:port")
			}
			return args[index+1], nil
		}
		if strings.HasPrefix(arg, "--address=") {
			return strings.TrimPrefix(arg, "--address="), nil
		}
	}
	return "", fmt.Errorf("no address to listen on: set %s or run with --address, "+
		"as unix:/path/bot.sock or host:port", AddressEnv)
}

// ParseAddress checks an address: unix:/path.sock, unix:///path.sock or host:port.
func ParseAddress(text string) (Address, error) {
	text = strings.TrimSpace(text)
	if strings.HasPrefix(text, "unix:") {
		return parseUnix(text, strings.TrimPrefix(text, "unix:"))
	}
	host, port, err := net.SplitHostPort(text)
	if err != nil || host == "" {
		return Address{}, fmt.Errorf("address %q is neither unix:/path/bot.sock nor host:port", text)
	}
	if number, err := strconv.Atoi(port); err != nil || number < 0 || number > 65535 {
		return Address{}, fmt.Errorf("address %q: port %q is not a number 0 .. 65535", text, port)
	}
	return Address{Network: "tcp", Target: text}, nil
}

// parseUnix checks a Unix socket path: short enough, in an existing folder.
func parseUnix(text, rest string) (Address, error) {
	if strings.HasPrefix(rest, "//") {
		rest = rest[2:]
		if !strings.HasPrefix(rest, "/") {
			return Address{}, fmt.Errorf("address %q: unix:// needs an absolute path "+
				"(unix:///path/bot.sock)", text)
		}
	}
	if rest == "" {
		return Address{}, fmt.Errorf("address %q has no socket path", text)
	}
	path, err := filepath.Abs(rest)
	if err != nil {
		return Address{}, fmt.Errorf("address %q: %v", text, err)
	}
	if len(path) > unixPathMax {
		return Address{}, fmt.Errorf("socket path %q is longer than %d bytes", path, unixPathMax)
	}
	if info, err := os.Stat(filepath.Dir(path)); err != nil || !info.IsDir() {
		return Address{}, fmt.Errorf("socket directory %q does not exist", filepath.Dir(path))
	}
	return Address{Network: "unix", Target: path}, nil
}
