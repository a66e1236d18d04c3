//! The process's one Tokio runtime (one worker thread), made again in a forked child, where
//! the parent's threads do not exist.

use std::sync::{Arc, Mutex};
use tokio::runtime::Runtime;

static RUNTIME: Mutex<Option<(u32, Arc<Runtime>)>> = Mutex::new(None);

/// The runtime of this process, started on first use.
pub fn runtime() -> std::io::Result<Arc<Runtime>> {
    let pid = std::process::id();
    let mut slot = RUNTIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((owner, runtime)) = slot.as_ref() {
        if *owner == pid {
            return Ok(runtime.clone());
        }
    }
    if let Some((_, inherited)) = slot.take() {
        // A fork's copy: its threads are gone, so dropping it would wait for them forever.
        std::mem::forget(inherited);
    }
    let runtime = Arc::new(
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("cardarena-wire")
            .enable_all()
            .build()?,
    );
    *slot = Some((pid, runtime.clone()));
    Ok(runtime)
}
