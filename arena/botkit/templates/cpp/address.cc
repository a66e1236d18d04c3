// Where a bot listens, and its unix socket file.
#include "address.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <cstring>

namespace cardarena_bot {
namespace {

constexpr const char* kEnvVar = "CARDARENA_ADDRESS";
constexpr const char* kFlag = "--address";
constexpr const char* kUnixScheme = "unix:";
// sun_path holds 108 bytes with the final NUL.
constexpr size_t kUnixPathMax = 107;

std::string AbsolutePath(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char* cwd = getcwd(nullptr, 0);
  if (cwd == nullptr) throw AddressError("cannot resolve the relative socket path " + path);
  std::string absolute = std::string(cwd) + "/" + path;
  std::free(cwd);
  return absolute;
}

// True when a process accepts connections on the socket file.
bool SocketIsLive(const std::string& path) {
  int probe = socket(AF_UNIX, SOCK_STREAM, 0);
  if (probe < 0) return false;
  sockaddr_un target{};
  target.sun_family = AF_UNIX;
  std::strncpy(target.sun_path, path.c_str(), sizeof(target.sun_path) - 1);
  bool live = connect(probe, reinterpret_cast<sockaddr*>(&target), sizeof(target)) == 0;
  close(probe);
  return live;
}

// The socket's folder must exist; a socket file nobody listens on is removed, any other
// file, or a live socket, is refused.
void CheckSocketPath(const std::string& path) {
  std::string folder = path.substr(0, path.rfind('/'));
  struct stat info;
  if (!folder.empty() && (stat(folder.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))) {
    throw AddressError("socket directory '" + folder + "' does not exist");
  }
  if (lstat(path.c_str(), &info) != 0) return;
  if (!S_ISSOCK(info.st_mode)) {
    throw AddressError("socket path '" + path + "' exists and is not a socket");
  }
  if (SocketIsLive(path)) throw AddressError("socket '" + path + "' is in use by another process");
  unlink(path.c_str());
}

Address UnixAddress(const std::string& text) {
  std::string rest = text.substr(std::strlen(kUnixScheme));
  if (rest.rfind("//", 0) == 0) {
    rest = rest.substr(2);
    if (rest.empty() || rest[0] != '/') {
      throw AddressError("address '" + text + "': unix:// needs an absolute path");
    }
  }
  if (rest.empty()) throw AddressError("address '" + text + "' has no socket path");
  std::string path = AbsolutePath(rest);
  if (path.size() > kUnixPathMax) {
    throw AddressError("socket path '" + path + "' is longer than 107 bytes");
  }
  CheckSocketPath(path);
  return Address{"unix:" + path, path};
}

Address TcpAddress(const std::string& text) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    throw AddressError("address '" + text + "' is neither unix:/path/bot.sock nor host:port");
  }
  std::string port = text.substr(colon + 1);
  bool digits = !port.empty() && port.size() <= 5;
  for (char c : port) digits = digits && std::isdigit(static_cast<unsigned char>(c));
  if (!digits || std::stoi(port) > 65535) {
    throw AddressError("address '" + text + "': port '" + port + "' is not a number 0 .. 65535");
  }
  return Address{text, ""};
}

}  // namespace

std::string ResolveAddress(int argc, char** argv) {
  const char* env = std::getenv(kEnvVar);
  if (env != nullptr && *env != '\0') return env;
  const std::string flag = kFlag;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == flag) {
      if (i + 1 >= argc) throw AddressError("--address needs a value: unix:/path or host:port");
      return argv[i + 1];
    }
    if (arg.rfind(flag + "=", 0) == 0) return arg.substr(flag.size() + 1);
  }
  throw AddressError(std::string("no address to listen on: set ") + kEnvVar +
                     " or run with --address, as unix:/path/bot.sock or host:port");
}

Address ParseAddress(const std::string& text) {
  if (text.rfind(kUnixScheme, 0) == 0) return UnixAddress(text);
  return TcpAddress(text);
}

void OpenSocket(const std::string& path) { chmod(path.c_str(), 0666); }

void RemoveSocket(const std::string& path) {
  struct stat info;
  if (lstat(path.c_str(), &info) == 0 && S_ISSOCK(info.st_mode)) unlink(path.c_str());
}

}  // namespace cardarena_bot
