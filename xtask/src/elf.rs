//! What `cargo xtask dist` checks in the `hook` it built: a 64-bit little-endian ELF file's type and the kinds of
//! its program headers.

use std::path::Path;

use anyhow::{Context, Result, bail};

/// `e_type` of an executable at a fixed address.
pub const ET_EXEC: u64 = 2;
/// `e_type` of a position-independent executable (and of a shared library).
pub const ET_DYN: u64 = 3;
/// `e_machine` of x86-64.
pub const EM_X86_64: u64 = 62;
/// `e_machine` of 64-bit Arm.
pub const EM_AARCH64: u64 = 183;
/// `p_type` of the program header that names a dynamic loader.
pub const PT_INTERP: u64 = 3;
/// `p_type` of `.eh_frame_hdr`, the sorted table through which an unwinder finds a frame's description.
pub const PT_GNU_EH_FRAME: u64 = 0x6474_e550;

/// A 64-bit little-endian ELF file's bytes.
pub struct Elf {
    bytes: Vec<u8>,
}

impl Elf {
    /// Reads the file whole.
    pub fn read(path: &Path) -> Result<Elf> {
        let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        Elf::parse(bytes).with_context(|| path.display().to_string())
    }

    /// The bytes of an ELF file, checked to be 64-bit little-endian.
    pub fn parse(bytes: Vec<u8>) -> Result<Elf> {
        if bytes.get(..6) != Some(b"\x7fELF\x02\x01".as_slice()) {
            bail!("not a 64-bit little-endian ELF file");
        }
        Ok(Elf { bytes })
    }

    fn word(&self, at: usize, len: usize) -> Result<u64> {
        let end = at.checked_add(len).context("a truncated ELF file")?;
        let slice = self.bytes.get(at..end).context("a truncated ELF file")?;
        Ok(slice.iter().rev().fold(0u64, |acc, &b| (acc << 8) | u64::from(b)))
    }

    fn index(&self, at: usize, len: usize) -> Result<usize> {
        usize::try_from(self.word(at, len)?).context("an ELF offset out of range")
    }

    /// `e_type`: [`ET_EXEC`], [`ET_DYN`], ….
    pub fn kind(&self) -> Result<u64> {
        self.word(16, 2)
    }

    /// `e_machine`: [`EM_X86_64`], [`EM_AARCH64`], ….
    pub fn machine(&self) -> Result<u64> {
        self.word(18, 2)
    }

    /// Whether it has a program header of type `p_type` ([`PT_INTERP`], [`PT_GNU_EH_FRAME`], …).
    pub fn has_segment(&self, p_type: u64) -> Result<bool> {
        // e_phoff at 32, e_phentsize at 54, e_phnum at 56; p_type first in each header.
        let (phoff, phentsize, phnum) = (self.index(32, 8)?, self.index(54, 2)?, self.index(56, 2)?);
        for i in 0..phnum {
            let at = i.checked_mul(phentsize).and_then(|off| off.checked_add(phoff)).context("a truncated ELF file")?;
            if self.word(at, 4)? == p_type {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An ELF header of `kind` followed by one program header per entry of `segments`.
    fn image(kind: u16, segments: &[u32]) -> Vec<u8> {
        let mut bytes = vec![0u8; 64];
        bytes[..6].copy_from_slice(b"\x7fELF\x02\x01");
        bytes[16..18].copy_from_slice(&kind.to_le_bytes());
        bytes[32..40].copy_from_slice(&64u64.to_le_bytes());
        bytes[54..56].copy_from_slice(&56u16.to_le_bytes());
        bytes[56..58].copy_from_slice(&(segments.len() as u16).to_le_bytes());
        for &p_type in segments {
            let mut header = vec![0u8; 56];
            header[..4].copy_from_slice(&p_type.to_le_bytes());
            bytes.extend(header);
        }
        bytes
    }

    #[test]
    fn reads_the_type_and_the_program_headers() {
        let elf = Elf::parse(image(3, &[1, PT_GNU_EH_FRAME as u32])).unwrap();
        assert_eq!(elf.kind().unwrap(), ET_DYN);
        assert!(elf.has_segment(PT_GNU_EH_FRAME).unwrap());
        assert!(!elf.has_segment(PT_INTERP).unwrap());
        let dynamic = Elf::parse(image(2, &[PT_INTERP as u32])).unwrap();
        assert_eq!(dynamic.kind().unwrap(), ET_EXEC);
        assert!(dynamic.has_segment(PT_INTERP).unwrap());
    }

    #[test]
    fn refuses_what_is_not_a_whole_64_bit_elf_file() {
        assert!(Elf::parse(b"#!/bin/sh\n".to_vec()).is_err());
        let mut truncated = image(3, &[1, 2]);
        truncated.truncate(80);
        assert!(Elf::parse(truncated).unwrap().has_segment(PT_INTERP).is_err());
    }
}
