//! A Card Arena bot in Rust. Its strategy is in strategy.rs; this file starts the server.
//!
//! It listens where `CARDARENA_ADDRESS` (or `--address`) says, as `unix:/path` or `host:port`,
//! serves cardarena.v1 AgentService, and stops cleanly on SIGTERM or SIGINT.

mod address;
mod server;
mod strategy;

/// The cardarena.v1 protocol, generated from proto/cardarena/v1/agent.proto by build.rs.
pub mod pb {
    tonic::include_proto!("cardarena.v1");
}

use std::process::ExitCode;

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let address = match address::resolve(&args).and_then(|text| address::parse(&text)) {
        Ok(address) => address,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::from(2);
        }
    };
    match server::serve::<strategy::Player>(address).await {
        Ok(()) => {
            server::log("stopped");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
