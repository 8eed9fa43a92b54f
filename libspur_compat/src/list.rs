//! `slurm_list_*`: Slurm's generic list (`List`, `ListIterator`) for C callers and for the lists this library
//! returns (`slurm_ctl_conf_2_key_pairs`). Items are the caller's `void *`; the list's destructor frees them on
//! `slurm_list_destroy`. Each list carries a mutex, like Slurm's.

use std::ffi::{c_int, c_void};
use std::sync::Mutex;

use slurm_headers::{List, ListCmpF, ListDelF, ListFindF, ListIterator};

use crate::ffi::{self, guard};

struct Items {
    items: Vec<*mut c_void>,
    destroy: ListDelF,
}

/// A list: its items behind a lock; raw pointers are the caller's business, as in Slurm.
pub struct SpurList(Mutex<Items>);

// SAFETY: the items are opaque pointers the C caller shares across threads under Slurm's list contract; every
// access to the vector goes through the mutex.
unsafe impl Send for SpurList {}
// SAFETY: as above.
unsafe impl Sync for SpurList {}

struct Iter {
    list: *const SpurList,
    pos: usize,
}

/// Creates a list owned by the caller (`slurm_list_destroy` frees it).
pub fn create(destroy: ListDelF) -> List {
    Box::into_raw(Box::new(SpurList(Mutex::new(Items {
        items: Vec::new(),
        destroy,
    })))) as List
}

/// Appends an item to a list made by [`create`].
///
/// # Safety
/// `l` is a live list.
pub unsafe fn append(l: List, x: *mut c_void) {
    // SAFETY: the caller's contract.
    unsafe { with(l, (), |items| items.items.push(x)) }
}

/// Calls `f` with each item of a live list, in order (for lists a caller hands in, e.g. id filters).
///
/// # Safety
/// `l` is NULL or a live list.
pub unsafe fn for_each(l: List, mut f: impl FnMut(*mut c_void)) {
    // SAFETY: the caller's contract.
    unsafe {
        with(l, (), |items| {
            for &x in &items.items {
                f(x)
            }
        })
    }
}

/// The number of items of a live list (0 for NULL).
///
/// # Safety
/// `l` is NULL or a live list.
pub unsafe fn count(l: List) -> usize {
    // SAFETY: the caller's contract.
    unsafe { with(l, 0, |items| items.items.len()) }
}

/// Removes the first item `pred` accepts, releasing it with the list's destructor as `list_delete_item` does;
/// true when one was removed.
///
/// # Safety
/// `l` is NULL or a live list; `pred` is called with its items.
pub unsafe fn delete_first(l: List, mut pred: impl FnMut(*mut c_void) -> bool) -> bool {
    // SAFETY: the caller's contract.
    let removed = unsafe {
        with(l, None, |items| {
            let at = items.items.iter().position(|&x| pred(x))?;
            Some((items.items.remove(at), items.destroy))
        })
    };
    match removed {
        Some((item, destroy)) => {
            if let Some(destroy) = destroy {
                // SAFETY: the destructor the caller registered for the list's items; called outside the lock.
                unsafe { destroy(item) };
            }
            true
        }
        None => false,
    }
}

/// Deletes every item, releasing each with the list's destructor (`list_flush`).
///
/// # Safety
/// `l` is NULL or a live list.
pub unsafe fn flush(l: List) {
    // SAFETY: the caller's contract.
    let (items, destroy) = unsafe {
        with(l, (Vec::new(), None), |items| {
            (std::mem::take(&mut items.items), items.destroy)
        })
    };
    if let Some(destroy) = destroy {
        for item in items {
            // SAFETY: the destructor the caller registered for the list's items; called outside the lock.
            unsafe { destroy(item) };
        }
    }
}

/// # Safety
/// `l` is NULL or a live list.
unsafe fn with<R>(l: List, missing: R, f: impl FnOnce(&mut Items) -> R) -> R {
    if l.is_null() {
        ffi::set_errno(libc::EINVAL);
        return missing;
    }
    // SAFETY: the caller's contract: `l` came from `create`.
    let list = unsafe { &*(l as *const SpurList) };
    match list.0.lock() {
        Ok(mut items) => f(&mut items),
        Err(_) => missing,
    }
}

#[no_mangle]
pub extern "C" fn slurm_list_create(f: ListDelF) -> List {
    guard("slurm_list_create", std::ptr::null_mut(), || create(f))
}

/// # Safety
/// `l` is NULL or a live list, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_list_destroy(l: List) {
    guard("slurm_list_destroy", (), || {
        if l.is_null() {
            return;
        }
        // SAFETY: the caller's contract.
        let list = unsafe { Box::from_raw(l as *mut SpurList) };
        let Ok(items) = list.0.into_inner() else {
            return;
        };
        if let Some(destroy) = items.destroy {
            for item in items.items {
                // SAFETY: the destructor the caller registered for exactly these items.
                unsafe { destroy(item) };
            }
        }
    })
}

/// # Safety
/// `l` is NULL or a live list.
#[no_mangle]
pub unsafe extern "C" fn slurm_list_append(l: List, x: *mut c_void) -> *mut c_void {
    // SAFETY: the caller's contract.
    guard("slurm_list_append", std::ptr::null_mut(), || unsafe {
        with(l, std::ptr::null_mut(), |items| {
            items.items.push(x);
            x
        })
    })
}

/// # Safety
/// `l` is NULL or a live list.
#[no_mangle]
pub unsafe extern "C" fn slurm_list_count(l: List) -> c_int {
    // SAFETY: the caller's contract.
    guard("slurm_list_count", -1, || unsafe {
        with(l, -1, |items| {
            c_int::try_from(items.items.len()).unwrap_or(c_int::MAX)
        })
    })
}

/// # Safety
/// `l` is NULL or a live list.
#[no_mangle]
pub unsafe extern "C" fn slurm_list_is_empty(l: List) -> c_int {
    // SAFETY: the caller's contract.
    guard("slurm_list_is_empty", 1, || unsafe {
        with(l, 1, |items| c_int::from(items.items.is_empty()))
    })
}

/// Removes and returns the first item (not destroyed), or NULL.
///
/// # Safety
/// `l` is NULL or a live list.
#[no_mangle]
pub unsafe extern "C" fn slurm_list_pop(l: List) -> *mut c_void {
    // SAFETY: the caller's contract.
    guard("slurm_list_pop", std::ptr::null_mut(), || unsafe {
        with(l, std::ptr::null_mut(), |items| {
            if items.items.is_empty() {
                std::ptr::null_mut()
            } else {
                items.items.remove(0)
            }
        })
    })
}

/// Sorts with the caller's comparator (stable, like Slurm's merge of equal items).
///
/// # Safety
/// `l` is NULL or a live list; `f` compares two items (each passed as a pointer to the item pointer).
#[no_mangle]
pub unsafe extern "C" fn slurm_list_sort(l: List, f: ListCmpF) {
    guard("slurm_list_sort", (), || {
        let Some(cmp) = f else { return };
        // SAFETY: the caller's contract.
        unsafe {
            with(l, (), |items| {
                items.items.sort_by(|a, b| {
                    let (mut a, mut b) = (*a, *b);
                    // SAFETY: Slurm passes the addresses of the two item pointers.
                    let r = cmp(
                        &mut a as *mut *mut c_void as *mut c_void,
                        &mut b as *mut *mut c_void as *mut c_void,
                    );
                    r.cmp(&0)
                })
            })
        }
    })
}

/// # Safety
/// `l` is NULL or a live list that outlives the iterator.
#[no_mangle]
pub unsafe extern "C" fn slurm_list_iterator_create(l: List) -> ListIterator {
    guard("slurm_list_iterator_create", std::ptr::null_mut(), || {
        if l.is_null() {
            ffi::set_errno(libc::EINVAL);
            return std::ptr::null_mut();
        }
        Box::into_raw(Box::new(Iter {
            list: l as *const SpurList,
            pos: 0,
        })) as ListIterator
    })
}

/// # Safety
/// `i` is NULL or a live iterator.
#[no_mangle]
pub unsafe extern "C" fn slurm_list_iterator_reset(i: ListIterator) {
    guard("slurm_list_iterator_reset", (), || {
        if !i.is_null() {
            // SAFETY: the caller's contract.
            unsafe { (*(i as *mut Iter)).pos = 0 };
        }
    })
}

/// # Safety
/// `i` is NULL or a live iterator, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_list_iterator_destroy(i: ListIterator) {
    guard("slurm_list_iterator_destroy", (), || {
        if !i.is_null() {
            // SAFETY: the caller's contract.
            drop(unsafe { Box::from_raw(i as *mut Iter) });
        }
    })
}

/// # Safety
/// `i` is NULL or a live iterator whose list is alive.
unsafe fn next(i: ListIterator) -> *mut c_void {
    if i.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: the caller's contract.
    let it = unsafe { &mut *(i as *mut Iter) };
    // SAFETY: the iterator's list outlives it.
    let item = unsafe {
        with(it.list as List, None, |items| {
            items.items.get(it.pos).copied()
        })
    };
    match item {
        Some(x) => {
            it.pos += 1;
            x
        }
        None => std::ptr::null_mut(),
    }
}

/// # Safety
/// `i` is NULL or a live iterator.
#[no_mangle]
pub unsafe extern "C" fn slurm_list_next(i: ListIterator) -> *mut c_void {
    // SAFETY: the caller's contract.
    guard("slurm_list_next", std::ptr::null_mut(), || unsafe {
        next(i)
    })
}

/// The next item from the iterator's position for which `f(item, key)` is non-zero, or NULL.
///
/// # Safety
/// `i` is NULL or a live iterator; `f` a valid predicate.
#[no_mangle]
pub unsafe extern "C" fn slurm_list_find(
    i: ListIterator,
    f: ListFindF,
    key: *mut c_void,
) -> *mut c_void {
    guard("slurm_list_find", std::ptr::null_mut(), || {
        let Some(pred) = f else {
            return std::ptr::null_mut();
        };
        loop {
            // SAFETY: the caller's contract.
            let x = unsafe { next(i) };
            // SAFETY: the caller's predicate on its own items.
            if x.is_null() || unsafe { pred(x, key) } != 0 {
                return x;
            }
        }
    })
}
