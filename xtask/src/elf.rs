//! What xtask reads in a built `hook`: a 64-bit little-endian ELF file's type, whether it names a dynamic loader,
//! and its function symbols.

use std::path::Path;

use anyhow::{Context, Result, bail};

/// `e_type` of an executable at a fixed address, and of a position-independent one.
pub const ET_EXEC: u64 = 2;
pub const ET_DYN: u64 = 3;

/// A 64-bit little-endian ELF file's bytes.
pub struct Elf {
    bytes: Vec<u8>,
}

/// A function the symbol table names: its (mangled) name, address and size in bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    pub addr: u64,
    pub size: u64,
}

impl Elf {
    /// Reads the file whole.
    pub fn read(path: &Path) -> Result<Elf> {
        let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        if bytes.get(..6) != Some(b"\x7fELF\x02\x01".as_slice()) {
            bail!("{} is not a 64-bit little-endian ELF file", path.display());
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

    /// Whether it has a `PT_INTERP` program header (it is linked dynamically).
    pub fn has_interpreter(&self) -> Result<bool> {
        // e_phoff at 32, e_phentsize at 54, e_phnum at 56; p_type first in each header.
        let (phoff, phentsize, phnum) = (self.index(32, 8)?, self.index(54, 2)?, self.index(56, 2)?);
        for i in 0..phnum {
            const PT_INTERP: u64 = 3;
            if self.word(phoff + i * phentsize, 4)? == PT_INTERP {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Every function of the symbol table (`.symtab`) with a size, in the file's order; none when it was stripped.
    pub fn functions(&self) -> Result<Vec<Function>> {
        const SHT_SYMTAB: u64 = 2;
        const STT_FUNC: u64 = 2;
        // e_shoff at 40, e_shentsize at 58, e_shnum at 60; in a section header: sh_type at 4, sh_offset at 24,
        // sh_size at 32, sh_link at 40, sh_entsize at 56.
        let (shoff, shentsize, shnum) = (self.index(40, 8)?, self.index(58, 2)?, self.index(60, 2)?);
        let header = |i: usize| shoff + i * shentsize;
        let Some(symtab) = (0..shnum).map(header).find(|&h| self.word(h + 4, 4).ok() == Some(SHT_SYMTAB)) else {
            return Ok(Vec::new());
        };
        let (offset, size, entsize) =
            (self.index(symtab + 24, 8)?, self.index(symtab + 32, 8)?, self.index(symtab + 56, 8)?);
        let strtab = header(self.index(symtab + 40, 4)?);
        let names = self.index(strtab + 24, 8)?;
        if entsize < 24 {
            bail!("a symbol table with entries of {entsize} bytes");
        }
        let mut functions = Vec::new();
        // An entry: st_name (4), st_info (1), st_other (1), st_shndx (2), st_value (8), st_size (8).
        for entry in (offset..offset + size).step_by(entsize) {
            let (info, value, bytes) = (self.word(entry + 4, 1)?, self.word(entry + 8, 8)?, self.word(entry + 16, 8)?);
            if info & 0xf != STT_FUNC || bytes == 0 || value == 0 {
                continue;
            }
            let start = names + self.index(entry, 4)?;
            let tail = self.bytes.get(start..).context("a symbol name outside the file")?;
            let len = tail.iter().position(|&b| b == 0).context("an unterminated symbol name")?;
            functions.push(Function {
                name: String::from_utf8_lossy(&tail[..len]).into_owned(),
                addr: value,
                size: bytes,
            });
        }
        Ok(functions)
    }
}
