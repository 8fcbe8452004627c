//! The Job Object of one run: created with `JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE`, listed in the registry while it
//! lives (so [`super::signal_live_groups`] can reach it), killed with `TerminateJobObject`, closed on drop (which
//! kills whatever is still in it). Also the resume of a suspended leader's first thread.
#![allow(unsafe_code)]

use std::ffi::c_void;
use std::io;
use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle, RawHandle};

use windows_sys::Win32::Foundation::{HANDLE, INVALID_HANDLE_VALUE};
use windows_sys::Win32::System::Diagnostics::ToolHelp::{
    CreateToolhelp32Snapshot, TH32CS_SNAPTHREAD, THREADENTRY32, Thread32First, Thread32Next,
};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JobObjectExtendedLimitInformation, SetInformationJobObject,
    TerminateJobObject,
};
use windows_sys::Win32::System::Threading::{OpenThread, ResumeThread, THREAD_SUSPEND_RESUME};

use super::KILLED_EXIT_CODE;
use super::live;

/// One run's Job Object. The handle is not inheritable, so the host holds the only one.
pub(crate) struct Job {
    handle: OwnedHandle,
    id: u64,
}

impl Job {
    /// A new job whose processes all die when its last handle closes.
    pub(crate) fn new() -> io::Result<Job> {
        // SAFETY: null security attributes (a handle that is not inherited) and a null name (an anonymous job).
        let raw = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
        if raw.is_null() {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `raw` is a handle just returned to us, owned by nothing else.
        let handle = unsafe { OwnedHandle::from_raw_handle(raw as RawHandle) };
        // SAFETY: all-zero is a valid value of this plain C structure (no limits).
        let mut info: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = unsafe { std::mem::zeroed() };
        info.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
        let size = std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32;
        let info_ptr = (&raw const info).cast::<c_void>();
        // SAFETY: the handle is a job handle we own; the buffer is the structure of the class, of `size` bytes.
        if unsafe { SetInformationJobObject(raw, JobObjectExtendedLimitInformation, info_ptr, size) } == 0 {
            return Err(io::Error::last_os_error());
        }
        let id = live::add(raw as usize);
        Ok(Job { handle, id })
    }

    fn raw(&self) -> HANDLE {
        self.handle.as_raw_handle() as HANDLE
    }

    /// Puts the (suspended) process `process` in the job.
    pub(crate) fn assign(&self, process: RawHandle) -> io::Result<()> {
        // SAFETY: both handles are open for the call: the job's is ours, the process's belongs to a live `Child`.
        if unsafe { AssignProcessToJobObject(self.raw(), process as HANDLE) } == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Kills every process in the job; `false` when Windows refused.
    pub(crate) fn terminate(&self) -> bool {
        terminate_raw(self.raw() as usize)
    }
}

impl Drop for Job {
    /// Unlisted first (so no [`super::signal_live_groups`] reaches a closed handle), then closed, which kills what is
    /// left in the job.
    fn drop(&mut self) {
        live::remove(self.id);
    }
}

/// `TerminateJobObject` on a job handle that is open (a listed one: the registry's lock keeps it so).
pub(crate) fn terminate_raw(job: usize) -> bool {
    // SAFETY: the caller guarantees the handle is an open job handle for the call's duration.
    unsafe { TerminateJobObject(job as HANDLE, KILLED_EXIT_CODE) != 0 }
}

/// Resumes the first thread of the process `pid`, started with `CREATE_SUSPENDED` (its only thread: a suspended
/// process has not run any code that could start another).
pub(crate) fn resume_first_thread(pid: u32) -> io::Result<()> {
    // SAFETY: a snapshot of every thread of the system; the returned handle is checked, then owned below.
    let snapshot = unsafe { CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0) };
    if snapshot == INVALID_HANDLE_VALUE {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a valid handle just returned to us, closed when `_owned` drops.
    let _owned = unsafe { OwnedHandle::from_raw_handle(snapshot as RawHandle) };
    // SAFETY: all-zero is a valid value; dwSize is set as the API requires.
    let mut entry: THREADENTRY32 = unsafe { std::mem::zeroed() };
    entry.dwSize = std::mem::size_of::<THREADENTRY32>() as u32;
    // SAFETY: the snapshot handle is open and `entry` is a THREADENTRY32 with its size set.
    let mut more = unsafe { Thread32First(snapshot, &mut entry) } != 0;
    while more {
        if entry.th32OwnerProcessID == pid {
            return resume_thread(entry.th32ThreadID);
        }
        // SAFETY: as above.
        more = unsafe { Thread32Next(snapshot, &mut entry) } != 0;
    }
    Err(io::Error::new(io::ErrorKind::NotFound, "the suspended process has no thread to resume"))
}

fn resume_thread(tid: u32) -> io::Result<()> {
    // SAFETY: opens a thread by id with the one right needed; the result is checked.
    let thread = unsafe { OpenThread(THREAD_SUSPEND_RESUME, 0, tid) };
    if thread.is_null() {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a valid handle just returned to us, closed when `_owned` drops.
    let _owned = unsafe { OwnedHandle::from_raw_handle(thread as RawHandle) };
    // SAFETY: the thread handle is open with THREAD_SUSPEND_RESUME.
    if unsafe { ResumeThread(thread) } == u32::MAX {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
