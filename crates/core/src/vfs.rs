//! Database files kept in memory that lock as files on disk do.
//!
//! SQLite's own in-memory VFS (memdb) locks more strictly than a file: it
//! turns a reader away while any connection holds the write lock, where a
//! database file in rollback-journal mode lets the reader read the last
//! committed rows until the writer asks for its exclusive lock. A learner
//! would be taught SQLite's concurrency through locks that are not SQLite's.
//! This module is a VFS of the engine's own, registered under [`VFS_NAME`],
//! whose files live in memory, shared by name between the connections of
//! this program, and whose locks follow the rules of SQLite's unix VFS
//! (`unixLock`, `unixCheckReservedLock` and `unixShmLock` in sqlite3.c,
//! 3.54.1) between connections of one process:
//!
//! - SHARED is refused while another connection holds PENDING or EXCLUSIVE;
//! - RESERVED is refused while another connection holds RESERVED or more;
//! - EXCLUSIVE, asked from RESERVED, first takes PENDING (which then turns
//!   new readers away) and is refused, keeping PENDING, while another
//!   connection holds SHARED;
//! - the eight locks of a WAL's shared memory (`xShm*`, kept in memory
//!   here) are shared or exclusive, one holder of an exclusive at a time.
//!
//! So both of SQLite's journal modes behave as on a file: rollback (the
//! journal a file of this VFS too) and WAL (the `-wal` file one, the
//! wal-index its shared memory).
//!
//! Must never: touch a real file system (every file, temporary ones
//! included, is bytes in memory), wait (a refused lock is `SQLITE_BUSY` at
//! once), or hold a file after its last connection closes. All of the
//! engine's unsafe code that implements SQLite's C interfaces is here.

// Unsafe: a VFS is SQLite's C interface implemented in Rust: raw file and
// shared-memory handles SQLite owns, and callbacks it calls.
#![allow(unsafe_code)]

use rusqlite::ffi;
use rustc_hash::FxBuildHasher;
use std::collections::{BTreeMap, HashMap};
use std::ffi::{CStr, c_char, c_int, c_void};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Once};

/// The name connections open this VFS by (`?vfs=fencelab-file` in a URI).
pub const VFS_NAME: &str = "fencelab-file";
const VFS_NAME_C: &CStr = c"fencelab-file";

/// The longest path name a file of this VFS may have, in bytes.
const PATH_BYTES_MAX: c_int = 512;

/// SQLite's lock levels on a database file (sqlite3.h's SQLITE_LOCK_*).
const NONE: c_int = ffi::SQLITE_LOCK_NONE;
const SHARED: c_int = ffi::SQLITE_LOCK_SHARED;
const RESERVED: c_int = ffi::SQLITE_LOCK_RESERVED;
const PENDING: c_int = ffi::SQLITE_LOCK_PENDING;
const EXCLUSIVE: c_int = ffi::SQLITE_LOCK_EXCLUSIVE;

/// The number of locks in a WAL's shared memory (SQLITE_SHM_NLOCK).
const SHM_LOCKS: usize = 8;

/// The lock a connection holds on its main database file, as this VFS
/// keeps it (one of SQLite's five levels).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum FileLock {
    None,
    Shared,
    Reserved,
    /// Waiting for readers to leave so it can write: turns new readers away.
    Pending,
    Exclusive,
}

impl FileLock {
    fn of(level: c_int) -> FileLock {
        match level {
            SHARED => FileLock::Shared,
            RESERVED => FileLock::Reserved,
            PENDING => FileLock::Pending,
            EXCLUSIVE => FileLock::Exclusive,
            _ => FileLock::None,
        }
    }
}

/// One file's bytes and everything its connections share.
#[derive(Default)]
struct FileState {
    bytes: Vec<u8>,
    /// The [`stamp`] of this file's latest write, or of its making.
    written: u64,
    /// The lock level of every open handle, by handle number.
    locks: HashMap<u64, c_int, FxBuildHasher>,
    /// The WAL's shared memory: regions that never move once made, since
    /// SQLite keeps pointers into them. `u64` keeps them 8-byte aligned.
    shm_regions: Vec<Box<[u64]>>,
    /// Per shared-memory lock: 0 free, n > 0 shared by n handles, -1 held
    /// exclusively (as `aLock` in unixShmNode).
    shm_locks: [i32; SHM_LOCKS],
    /// Handles that have the shared memory mapped.
    shm_users: u32,
}

impl FileState {
    /// The strongest lock any handle holds (the unix VFS's
    /// `pInode->eFileLock`; only one handle can hold more than SHARED).
    fn strongest(&self) -> c_int {
        self.locks.values().copied().max().unwrap_or(NONE)
    }

    fn readers(&self) -> usize {
        self.locks
            .values()
            .filter(|&&level| level >= SHARED)
            .count()
    }
}

type SharedFile = Arc<Mutex<FileState>>;

/// The files of this program, by path. A file leaves when its last handle
/// closes or when it is deleted (an open handle keeps its bytes, as an
/// unlinked file's descriptor does).
fn files() -> MutexGuard<'static, BTreeMap<String, SharedFile>> {
    static FILES: Mutex<BTreeMap<String, SharedFile>> = Mutex::new(BTreeMap::new());
    lock(&FILES)
}

/// The emptied buffers of files that are gone, kept for the next file
/// made. A rollback journal lives for one write transaction: grown anew
/// from nothing each time, by the page, it was reallocated and copied
/// several times per transaction.
fn spare_buffers() -> MutexGuard<'static, Vec<Vec<u8>>> {
    static SPARE: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());
    lock(&SPARE)
}

/// How many buffers are kept, and the largest kept (a file that grew past
/// it gives its memory back).
const SPARE_BUFFERS_MAX: usize = 16;
const SPARE_BUFFER_BYTES_MAX: usize = 1 << 20;

/// A new, empty file, with a spare buffer's room if there is one.
fn new_file() -> SharedFile {
    let bytes = spare_buffers().pop().unwrap_or_default();
    Arc::new(Mutex::new(FileState {
        bytes,
        written: stamp(),
        ..FileState::default()
    }))
}

/// A number no earlier call returned, in this program: every write to a
/// file, and every file made, takes one. A file whose stamp is what it was
/// has not been written since, even if it was deleted and made again.
fn stamp() -> u64 {
    static STAMPS: AtomicU64 = AtomicU64::new(1);
    STAMPS.fetch_add(1, Ordering::Relaxed)
}

/// When a database's committed rows may last have changed, and whether a
/// reader could read them now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stored {
    /// The stamps of the latest writes to the database file and to its
    /// write-ahead log (0 while it has none). Equal stamps at two moments
    /// mean nothing wrote either file in between, so a read-only query
    /// finds the same rows in the same pages at both.
    written: (u64, u64),
}

/// The database at `path` (a name as SQLite opened it; its write-ahead log
/// at `wal`) as it stands: `None` when there is no such file, or when a
/// connection holds PENDING or EXCLUSIVE on it, which turns a new reader
/// away (so a query now would not read what it read before).
pub fn stored(path: &str, wal: &str) -> Option<Stored> {
    let files = files();
    let main = lock(files.get(path)?);
    if main.strongest() >= PENDING {
        return None;
    }
    let wal = files.get(wal).map_or(0, |file| lock(file).written);
    Some(Stored {
        written: (main.written, wal),
    })
}

/// Keeps the buffer of a file that no one holds any more.
fn recycle(file: SharedFile) {
    let Some(state) = Arc::into_inner(file) else {
        return;
    };
    let mut bytes = state
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .bytes;
    if bytes.capacity() > SPARE_BUFFER_BYTES_MAX {
        return;
    }
    bytes.clear();
    let mut spare = spare_buffers();
    if spare.len() < SPARE_BUFFERS_MAX {
        spare.push(bytes);
    }
}

/// `mutex` locked. A panic while it was held (only a bug could cause one)
/// leaves plain bytes and tables that are still usable, so the lock is
/// taken all the same rather than failing every later call into SQLite.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// What SQLite allocates for each open file (`szOsFile` bytes): SQLite's
/// own header first, as its C interface requires, then this VFS's state.
#[repr(C)]
struct Handle {
    base: ffi::sqlite3_file,
    /// This handle's number among every file's handles.
    number: u64,
    /// `Arc::into_raw` of the file: released in `close`.
    file: *const Mutex<FileState>,
    /// The path the file is kept under, or null for a private temporary
    /// file. A `Box<String>` made by `Box::into_raw`.
    path: *mut String,
    /// The lock this handle holds, mirrored from the file's table.
    level: c_int,
    shm_mapped: bool,
    shm_shared: u16,
    shm_exclusive: u16,
}

impl Handle {
    /// # Safety
    /// `file` must be a handle this VFS opened and has not closed.
    unsafe fn from<'a>(file: *mut ffi::sqlite3_file) -> &'a mut Handle {
        // SAFETY: SQLite passes back the pointer it gave xOpen, which this
        // module initialised as a Handle; SQLite calls one file's methods
        // from one thread at a time.
        unsafe { &mut *file.cast::<Handle>() }
    }

    /// The file's shared state, locked. Not tied to the borrow of the
    /// handle, so the handle's own fields can change meanwhile.
    fn state<'a>(&self) -> MutexGuard<'a, FileState> {
        // SAFETY: `file` holds a strong count of the Arc until `close`, and
        // SQLite calls no method of a handle after closing it.
        let shared: &'a Mutex<FileState> = unsafe { &*self.file };
        lock(shared)
    }
}

/// Registers the VFS with SQLite once per program (not as the default: the
/// engine names it in every URI).
pub fn register() {
    static REGISTERED: Once = Once::new();
    REGISTERED.call_once(|| {
        // SAFETY: sqlite3_vfs_find(NULL) returns the default VFS SQLite
        // initialised (it initialises itself first), which lives as long as
        // the program; the VFS given to sqlite3_vfs_register is leaked, so it
        // too lives as long as the program, as SQLite requires.
        unsafe {
            let base = ffi::sqlite3_vfs_find(std::ptr::null());
            let vfs = Box::new(ffi::sqlite3_vfs {
                iVersion: 2,
                szOsFile: std::mem::size_of::<Handle>() as c_int,
                mxPathname: PATH_BYTES_MAX,
                pNext: std::ptr::null_mut(),
                zName: VFS_NAME_C.as_ptr(),
                pAppData: base.cast(),
                xOpen: Some(open),
                xDelete: Some(delete),
                xAccess: Some(access),
                xFullPathname: Some(full_pathname),
                xDlOpen: None,
                xDlError: None,
                xDlSym: None,
                xDlClose: None,
                xRandomness: Some(randomness),
                xSleep: Some(sleep),
                xCurrentTime: Some(current_time),
                xGetLastError: Some(last_error),
                xCurrentTimeInt64: Some(current_time_int64),
                xSetSystemCall: None,
                xGetSystemCall: None,
                xNextSystemCall: None,
            });
            ffi::sqlite3_vfs_register(Box::into_raw(vfs), 0);
        }
    });
}

/// The lock connection `db` holds on its main database file, if that file
/// is one of this VFS's.
pub fn main_file_lock(db: &rusqlite::Connection) -> Option<FileLock> {
    let mut file: *mut ffi::sqlite3_file = std::ptr::null_mut();
    // SAFETY: SQLITE_FCNTL_FILE_POINTER writes the main database's
    // sqlite3_file pointer into `file` (SQLite answers it itself); the
    // handle is read only if its methods are this VFS's, and then only its
    // `level`, on the connection's own thread.
    unsafe {
        let rc = ffi::sqlite3_file_control(
            db.handle(),
            c"main".as_ptr(),
            ffi::SQLITE_FCNTL_FILE_POINTER,
            (&raw mut file).cast(),
        );
        if rc != ffi::SQLITE_OK || file.is_null() || (*file).pMethods != &raw const IO_METHODS {
            return None;
        }
        Some(FileLock::of(Handle::from(file).level))
    }
}

fn next_handle_number() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// Borrowed where the name is UTF-8 (always, for the names the engine
/// gives): SQLite asks whether a journal exists at every transaction's
/// start, and copying the name each time was a measurable cost.
///
/// # Safety
/// `name` must be null or a NUL-terminated string that outlives the result.
unsafe fn path_of<'a>(name: *const c_char) -> Option<std::borrow::Cow<'a, str>> {
    if name.is_null() {
        return None;
    }
    // SAFETY: as the caller promises.
    let name = unsafe { CStr::from_ptr(name) };
    Some(name.to_string_lossy())
}

static IO_METHODS: ffi::sqlite3_io_methods = ffi::sqlite3_io_methods {
    iVersion: 2,
    xClose: Some(close),
    xRead: Some(read),
    xWrite: Some(write),
    xTruncate: Some(truncate),
    xSync: Some(sync),
    xFileSize: Some(file_size),
    xLock: Some(lock_file),
    xUnlock: Some(unlock_file),
    xCheckReservedLock: Some(check_reserved_lock),
    xFileControl: Some(file_control),
    xSectorSize: Some(sector_size),
    xDeviceCharacteristics: Some(device_characteristics),
    xShmMap: Some(shm_map),
    xShmLock: Some(shm_lock),
    xShmBarrier: Some(shm_barrier),
    xShmUnmap: Some(shm_unmap),
    xFetch: None,
    xUnfetch: None,
};

unsafe extern "C" fn open(
    _vfs: *mut ffi::sqlite3_vfs,
    name: ffi::sqlite3_filename,
    file: *mut ffi::sqlite3_file,
    flags: c_int,
    out_flags: *mut c_int,
) -> c_int {
    // SAFETY: SQLite passes a file name that is null or NUL-terminated.
    let path = unsafe { path_of(name) }.map(std::borrow::Cow::into_owned);
    let delete_on_close = flags & ffi::SQLITE_OPEN_DELETEONCLOSE != 0;
    let shared = match &path {
        Some(path) if !delete_on_close => {
            let mut files = files();
            match files.get(path) {
                Some(existing) => Arc::clone(existing),
                None if flags & ffi::SQLITE_OPEN_CREATE == 0 => return ffi::SQLITE_CANTOPEN,
                None => {
                    let made = new_file();
                    files.insert(path.clone(), Arc::clone(&made));
                    made
                }
            }
        }
        // A temporary file is private to its handle, as an unlinked one is.
        _ => new_file(),
    };
    let number = next_handle_number();
    lock(&shared).locks.insert(number, NONE);
    let path = match path {
        Some(path) if !delete_on_close => Box::into_raw(Box::new(path)),
        _ => std::ptr::null_mut(),
    };
    // SAFETY: SQLite gives xOpen `szOsFile` writable bytes, the size of a
    // Handle, suitably aligned for any type (it comes from sqlite3_malloc).
    unsafe {
        file.cast::<Handle>().write(Handle {
            base: ffi::sqlite3_file {
                pMethods: &raw const IO_METHODS,
            },
            number,
            file: Arc::into_raw(shared),
            path,
            level: NONE,
            shm_mapped: false,
            shm_shared: 0,
            shm_exclusive: 0,
        });
        if !out_flags.is_null() {
            *out_flags = flags;
        }
    }
    ffi::SQLITE_OK
}

unsafe extern "C" fn close(file: *mut ffi::sqlite3_file) -> c_int {
    // SAFETY: SQLite closes each file it opened once, and never uses it after.
    let handle = unsafe { Handle::from(file) };
    // SAFETY: `file` came from Arc::into_raw in `open`; this is its release.
    let shared = unsafe { Arc::from_raw(handle.file) };
    let left = {
        let mut state = lock(&shared);
        state.locks.remove(&handle.number);
        release_shm(&mut state, handle);
        state.locks.is_empty()
    };
    if !handle.path.is_null() {
        // SAFETY: made by Box::into_raw in `open`, released only here.
        let path = unsafe { Box::from_raw(handle.path) };
        if left {
            let mut files = files();
            if files
                .get(path.as_str())
                .is_some_and(|kept| Arc::ptr_eq(kept, &shared))
            {
                files.remove(path.as_str());
            }
        }
    }
    handle.base.pMethods = std::ptr::null();
    recycle(shared);
    ffi::SQLITE_OK
}

unsafe extern "C" fn read(
    file: *mut ffi::sqlite3_file,
    buffer: *mut c_void,
    amount: c_int,
    offset: ffi::sqlite3_int64,
) -> c_int {
    // SAFETY: an open handle of this VFS.
    let handle = unsafe { Handle::from(file) };
    let state = handle.state();
    let (Ok(amount), Ok(offset)) = (usize::try_from(amount), usize::try_from(offset)) else {
        return ffi::SQLITE_IOERR_READ;
    };
    // SAFETY: SQLite gives `amount` writable bytes at `buffer`.
    let out = unsafe { std::slice::from_raw_parts_mut(buffer.cast::<u8>(), amount) };
    let available = state.bytes.len().saturating_sub(offset).min(amount);
    if available > 0 {
        out[..available].copy_from_slice(&state.bytes[offset..offset + available]);
    }
    if available < amount {
        // SQLite requires the unread rest zeroed on a short read.
        out[available..].fill(0);
        return ffi::SQLITE_IOERR_SHORT_READ;
    }
    ffi::SQLITE_OK
}

unsafe extern "C" fn write(
    file: *mut ffi::sqlite3_file,
    buffer: *const c_void,
    amount: c_int,
    offset: ffi::sqlite3_int64,
) -> c_int {
    // SAFETY: an open handle of this VFS.
    let handle = unsafe { Handle::from(file) };
    let mut state = handle.state();
    let (Ok(amount), Ok(offset)) = (usize::try_from(amount), usize::try_from(offset)) else {
        return ffi::SQLITE_IOERR_WRITE;
    };
    // SAFETY: SQLite gives `amount` readable bytes at `buffer`.
    let input = unsafe { std::slice::from_raw_parts(buffer.cast::<u8>(), amount) };
    let bytes = &mut state.bytes;
    // A journal grows by appends: those are copied once, not zeroed first.
    if bytes.len() < offset {
        bytes.resize(offset, 0);
    }
    let inside = input.len().min(bytes.len() - offset);
    bytes[offset..offset + inside].copy_from_slice(&input[..inside]);
    bytes.extend_from_slice(&input[inside..]);
    state.written = stamp();
    ffi::SQLITE_OK
}

unsafe extern "C" fn truncate(file: *mut ffi::sqlite3_file, size: ffi::sqlite3_int64) -> c_int {
    // SAFETY: an open handle of this VFS.
    let handle = unsafe { Handle::from(file) };
    let Ok(size) = usize::try_from(size) else {
        return ffi::SQLITE_IOERR_TRUNCATE;
    };
    let mut state = handle.state();
    if state.bytes.len() > size {
        state.bytes.truncate(size);
        state.written = stamp();
    }
    ffi::SQLITE_OK
}

unsafe extern "C" fn sync(_file: *mut ffi::sqlite3_file, _flags: c_int) -> c_int {
    // Memory is as durable as this program: there is nothing to flush.
    ffi::SQLITE_OK
}

unsafe extern "C" fn file_size(
    file: *mut ffi::sqlite3_file,
    size: *mut ffi::sqlite3_int64,
) -> c_int {
    // SAFETY: an open handle of this VFS, and SQLite's out pointer.
    unsafe {
        let handle = Handle::from(file);
        *size = handle.state().bytes.len() as ffi::sqlite3_int64;
    }
    ffi::SQLITE_OK
}

/// The unix VFS's `unixLock` between handles of one process, step by step.
unsafe extern "C" fn lock_file(file: *mut ffi::sqlite3_file, want: c_int) -> c_int {
    // SAFETY: an open handle of this VFS.
    let handle = unsafe { Handle::from(file) };
    if handle.level >= want {
        return ffi::SQLITE_OK;
    }
    let mut state = handle.state();
    let strongest = state.strongest();
    // Another handle holds a lock that precludes this one: PENDING or more
    // turns everyone away, and RESERVED or more is one handle's at a time.
    if handle.level != strongest && (strongest >= PENDING || want > SHARED) {
        return ffi::SQLITE_BUSY;
    }
    let mut held = handle.level;
    if want == SHARED {
        held = SHARED;
    } else {
        if want == EXCLUSIVE && handle.level == RESERVED {
            // The writer announces itself: no new reader gets in from now on,
            // even while the readers still inside keep it waiting.
            held = PENDING;
        }
        // Readers still inside keep an exclusive lock waiting; in WAL mode,
        // another connection on the shared memory keeps away any lock above
        // SHARED on the database file (`unixIsSharingShmNode`).
        let others_reading = want == EXCLUSIVE && state.readers() > 1;
        let others_mapped = handle.shm_mapped && state.shm_users > 1;
        if !others_reading && !others_mapped {
            held = want;
        }
    }
    let refused = held != want;
    state.locks.insert(handle.number, held);
    drop(state);
    handle.level = held;
    if refused {
        ffi::SQLITE_BUSY
    } else {
        ffi::SQLITE_OK
    }
}

unsafe extern "C" fn unlock_file(file: *mut ffi::sqlite3_file, want: c_int) -> c_int {
    // SAFETY: an open handle of this VFS.
    let handle = unsafe { Handle::from(file) };
    if handle.level > want {
        handle.state().locks.insert(handle.number, want);
        handle.level = want;
    }
    ffi::SQLITE_OK
}

unsafe extern "C" fn check_reserved_lock(file: *mut ffi::sqlite3_file, out: *mut c_int) -> c_int {
    // SAFETY: an open handle of this VFS, and SQLite's out pointer.
    unsafe {
        let handle = Handle::from(file);
        *out = c_int::from(handle.state().strongest() > SHARED);
    }
    ffi::SQLITE_OK
}

unsafe extern "C" fn file_control(
    _file: *mut ffi::sqlite3_file,
    _op: c_int,
    _arg: *mut c_void,
) -> c_int {
    ffi::SQLITE_NOTFOUND
}

unsafe extern "C" fn sector_size(_file: *mut ffi::sqlite3_file) -> c_int {
    // The unix VFS's default (SQLITE_DEFAULT_SECTOR_SIZE).
    4096
}

unsafe extern "C" fn device_characteristics(_file: *mut ffi::sqlite3_file) -> c_int {
    // What the unix VFS reports for a local file (powersafe overwrite is its
    // default), so the pager and the WAL write as they would there.
    ffi::SQLITE_IOCAP_POWERSAFE_OVERWRITE
}

unsafe extern "C" fn shm_map(
    file: *mut ffi::sqlite3_file,
    region: c_int,
    region_bytes: c_int,
    extend: c_int,
    out: *mut *mut c_void,
) -> c_int {
    // SAFETY: an open handle of this VFS.
    let handle = unsafe { Handle::from(file) };
    let (Ok(region), Ok(region_bytes)) = (usize::try_from(region), usize::try_from(region_bytes))
    else {
        return ffi::SQLITE_IOERR_SHMMAP;
    };
    let mut state = handle.state();
    if !handle.shm_mapped {
        handle.shm_mapped = true;
        state.shm_users += 1;
    }
    let mut pointer: *mut c_void = std::ptr::null_mut();
    if region >= state.shm_regions.len() && extend != 0 {
        let words = region_bytes.div_ceil(8);
        while state.shm_regions.len() <= region {
            state.shm_regions.push(vec![0u64; words].into_boxed_slice());
        }
    }
    if let Some(memory) = state.shm_regions.get_mut(region) {
        pointer = memory.as_mut_ptr().cast();
    }
    // SAFETY: SQLite's out pointer. The region's memory stays where it is
    // until the shared memory is unmapped with its delete flag by its last
    // user, after which SQLite no longer reads it.
    unsafe { *out = pointer };
    ffi::SQLITE_OK
}

/// The unix VFS's `unixShmLock` between handles of one process.
unsafe extern "C" fn shm_lock(
    file: *mut ffi::sqlite3_file,
    offset: c_int,
    count: c_int,
    flags: c_int,
) -> c_int {
    // SAFETY: an open handle of this VFS.
    let handle = unsafe { Handle::from(file) };
    let (Ok(first), Ok(count)) = (usize::try_from(offset), usize::try_from(count)) else {
        return ffi::SQLITE_IOERR_SHMLOCK;
    };
    if first + count > SHM_LOCKS || !handle.shm_mapped {
        return ffi::SQLITE_IOERR_SHMLOCK;
    }
    let slots = first..first + count;
    let mask: u16 = slots.clone().fold(0, |mask, slot| mask | (1 << slot));
    let mut state = handle.state();
    let locks = &mut state.shm_locks;
    if flags & ffi::SQLITE_SHM_UNLOCK != 0 {
        for slot in slots {
            let bit = 1u16 << slot;
            if handle.shm_exclusive & bit != 0 {
                locks[slot] = 0;
            } else if handle.shm_shared & bit != 0 {
                locks[slot] -= 1;
            }
        }
        handle.shm_exclusive &= !mask;
        handle.shm_shared &= !mask;
    } else if flags & ffi::SQLITE_SHM_SHARED != 0 {
        if handle.shm_shared & mask == mask {
            return ffi::SQLITE_OK;
        }
        if slots.clone().any(|slot| locks[slot] < 0) {
            return ffi::SQLITE_BUSY;
        }
        for slot in slots {
            if handle.shm_shared & (1 << slot) == 0 {
                locks[slot] += 1;
            }
        }
        handle.shm_shared |= mask;
    } else {
        // Exclusive: no other handle may hold any of these slots at all.
        let own_shared = handle.shm_shared;
        if slots.clone().any(|slot| {
            let own = i32::from(own_shared & (1 << slot) != 0);
            locks[slot] < 0 || locks[slot] > own
        }) {
            return ffi::SQLITE_BUSY;
        }
        for slot in slots {
            locks[slot] = -1;
        }
        handle.shm_shared &= !mask;
        handle.shm_exclusive |= mask;
    }
    ffi::SQLITE_OK
}

unsafe extern "C" fn shm_barrier(_file: *mut ffi::sqlite3_file) {
    std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
}

unsafe extern "C" fn shm_unmap(file: *mut ffi::sqlite3_file, delete: c_int) -> c_int {
    // SAFETY: an open handle of this VFS.
    let handle = unsafe { Handle::from(file) };
    let mut state = handle.state();
    release_shm(&mut state, handle);
    if delete != 0 && state.shm_users == 0 {
        state.shm_regions.clear();
        state.shm_locks = [0; SHM_LOCKS];
    }
    ffi::SQLITE_OK
}

/// Gives back a handle's shared-memory locks and mapping.
fn release_shm(state: &mut FileState, handle: &mut Handle) {
    if !handle.shm_mapped {
        return;
    }
    for slot in 0..SHM_LOCKS {
        let bit = 1u16 << slot;
        if handle.shm_exclusive & bit != 0 {
            state.shm_locks[slot] = 0;
        } else if handle.shm_shared & bit != 0 {
            state.shm_locks[slot] -= 1;
        }
    }
    handle.shm_exclusive = 0;
    handle.shm_shared = 0;
    handle.shm_mapped = false;
    state.shm_users -= 1;
}

unsafe extern "C" fn delete(
    _vfs: *mut ffi::sqlite3_vfs,
    name: *const c_char,
    _sync_directory: c_int,
) -> c_int {
    // SAFETY: SQLite passes a NUL-terminated name.
    if let Some(path) = unsafe { path_of(name) } {
        files().remove(path.as_ref());
    }
    ffi::SQLITE_OK
}

unsafe extern "C" fn access(
    _vfs: *mut ffi::sqlite3_vfs,
    name: *const c_char,
    _flags: c_int,
    out: *mut c_int,
) -> c_int {
    // SAFETY: SQLite passes a NUL-terminated name.
    let path = unsafe { path_of(name) };
    let exists = path.is_some_and(|path| {
        let file = files().get(path.as_ref()).cloned();
        // As the unix VFS, an empty file counts as absent (a journal
        // truncated to nothing is no journal).
        file.is_some_and(|file| !lock(&file).bytes.is_empty())
    });
    // SAFETY: SQLite's out pointer.
    unsafe { *out = c_int::from(exists) };
    ffi::SQLITE_OK
}

unsafe extern "C" fn full_pathname(
    _vfs: *mut ffi::sqlite3_vfs,
    name: *const c_char,
    out_bytes: c_int,
    out: *mut c_char,
) -> c_int {
    // SAFETY: SQLite passes a NUL-terminated name and `out_bytes` writable
    // bytes at `out`.
    unsafe {
        let name = CStr::from_ptr(name).to_bytes_with_nul();
        if name.len() > usize::try_from(out_bytes).unwrap_or(0) {
            return ffi::SQLITE_CANTOPEN;
        }
        std::ptr::copy_nonoverlapping(name.as_ptr().cast::<c_char>(), out, name.len());
    }
    ffi::SQLITE_OK
}

/// The default VFS, which answers what is not about files.
///
/// # Safety
/// `vfs` must be this module's registered VFS.
unsafe fn base(vfs: *mut ffi::sqlite3_vfs) -> *mut ffi::sqlite3_vfs {
    // SAFETY: `register` stored the default VFS in pAppData.
    unsafe { (*vfs).pAppData.cast() }
}

unsafe extern "C" fn randomness(
    vfs: *mut ffi::sqlite3_vfs,
    bytes: c_int,
    out: *mut c_char,
) -> c_int {
    // SAFETY: the default VFS's own method, on its own VFS.
    unsafe {
        let base = base(vfs);
        match (*base).xRandomness {
            Some(method) => method(base, bytes, out),
            None => 0,
        }
    }
}

unsafe extern "C" fn sleep(vfs: *mut ffi::sqlite3_vfs, microseconds: c_int) -> c_int {
    // The engine never waits (busy timeout zero); SQLite sleeps only when
    // told to wait, so this answers without sleeping.
    let _ = (vfs, microseconds);
    0
}

unsafe extern "C" fn current_time(vfs: *mut ffi::sqlite3_vfs, out: *mut f64) -> c_int {
    // SAFETY: the default VFS's own method, on its own VFS.
    unsafe {
        let base = base(vfs);
        match (*base).xCurrentTime {
            Some(method) => method(base, out),
            None => ffi::SQLITE_ERROR,
        }
    }
}

unsafe extern "C" fn current_time_int64(
    vfs: *mut ffi::sqlite3_vfs,
    out: *mut ffi::sqlite3_int64,
) -> c_int {
    // SAFETY: the default VFS's own method, on its own VFS, when it has it.
    unsafe {
        let base = base(vfs);
        match (*base).xCurrentTimeInt64 {
            Some(method) if (*base).iVersion >= 2 => method(base, out),
            _ => ffi::SQLITE_ERROR,
        }
    }
}

unsafe extern "C" fn last_error(
    _vfs: *mut ffi::sqlite3_vfs,
    _bytes: c_int,
    _out: *mut c_char,
) -> c_int {
    0
}
