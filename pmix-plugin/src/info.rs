//! Building `pmix_info_t` arrays through libpmix's own list functions (`PMIx_Info_list_*`): libpmix allocates and
//! copies every value, so the arrays it receives are laid out and freed the way it expects.

use std::ffi::{c_void, CString};

use crate::ffi;
use crate::PmixError;

/// A list being built; released on drop.
pub(crate) struct InfoList(*mut c_void);

/// A converted list: an array of `pmix_info_t` owned by libpmix's allocator; destructed on drop.
pub(crate) struct InfoArray(ffi::pmix_data_array_t);

impl InfoList {
    pub(crate) fn new() -> Result<Self, PmixError> {
        // SAFETY: no arguments; returns an opaque list or NULL when out of memory.
        let p = unsafe { ffi::PMIx_Info_list_start() };
        if p.is_null() {
            return Err(PmixError::Pmix {
                call: "PMIx_Info_list_start",
                status: -1,
            });
        }
        Ok(InfoList(p))
    }

    /// Adds `key` with the value behind `value` of PMIx type `ty` (copied by libpmix).
    ///
    /// # Safety
    /// `value` must point to what PMIx's `PMIx_Value_load` expects for `ty`: the C string itself for
    /// `PMIX_STRING`, a `pmix_data_array_t` for `PMIX_DATA_ARRAY`, the number or bool for the scalar types.
    unsafe fn add_raw(
        &mut self,
        key: &[u8],
        value: *const c_void,
        ty: u32,
    ) -> Result<(), PmixError> {
        // Keys are bindgen's NUL-terminated byte strings of the header's #defines.
        debug_assert_eq!(key.last(), Some(&0));
        // SAFETY: self.0 is a live list; key is NUL-terminated; value matches ty per the caller's contract.
        let rc = unsafe { ffi::PMIx_Info_list_add(self.0, key.as_ptr().cast(), value, ty as u16) };
        check("PMIx_Info_list_add", rc)
    }

    pub(crate) fn u32(&mut self, key: &[u8], v: u32) -> Result<(), PmixError> {
        // SAFETY: a pointer to a u32 for PMIX_UINT32.
        unsafe { self.add_raw(key, (&v as *const u32).cast(), ffi::PMIX_UINT32) }
    }

    pub(crate) fn u16(&mut self, key: &[u8], v: u16) -> Result<(), PmixError> {
        // SAFETY: a pointer to a u16 for PMIX_UINT16.
        unsafe { self.add_raw(key, (&v as *const u16).cast(), ffi::PMIX_UINT16) }
    }

    pub(crate) fn int(&mut self, key: &[u8], v: i32) -> Result<(), PmixError> {
        // SAFETY: a pointer to a C int for PMIX_INT.
        unsafe { self.add_raw(key, (&v as *const i32).cast(), ffi::PMIX_INT) }
    }

    pub(crate) fn rank(&mut self, key: &[u8], v: u32) -> Result<(), PmixError> {
        // SAFETY: pmix_rank_t is a u32.
        unsafe { self.add_raw(key, (&v as *const u32).cast(), ffi::PMIX_PROC_RANK) }
    }

    pub(crate) fn bool(&mut self, key: &[u8], v: bool) -> Result<(), PmixError> {
        // SAFETY: a pointer to a C bool (Rust's bool has the same layout) for PMIX_BOOL.
        unsafe { self.add_raw(key, (&v as *const bool).cast(), ffi::PMIX_BOOL) }
    }

    pub(crate) fn string(&mut self, key: &[u8], v: &str) -> Result<(), PmixError> {
        let c = CString::new(v).map_err(|_| PmixError::Layout(format!("NUL in value {v:?}")))?;
        // SAFETY: PMIX_STRING takes the C string pointer itself; libpmix strdup()s it.
        unsafe { self.add_raw(key, c.as_ptr().cast(), ffi::PMIX_STRING) }
    }

    /// Adds a nested info array (as `PMIX_PROC_DATA` wants); libpmix deep-copies it.
    pub(crate) fn array(&mut self, key: &[u8], v: &InfoArray) -> Result<(), PmixError> {
        // SAFETY: PMIX_DATA_ARRAY takes a pointer to the pmix_data_array_t, which stays alive for the call.
        unsafe {
            self.add_raw(
                key,
                (&v.0 as *const ffi::pmix_data_array_t).cast(),
                ffi::PMIX_DATA_ARRAY,
            )
        }
    }

    pub(crate) fn convert(self) -> Result<InfoArray, PmixError> {
        // SAFETY: the all-zero pmix_data_array_t is the empty array (type 0, size 0, NULL).
        let mut arr: ffi::pmix_data_array_t = unsafe { std::mem::zeroed() };
        // SAFETY: self.0 is a live list and arr a writable data array.
        let rc = unsafe { ffi::PMIx_Info_list_convert(self.0, &mut arr) };
        let out = InfoArray(arr);
        check("PMIx_Info_list_convert", rc)?;
        Ok(out)
    }
}

impl Drop for InfoList {
    fn drop(&mut self) {
        // SAFETY: self.0 came from PMIx_Info_list_start and is released once.
        unsafe { ffi::PMIx_Info_list_release(self.0) }
    }
}

impl InfoArray {
    pub(crate) fn as_mut_ptr(&mut self) -> *mut ffi::pmix_info_t {
        self.0.array.cast()
    }

    pub(crate) fn len(&self) -> usize {
        self.0.size
    }
}

impl Drop for InfoArray {
    fn drop(&mut self) {
        // SAFETY: the array was filled by PMIx_Info_list_convert (or is the zeroed empty array), destructed once.
        unsafe { ffi::PMIx_Data_array_destruct(&mut self.0) }
    }
}

/// Turns a PMIx status into a Result.
pub(crate) fn check(call: &'static str, rc: ffi::pmix_status_t) -> Result<(), PmixError> {
    if rc == ffi::PMIX_SUCCESS as ffi::pmix_status_t {
        Ok(())
    } else {
        Err(PmixError::Pmix { call, status: rc })
    }
}
