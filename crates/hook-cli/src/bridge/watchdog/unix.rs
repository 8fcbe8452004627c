//! The Unix half of the watchdog's answer: raw writes to descriptors 1 and 2.

use hook_agents::bridge::Answer;

/// The answer written to descriptors 1 and 2 directly, past std's locks, which the stuck side may hold.
pub(super) fn write_raw(answer: &Answer) {
    for (fd, text) in [(rustix::stdio::stdout(), &answer.stdout), (rustix::stdio::stderr(), &answer.stderr)] {
        let mut bytes = text.as_bytes();
        while !bytes.is_empty() {
            match rustix::io::write(fd, bytes) {
                Ok(0) | Err(_) => break,
                Ok(n) => bytes = &bytes[n..],
            }
        }
    }
}
