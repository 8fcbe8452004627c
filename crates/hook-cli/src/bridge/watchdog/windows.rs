//! The Windows half of the watchdog's answer: `WriteFile` on the standard output and error handles, past std's
//! locks, which the stuck side may hold.
#![allow(unsafe_code)]

use hook_agents::bridge::Answer;
use windows_sys::Win32::Storage::FileSystem::WriteFile;
use windows_sys::Win32::System::Console::{GetStdHandle, STD_ERROR_HANDLE, STD_OUTPUT_HANDLE};

/// The answer written to the standard output and error handles directly.
pub(super) fn write_raw(answer: &Answer) {
    for (which, text) in [(STD_OUTPUT_HANDLE, &answer.stdout), (STD_ERROR_HANDLE, &answer.stderr)] {
        // SAFETY: asks for one of the process's standard handles; a missing one is null or invalid, checked below.
        let handle = unsafe { GetStdHandle(which) };
        if handle.is_null() || handle as isize == -1 {
            continue;
        }
        let mut bytes = text.as_bytes();
        while !bytes.is_empty() {
            let mut written = 0u32;
            let len = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
            // SAFETY: `bytes` is valid for `len` bytes; `written` is a writable u32; no OVERLAPPED (a synchronous write).
            let ok = unsafe { WriteFile(handle, bytes.as_ptr(), len, &mut written, std::ptr::null_mut()) };
            if ok == 0 || written == 0 {
                break;
            }
            bytes = &bytes[written as usize..];
        }
    }
}
