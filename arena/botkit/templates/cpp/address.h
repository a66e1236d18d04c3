// Where a bot listens: CARDARENA_ADDRESS or --address, as `unix:/path` or `host:port`.
#ifndef CARDARENA_BOT_ADDRESS_H_
#define CARDARENA_BOT_ADDRESS_H_

#include <stdexcept>
#include <string>

namespace cardarena_bot {

// A missing or unusable address; the text says what to fix.
class AddressError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A checked address: the gRPC target, and the socket file for a unix socket (else empty).
struct Address {
  std::string target;
  std::string unix_path;

  bool is_unix() const { return !unix_path.empty(); }
};

// The address text: CARDARENA_ADDRESS, else `--address ADDR` or `--address=ADDR`.
std::string ResolveAddress(int argc, char** argv);

// Checks `unix:/path.sock`, `unix:///path.sock` (a relative path is made absolute; its folder
// must exist, and a stale socket file there is removed) or `host:port`.
Address ParseAddress(const std::string& text);

// Makes the socket file connectable by any local user (mode 0666).
void OpenSocket(const std::string& path);

// Removes the socket file if it is still there and is a socket.
void RemoveSocket(const std::string& path);

}  // namespace cardarena_bot

#endif  // CARDARENA_BOT_ADDRESS_H_
