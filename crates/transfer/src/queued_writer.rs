//! A writer that never blocks the protocol loop: bytes go to a thread that writes them to the real output (a
//! pipe to a slow consumer, a slow disk), through a queue of bounded size.
//!
//! A receiver that blocked on `write(2)` would stop reading its socket, answering NCFs and sending NAKs and ACKs:
//! the kernel would drop what arrives and the source's transmit window could pass data the receiver still needs.
//! With this writer the receive loop asks [`QueuedWriter::has_room`] before taking the next delivery; while the
//! queue is full, deliveries wait in the receive window, whose memory bound then reports congestion (convoy-proto,
//! rxw module `budget`), so the session slows to what the consumer takes.

use std::io::{self, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// Bytes queued at most before [`QueuedWriter::has_room`] says no (default for receivers).
pub const DEFAULT_QUEUE_BYTES: u64 = 8 << 20;

enum Item {
    Data(Vec<u8>),
    Flush(SyncSender<()>),
}

/// See the module documentation.
pub struct QueuedWriter {
    /// Unbounded: the bound is `limit`, in bytes, which the receive loop checks before writing; a channel
    /// bounded in items would block the loop instead.
    tx: Option<Sender<Item>>,
    queued: Arc<AtomicU64>,
    limit: u64,
    /// The first write error (kind and message), kept: every later write and flush reports it.
    failed: Arc<Mutex<Option<(io::ErrorKind, String)>>>,
    thread: Option<JoinHandle<()>>,
}

type Failure = Mutex<Option<(io::ErrorKind, String)>>;

fn run(mut out: Box<dyn Write + Send>, rx: Receiver<Item>, queued: &AtomicU64, failed: &Failure) {
    let fail = |e: io::Error| {
        if let Ok(mut f) = failed.lock() {
            f.get_or_insert((e.kind(), e.to_string()));
        }
    };
    for item in rx {
        match item {
            Item::Data(bytes) => {
                let healthy = failed.lock().map(|f| f.is_none()).unwrap_or(false);
                if healthy {
                    if let Err(e) = out.write_all(&bytes) {
                        fail(e);
                    }
                }
                queued.fetch_sub(bytes.len() as u64, Ordering::AcqRel);
            }
            Item::Flush(done) => {
                if let Err(e) = out.flush() {
                    fail(e);
                }
                let _ = done.send(());
            }
        }
    }
}

impl QueuedWriter {
    /// Writes to `out` on a thread of its own, with at most about `limit` bytes queued.
    pub fn new(out: Box<dyn Write + Send>, limit: u64) -> Self {
        let (tx, rx) = channel::<Item>();
        let queued = Arc::new(AtomicU64::new(0));
        let failed = Arc::new(Mutex::new(None));
        let (q, f) = (queued.clone(), failed.clone());
        let thread = std::thread::spawn(move || run(out, rx, &q, &f));
        QueuedWriter {
            tx: Some(tx),
            queued,
            limit: limit.max(1),
            failed,
            thread: Some(thread),
        }
    }

    /// Whether more bytes may be written without going over the limit (one write may exceed it).
    pub fn has_room(&self) -> bool {
        self.queued.load(Ordering::Acquire) < self.limit
    }

    /// The first write error, if any.
    fn error(&self) -> Option<io::Error> {
        let f = self.failed.lock().ok()?;
        f.as_ref()
            .map(|(kind, msg)| io::Error::new(*kind, msg.clone()))
    }
}

impl Write for QueuedWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if let Some(e) = self.error() {
            return Err(e);
        }
        let tx = self
            .tx
            .as_ref()
            .ok_or_else(|| io::Error::other("writer closed"))?;
        self.queued.fetch_add(buf.len() as u64, Ordering::AcqRel);
        tx.send(Item::Data(buf.to_vec()))
            .map_err(|_| io::Error::other("the writing thread stopped"))?;
        Ok(buf.len())
    }

    /// Waits until everything queued is written and flushed; reports the first write error.
    fn flush(&mut self) -> io::Result<()> {
        let tx = self
            .tx
            .as_ref()
            .ok_or_else(|| io::Error::other("writer closed"))?;
        let (done_tx, done_rx) = sync_channel(1);
        tx.send(Item::Flush(done_tx))
            .map_err(|_| io::Error::other("the writing thread stopped"))?;
        done_rx
            .recv()
            .map_err(|_| io::Error::other("the writing thread stopped"))?;
        self.error().map_or(Ok(()), Err)
    }
}

impl Drop for QueuedWriter {
    fn drop(&mut self) {
        let _ = self.flush();
        self.tx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::channel;

    /// An output that holds every write until told to go on.
    struct Gate {
        go: Receiver<()>,
        seen: Arc<Mutex<Vec<u8>>>,
    }

    impl Write for Gate {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.go.recv().map_err(|_| io::Error::other("closed"))?;
            self.seen.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_stalled_output_fills_the_queue_without_blocking_the_writer() {
        let (go_tx, go) = channel();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let mut w = QueuedWriter::new(
            Box::new(Gate {
                go,
                seen: seen.clone(),
            }),
            10,
        );
        w.write_all(b"01234").unwrap();
        assert!(w.has_room());
        w.write_all(b"56789").unwrap();
        assert!(!w.has_room(), "10 bytes queued behind a stalled output");
        go_tx.send(()).unwrap();
        go_tx.send(()).unwrap();
        w.flush().unwrap();
        assert!(w.has_room());
        assert_eq!(&*seen.lock().unwrap(), b"0123456789");
    }

    #[test]
    fn a_write_error_surfaces_on_a_later_write_or_flush() {
        struct Broken;
        impl Write for Broken {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::Error::other("disk on fire"))
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let mut w = QueuedWriter::new(Box::new(Broken), 1 << 20);
        w.write_all(b"x").unwrap();
        let e = w.flush().unwrap_err();
        assert!(e.to_string().contains("disk on fire"));
        assert!(w.write_all(b"y").is_err(), "the error stays");
    }
}
