//! The links of the receipt log's hash chain, the head file beside the log, and HMAC-SHA256 for keyed chains.
//!
//! A link is the sha256 of one line's exact bytes (without its newline), or HMAC-SHA256 of them under the host key.
//! The head file holds `<link of the newest line> <its seq>`; with a key it holds `<seq> <seal>` instead, the seal
//! being an HMAC over the newest link and its seq. The seal is what keeps a keyed log's end from being cut off by
//! someone who cannot compute HMACs, because the newest link alone also appears as the `prev` of any line cut after
//! it; and a keyed head never shows the newest link, so nobody without the key can write a line that links to it.
//! (A head of the earlier keyed form, `<link> <seq> <seal>`, is still read.)

use std::fmt;

use sha2::{Digest, Sha256};

/// The `prev` of the very first line of a chain: 64 zeros.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// Domain separation for the head seal, so a seal can never equal a line's link.
const SEAL_DOMAIN: &[u8] = b"hooks.receipts.head\0";

/// SHA-256's block size in bytes, which HMAC pads its key to (RFC 2104).
const BLOCK: usize = 64;

/// A secret the host supplies to turn the chain into an HMAC chain. Its `Debug` never shows the bytes.
///
/// ```
/// use hook_middleware::receipts::HostKey;
/// let key = HostKey::new(b"per-host secret".to_vec());
/// assert_eq!(format!("{key:?}"), "HostKey(15 bytes)");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct HostKey(Vec<u8>);

impl HostKey {
    /// A key from raw bytes (any length; longer than 64 bytes is hashed first, as HMAC specifies).
    pub fn new(bytes: impl Into<Vec<u8>>) -> Self {
        HostKey(bytes.into())
    }

    /// The key's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

impl fmt::Debug for HostKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HostKey({} bytes)", self.0.len())
    }
}

/// HMAC-SHA256 of `message` under `key` (RFC 2104 over sha2, checked against RFC 4231's vectors in the tests).
///
/// ```
/// let mac = hook_middleware::receipts::hmac_sha256(b"key", b"The quick brown fox jumps over the lazy dog");
/// assert_eq!(hex::encode(mac), "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8");
/// ```
pub fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    let mut block = [0u8; BLOCK];
    if key.len() > BLOCK {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| block.map(|b| b ^ byte);
    let inner = Sha256::new().chain_update(pad(0x36)).chain_update(message).finalize();
    Sha256::new().chain_update(pad(0x5c)).chain_update(inner).finalize().into()
}

/// The link of one line: what the next line's `prev` must be. Lowercase hex, 64 characters.
pub(crate) fn link(line: &[u8], key: Option<&[u8]>) -> String {
    match key {
        Some(key) => hex::encode(hmac_sha256(key, line)),
        None => hex::encode(Sha256::digest(line)),
    }
}

/// The head file's content: where the chain ends. A cache of the log's last line, which is the truth.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Head {
    /// The link of the newest line; `None` in a keyed head, which shows only its seal.
    pub link: Option<String>,
    /// The `seq` of the newest line.
    pub seq: u64,
    /// With a key: HMAC over `link` and `seq`.
    pub seal: Option<String>,
}

impl Head {
    /// The head of a chain with no line yet.
    pub fn genesis(key: Option<&[u8]>) -> Head {
        Head::new(GENESIS.to_owned(), 0, key)
    }

    /// A head for the newest line: its link without a key, a seal (and no link) with one.
    pub fn new(link: String, seq: u64, key: Option<&[u8]>) -> Head {
        match key {
            Some(key) => Head { seal: Some(Head::seal_for(&link, seq, key)), link: None, seq },
            None => Head { link: Some(link), seq, seal: None },
        }
    }

    fn seal_for(link: &str, seq: u64, key: &[u8]) -> String {
        let mut message = SEAL_DOMAIN.to_vec();
        message.extend_from_slice(format!("{link} {seq}").as_bytes());
        hex::encode(hmac_sha256(key, &message))
    }

    /// Whether this head records the line with `link` and `seq`: the same seq, and the same link (without a key) or
    /// a seal over both (with one; a link the head also shows must agree).
    pub fn records(&self, link: &str, seq: u64, key: Option<&[u8]>) -> bool {
        if self.seq != seq || self.link.as_deref().is_some_and(|own| own != link) {
            return false;
        }
        match key {
            Some(key) => self.seal.as_deref() == Some(Head::seal_for(link, seq, key).as_str()),
            None => self.link.is_some(),
        }
    }

    /// Whether the seal matches under `key` (false without a seal, or without a link to check it against).
    pub fn seal_matches(&self, key: &[u8]) -> bool {
        self.link.as_deref().is_some_and(|link| self.records(link, self.seq, Some(key)))
    }

    /// Parses the file's text: `<64 hex> <seq>`, `<seq> <64 hex seal>`, or the earlier `<64 hex> <seq> <64 hex>`.
    pub fn parse(text: &str) -> Option<Head> {
        let words: Vec<&str> = text.split_whitespace().collect();
        match words.as_slice() {
            [link, seq] if is_hex64(link) => {
                Some(Head { link: Some((*link).to_owned()), seq: seq.parse().ok()?, seal: None })
            }
            [seq, seal] if is_hex64(seal) => {
                Some(Head { link: None, seq: seq.parse().ok()?, seal: Some((*seal).to_owned()) })
            }
            [link, seq, seal] if is_hex64(link) && is_hex64(seal) => {
                Some(Head { link: Some((*link).to_owned()), seq: seq.parse().ok()?, seal: Some((*seal).to_owned()) })
            }
            _ => None,
        }
    }

    /// The file's text, newline-terminated.
    pub fn render(&self) -> String {
        match (&self.link, &self.seal) {
            (Some(link), Some(seal)) => format!("{link} {} {seal}\n", self.seq),
            (Some(link), None) => format!("{link} {}\n", self.seq),
            (None, Some(seal)) => format!("{} {seal}\n", self.seq),
            (None, None) => format!("{}\n", self.seq),
        }
    }
}

/// Whether `word` is 64 lowercase hex digits, the shape of every link.
pub(crate) fn is_hex64(word: &str) -> bool {
    word.len() == 64 && word.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 4231 test cases 1, 2 and 6 (the last uses a key longer than the block, which HMAC hashes first).
    #[test]
    fn hmac_matches_rfc_4231_vectors() {
        let cases: [(&[u8], &[u8], &str); 3] = [
            (&[0x0b; 20], b"Hi There", "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
            (
                b"Jefe",
                b"what do ya want for nothing?",
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
            ),
            (
                &[0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First",
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
            ),
        ];
        for (key, message, expected) in cases {
            assert_eq!(hex::encode(hmac_sha256(key, message)), expected);
        }
    }

    #[test]
    fn head_round_trips_and_rejects_other_text() {
        let sealed = Head::new("ab".repeat(32), 7, Some(b"k"));
        assert_eq!(Head::parse(&sealed.render()), Some(sealed.clone()));
        assert!(!sealed.render().contains(&"ab".repeat(32)), "a keyed head never shows the newest link");
        assert!(sealed.records(&"ab".repeat(32), 7, Some(b"k")) && !sealed.records(&"ab".repeat(32), 7, Some(b"o")));
        assert!(!sealed.records(&"cd".repeat(32), 7, Some(b"k")) && !sealed.records(&"ab".repeat(32), 8, Some(b"k")));
        let plain = Head::new(GENESIS.to_owned(), 0, None);
        assert_eq!(Head::parse(&plain.render()), Some(plain.clone()));
        assert!(plain.records(GENESIS, 0, None));
        let earlier = format!("{} 7 {}", "ab".repeat(32), sealed.seal.clone().unwrap());
        assert!(Head::parse(&earlier).unwrap().seal_matches(b"k"));
        for bad in ["", "xyz 1", GENESIS, &format!("{GENESIS} -1"), &format!("{GENESIS} 1 2 3")] {
            assert_eq!(Head::parse(bad), None, "{bad:?}");
        }
    }
}
