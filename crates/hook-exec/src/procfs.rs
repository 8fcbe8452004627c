//! Reading the small files of `/proc` and cgroupfs, which report a size of 0: `std::fs::read_to_string` takes that
//! size as its guess, so it stats the file and then reads it in growing pieces from 32 bytes (five reads for a
//! 200-byte `/proc/self/cgroup`). Here one read of up to 4 KiB takes a file of that size whole, and a second one
//! sees its end.

use std::io::{self, Read};
use std::path::Path;

/// The file's text, read from a 4 KiB buffer that grows only for a larger file.
pub(crate) fn read(path: impl AsRef<Path>) -> io::Result<String> {
    let mut bytes = Vec::with_capacity(4096);
    std::fs::File::open(path)?.read_to_end(&mut bytes)?;
    String::from_utf8(bytes).map_err(io::Error::other)
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_what_read_to_string_reads() {
        for path in ["/proc/self/cgroup", "/proc/self/stat", "/proc/self/mountinfo"] {
            let ours = super::read(path).unwrap();
            let std = std::fs::read_to_string(path).unwrap();
            // The same file, read twice: its first field and line count do not change between the two reads.
            assert_eq!(ours.lines().count(), std.lines().count(), "{path}");
            assert_eq!(ours.split(' ').next(), std.split(' ').next(), "{path}");
        }
        assert!(super::read("/proc/self/no-such-file").is_err());
    }
}
