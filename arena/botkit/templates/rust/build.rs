//! Generates the cardarena.v1 protocol code (messages and the AgentService server) from
//! agent.proto, found in $CARDARENA_PROTO_DIR or in this folder's proto/.

use std::env;
use std::path::PathBuf;

const DEFAULT_PROTO_DIR: &str = "proto";
const PROTO_FILE: &str = "cardarena/v1/agent.proto";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-env-changed=CARDARENA_PROTO_DIR");
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR")?);
    let proto_dir = match env::var("CARDARENA_PROTO_DIR") {
        Ok(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => manifest_dir.join(DEFAULT_PROTO_DIR),
    };
    let proto_file = proto_dir.join(PROTO_FILE);
    if !proto_file.is_file() {
        return Err(format!(
            "agent.proto not found at {}; set CARDARENA_PROTO_DIR to the folder \
                            holding cardarena/v1/agent.proto",
            proto_file.display()
        )
        .into());
    }
    println!("cargo:rerun-if-changed={}", proto_file.display());
    tonic_prost_build::configure()
        .build_client(false)
        .compile_protos(&[proto_file], &[proto_dir])?;
    Ok(())
}
