//! What the Tokio side tells the event loop: a queue of events and an eventfd that wakes the
//! loop once for however many events have queued since it last looked.

use bytes::Bytes;
use std::sync::Arc;

use crate::channel::Channel;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// The end of a stream was a flood: more responses than the arena asked for.
pub const FLOODED: u32 = 1;
/// The end of a stream was a response larger than the receive limit.
pub const OVERSIZED_MESSAGE: u32 = 2;
/// The end of a stream was header or trailer metadata larger than the limit.
pub const OVERSIZED_METADATA: u32 = 4;

/// One thing that happened on the Tokio side.
pub enum Event {
    /// A response of a stream, when it was read and when the stream's last request taken
    /// had been taken (CLOCK_MONOTONIC, ns).
    Response(u64, Bytes, i64, i64),
    /// The end of a stream: gRPC status code, text, flags (``FLOODED`` ...) and when.
    End(u64, i32, String, u32, i64),
    /// Every request queued on a stream has been taken by the transport, at that moment.
    Taken(u64, i64),
    /// A channel connected, or gave up (its error).
    Ready(u64, Result<Arc<Channel>, String>),
    /// A served Play stream opened.
    Opened(u64),
    /// A request on a served stream.
    Request(u64, Bytes),
    /// A served stream's client half-closed it (true) or stopped it (false).
    Closed(u64, bool),
}

/// The queue and its eventfd.
pub struct Events {
    queue: Mutex<Vec<Event>>,
    signalled: AtomicBool,
    fd: i32,
}

impl Events {
    /// A new queue with a non-blocking eventfd.
    pub fn new() -> std::io::Result<Self> {
        // SAFETY: eventfd takes no pointers; the result is checked.
        let fd = unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Events { queue: Mutex::new(Vec::new()), signalled: AtomicBool::new(false), fd })
    }

    /// The eventfd the loop watches.
    pub fn fd(&self) -> i32 {
        self.fd
    }

    /// Queue an event; wake the loop unless it has been woken since it last looked.
    pub fn push(&self, event: Event) {
        self.queue.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push(event);
        if !self.signalled.swap(true, Ordering::SeqCst) {
            let one: u64 = 1;
            // SAFETY: writes 8 bytes from a live u64 to our own eventfd.
            unsafe { libc::write(self.fd, (&one as *const u64).cast(), 8) };
        }
    }

    /// Everything queued, oldest first; the next push wakes the loop again.
    pub fn take(&self) -> Vec<Event> {
        let mut counter = [0u8; 8];
        // SAFETY: reads at most 8 bytes into a live buffer from our own eventfd.
        unsafe { libc::read(self.fd, counter.as_mut_ptr().cast(), 8) };
        self.signalled.store(false, Ordering::SeqCst);
        std::mem::take(&mut *self.queue.lock().unwrap_or_else(|poisoned| poisoned.into_inner()))
    }
}

impl Drop for Events {
    fn drop(&mut self) {
        // SAFETY: closes the eventfd this queue opened, once.
        unsafe { libc::close(self.fd) };
    }
}

/// Now on CLOCK_MONOTONIC in nanoseconds, the clock of Python's ``time.perf_counter_ns``.
pub fn now_ns() -> i64 {
    let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes into the live timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
    now.tv_sec * 1_000_000_000 + now.tv_nsec
}
