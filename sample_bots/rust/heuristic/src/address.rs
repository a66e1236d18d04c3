//! Where the bot listens: `CARDARENA_ADDRESS` or `--address`, as `unix:/path` or `host:port`.

use std::io::ErrorKind;
use std::os::unix::fs::FileTypeExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::{env, fs};

/// The environment variable the arena sets to the address a bot must listen on.
pub const ENV_VAR: &str = "CARDARENA_ADDRESS";

/// The longest Unix socket path in bytes (`sun_path` holds 108 with the final NUL).
const UNIX_PATH_MAX: usize = 107;

/// A checked listening address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Address {
    /// A Unix socket file.
    Unix(PathBuf),
    /// A TCP `host:port` (port 0 picks a free port).
    Tcp(String),
}

/// The address text: `CARDARENA_ADDRESS`, else `--address ADDR` (or `--address=ADDR`).
pub fn resolve(args: &[String]) -> Result<String, String> {
    if let Ok(text) = env::var(ENV_VAR) {
        if !text.is_empty() {
            return Ok(text);
        }
    }
    for (index, arg) in args.iter().enumerate() {
        if arg == "--address" {
            return args.get(index + 1).cloned().ok_or_else(|| {
                "--address needs a value: unix:/path/bot.sock or host:port".to_string()
            });
        }
        if let Some(value) = arg.strip_prefix("--address=") {
            return Ok(value.to_string());
        }
    }
    Err(format!(
        "no address to listen on: set {ENV_VAR} or run with --address, \
                 as unix:/path/bot.sock or host:port"
    ))
}

/// Check an address: `unix:/path.sock`, `unix:///path.sock` or `host:port`.
pub fn parse(text: &str) -> Result<Address, String> {
    let text = text.trim();
    if let Some(rest) = text.strip_prefix("unix:") {
        return parse_unix(text, rest);
    }
    match text.rsplit_once(':') {
        Some((host, port)) if !host.is_empty() => {
            if port.parse::<u16>().is_err() {
                return Err(format!(
                    "address {text:?}: port {port:?} is not a number 0 .. 65535"
                ));
            }
            Ok(Address::Tcp(text.to_string()))
        }
        _ => Err(format!(
            "address {text:?} is neither unix:/path/bot.sock nor host:port"
        )),
    }
}

/// Check a Unix socket address: an absolute path in an existing folder, with no live socket.
fn parse_unix(text: &str, rest: &str) -> Result<Address, String> {
    let path = match rest.strip_prefix("//") {
        Some(absolute) if absolute.starts_with('/') => absolute,
        Some(_) => {
            return Err(format!(
                "address {text:?}: unix:// needs an absolute path \
                                (unix:///path/bot.sock)"
            ))
        }
        None => rest,
    };
    if path.is_empty() {
        return Err(format!("address {text:?} has no socket path"));
    }
    let path = std::path::absolute(path).map_err(|error| format!("address {text:?}: {error}"))?;
    if path.as_os_str().len() > UNIX_PATH_MAX {
        return Err(format!(
            "socket path {} is longer than {UNIX_PATH_MAX} bytes",
            path.display()
        ));
    }
    match path.parent() {
        Some(folder) if folder.is_dir() => {}
        _ => {
            return Err(format!(
                "the folder of socket {} does not exist",
                path.display()
            ))
        }
    }
    clear_stale_socket(&path)?;
    Ok(Address::Unix(path))
}

/// Remove a socket file nobody listens on; refuse a live socket or any other kind of file.
fn clear_stale_socket(path: &Path) -> Result<(), String> {
    let metadata = match fs::symlink_metadata(path) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(format!("socket path {}: {error}", path.display())),
    };
    if !metadata.file_type().is_socket() {
        return Err(format!(
            "socket path {} exists and is not a socket",
            path.display()
        ));
    }
    if UnixStream::connect(path).is_ok() {
        return Err(format!(
            "socket {} is in use by another process",
            path.display()
        ));
    }
    remove_socket(path);
    Ok(())
}

/// Remove a Unix socket file if it is still there (never another kind of file).
pub fn remove_socket(path: &Path) {
    if let Ok(metadata) = fs::symlink_metadata(path) {
        if metadata.file_type().is_socket() {
            let _ = fs::remove_file(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tcp_addresses_keep_their_text() {
        assert_eq!(parse("127.0.0.1:0"), Ok(Address::Tcp("127.0.0.1:0".into())));
        assert_eq!(parse("[::1]:50051"), Ok(Address::Tcp("[::1]:50051".into())));
        assert!(parse("localhost:http").is_err());
        assert!(parse(":50051").is_err());
        assert!(parse("nowhere").is_err());
    }

    #[test]
    fn unix_addresses_name_an_absolute_path() {
        let folder = env::temp_dir();
        let socket = folder.join("ca-address-test.sock");
        let text = format!("unix:{}", socket.display());
        assert_eq!(parse(&text), Ok(Address::Unix(socket.clone())));
        let text = format!("unix://{}", socket.display());
        assert_eq!(parse(&text), Ok(Address::Unix(socket)));
        assert!(parse("unix://relative.sock").is_err());
        assert!(parse("unix:").is_err());
        assert!(parse("unix:/no/such/folder/bot.sock").is_err());
    }

    #[test]
    fn the_flag_gives_the_address_without_the_variable() {
        let args = |list: &[&str]| list.iter().map(|arg| arg.to_string()).collect::<Vec<_>>();
        if env::var(ENV_VAR).is_ok() {
            return;
        }
        assert_eq!(resolve(&args(&["--address", "h:1"])), Ok("h:1".into()));
        assert_eq!(resolve(&args(&["--address=h:2"])), Ok("h:2".into()));
        assert!(resolve(&args(&["--address"])).is_err());
        assert!(resolve(&args(&[])).is_err());
    }
}
