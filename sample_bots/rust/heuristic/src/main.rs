//! heuristic-rust: a Card Arena bot that plays the portable heuristic on every game.
//!
//! It listens where `CARDARENA_ADDRESS` (or `--address`) says, as `unix:/path` or `host:port`,
//! serves cardarena.v1 AgentService, and stops cleanly on SIGTERM or SIGINT.

mod address;
mod cards;
mod scoring;
mod server;

/// The cardarena.v1 protocol, generated from agent.proto by build.rs.
pub mod pb {
    tonic::include_proto!("cardarena.v1");
}

use std::process::ExitCode;

use cards::Figures;
use pb::{DecisionRequest, MatchStart};
use server::{log, Strategy};

/// The portable heuristic for one match: the deck's figures, read once.
struct Heuristic {
    figures: Figures,
}

impl Strategy for Heuristic {
    fn start(start: &MatchStart) -> Self {
        Self {
            figures: Figures::from_match_start(start),
        }
    }

    fn decide(&mut self, request: &DecisionRequest) -> u32 {
        scoring::choose(&self.figures, request).unwrap_or(0)
    }
}

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
    match server::serve::<Heuristic>(address).await {
        Ok(()) => {
            log("stopped");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
