//! The few libmunge calls Spur needs, declared by hand from munge.h (0.5.x ABI): encode a payload into a
//! credential, decode one back to uid, gid, payload and lifetime. A context names munged's socket, so tests and
//! sites with a non-default socket (`AuthInfo=socket=`) never touch the system daemon.

use std::ffi::{c_char, c_int, c_void, CStr, CString};

#[repr(C)]
struct MungeCtx {
    _private: [u8; 0],
}

// munge_opt_t values from munge.h.
const MUNGE_OPT_TTL: c_int = 4;
const MUNGE_OPT_ENCODE_TIME: c_int = 6;
const MUNGE_OPT_SOCKET: c_int = 8;
const EMUNGE_SUCCESS: c_int = 0;

extern "C" {
    fn munge_ctx_create() -> *mut MungeCtx;
    fn munge_ctx_destroy(ctx: *mut MungeCtx);
    fn munge_ctx_set(ctx: *mut MungeCtx, opt: c_int, ...) -> c_int;
    fn munge_ctx_get(ctx: *mut MungeCtx, opt: c_int, ...) -> c_int;
    fn munge_encode(
        cred: *mut *mut c_char,
        ctx: *mut MungeCtx,
        buf: *const c_void,
        len: c_int,
    ) -> c_int;
    fn munge_decode(
        cred: *const c_char,
        ctx: *mut MungeCtx,
        buf: *mut *mut c_void,
        len: *mut c_int,
        uid: *mut libc::uid_t,
        gid: *mut libc::gid_t,
    ) -> c_int;
    fn munge_strerror(e: c_int) -> *const c_char;
}

/// A credential longer than this is refused before munged sees it (munged's own limit is far larger, but a
/// request header has no business being bigger).
pub const CREDENTIAL_LEN_MAX: usize = 64 * 1024;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} (munge error {code})")]
pub struct MungeError {
    /// munge_err_t: 15 expired, 16 rewound, 17 replayed, 14 invalid (e.g. another key), 6 socket.
    pub code: i32,
    pub message: String,
}

pub const EMUNGE_CRED_INVALID: i32 = 14;
pub const EMUNGE_CRED_EXPIRED: i32 = 15;
pub const EMUNGE_CRED_REPLAYED: i32 = 17;

impl MungeError {
    fn from_code(code: c_int) -> Self {
        // SAFETY: munge_strerror returns a pointer to a static string for any value.
        let text = unsafe { munge_strerror(code) };
        let message = if text.is_null() {
            "unknown munge error".to_string()
        } else {
            // SAFETY: non-null, NUL-terminated, static.
            unsafe { CStr::from_ptr(text) }
                .to_string_lossy()
                .into_owned()
        };
        MungeError { code, message }
    }

    fn local(message: &str) -> Self {
        MungeError {
            code: EMUNGE_CRED_INVALID,
            message: message.to_string(),
        }
    }
}

/// A decoded credential: who sealed it and what it carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    pub uid: u32,
    pub gid: u32,
    pub payload: Vec<u8>,
    pub encode_time: i64,
    pub ttl_secs: i64,
}

/// An owned munge context bound to one socket.
struct Context(*mut MungeCtx);

impl Context {
    fn new(socket: &str) -> Result<Context, MungeError> {
        let path =
            CString::new(socket).map_err(|_| MungeError::local("socket path has a NUL byte"))?;
        // SAFETY: plain constructor; null on allocation failure.
        let ctx = unsafe { munge_ctx_create() };
        if ctx.is_null() {
            return Err(MungeError::local("cannot create a munge context"));
        }
        let context = Context(ctx);
        // SAFETY: ctx is valid; MUNGE_OPT_SOCKET takes a `char *` which libmunge copies.
        let rc = unsafe { munge_ctx_set(context.0, MUNGE_OPT_SOCKET, path.as_ptr()) };
        if rc != EMUNGE_SUCCESS {
            return Err(MungeError::from_code(rc));
        }
        Ok(context)
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: created by munge_ctx_create and destroyed once.
        unsafe { munge_ctx_destroy(self.0) }
    }
}

/// Seals `payload` into a credential through the munged listening on `socket`.
pub fn encode(socket: &str, payload: &[u8]) -> Result<String, MungeError> {
    let context = Context::new(socket)?;
    let len = c_int::try_from(payload.len()).map_err(|_| MungeError::local("payload too large"))?;
    let mut cred: *mut c_char = std::ptr::null_mut();
    // SAFETY: payload outlives the call; cred receives a malloc'd string we free below.
    let rc = unsafe { munge_encode(&mut cred, context.0, payload.as_ptr().cast(), len) };
    if rc != EMUNGE_SUCCESS || cred.is_null() {
        return Err(MungeError::from_code(rc));
    }
    // SAFETY: munge_encode returned a NUL-terminated string allocated with malloc.
    let text = unsafe { CStr::from_ptr(cred) }
        .to_string_lossy()
        .into_owned();
    // SAFETY: freed exactly once, with the allocator libmunge used.
    unsafe { libc::free(cred.cast()) };
    Ok(text)
}

/// Has munged check `credential` (signature with its key, expiry, its own replay cache) and returns its contents.
pub fn decode(socket: &str, credential: &str) -> Result<Decoded, MungeError> {
    if credential.len() > CREDENTIAL_LEN_MAX {
        return Err(MungeError::local("credential too long"));
    }
    let cred =
        CString::new(credential).map_err(|_| MungeError::local("credential has a NUL byte"))?;
    let context = Context::new(socket)?;
    let mut buf: *mut c_void = std::ptr::null_mut();
    let mut len: c_int = 0;
    let mut uid: libc::uid_t = 0;
    let mut gid: libc::gid_t = 0;
    // SAFETY: all out-pointers are valid; buf (if set) is malloc'd and freed below, also on error.
    let rc = unsafe {
        munge_decode(
            cred.as_ptr(),
            context.0,
            &mut buf,
            &mut len,
            &mut uid,
            &mut gid,
        )
    };
    let payload = if buf.is_null() {
        Vec::new()
    } else {
        let n = usize::try_from(len).unwrap_or(0);
        // SAFETY: libmunge allocated `len` bytes at buf.
        let bytes = unsafe { std::slice::from_raw_parts(buf.cast::<u8>(), n) }.to_vec();
        // SAFETY: freed exactly once.
        unsafe { libc::free(buf) };
        bytes
    };
    if rc != EMUNGE_SUCCESS {
        return Err(MungeError::from_code(rc));
    }
    let mut encode_time: libc::time_t = 0;
    let mut ttl: c_int = 0;
    // SAFETY: the context was filled in by munge_decode; the out-pointers have the types munge.h documents.
    let rc = unsafe {
        munge_ctx_get(
            context.0,
            MUNGE_OPT_ENCODE_TIME,
            &mut encode_time as *mut libc::time_t,
        )
    };
    if rc != EMUNGE_SUCCESS {
        return Err(MungeError::from_code(rc));
    }
    // SAFETY: as above; MUNGE_OPT_TTL is an int.
    let rc = unsafe { munge_ctx_get(context.0, MUNGE_OPT_TTL, &mut ttl as *mut c_int) };
    if rc != EMUNGE_SUCCESS {
        return Err(MungeError::from_code(rc));
    }
    Ok(Decoded {
        uid,
        gid,
        payload,
        encode_time,
        ttl_secs: i64::from(ttl),
    })
}
