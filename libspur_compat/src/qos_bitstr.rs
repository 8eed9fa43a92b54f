//! `slurmdb_get_qos_complete_str_bitstr`: the names of the QOS whose ids are set in a bitmap (an association's
//! `valid_qos`), as sacctmgr and the Perl `Slurmdb` API print them.

use std::ffi::{c_char, c_void, CStr};

use slurm_headers::{slurmdb_qos_rec_t, List};

use crate::bitstring::Bitstr;
use crate::ffi::guard;

/// The names, sorted and joined with `,`, of the QOS of `qos_list` whose ids are set in `valid_qos` (id 0 counts
/// as an empty name, as libslurm's lookup gives it); `""` when the list is empty or no bit is set.
///
/// # Safety
/// `qos_list` is NULL or a live list of `slurmdb_qos_rec_t`; `valid_qos` NULL or a live bitmap.
#[no_mangle]
pub unsafe extern "C" fn slurmdb_get_qos_complete_str_bitstr(
    qos_list: List,
    valid_qos: *mut Bitstr,
) -> *mut c_char {
    guard(
        "slurmdb_get_qos_complete_str_bitstr",
        std::ptr::null_mut(),
        || {
            // SAFETY: the caller's contract.
            unsafe {
                if qos_list.is_null()
                    || crate::list::slurm_list_count(qos_list) <= 0
                    || valid_qos.is_null()
                    || crate::bitstring::slurm_bit_ffs(valid_qos) == -1
                {
                    return crate::xmem::string_or_abort("");
                }
                let mut records: Vec<*const slurmdb_qos_rec_t> = Vec::new();
                crate::list::for_each(qos_list, |x: *mut c_void| {
                    records.push(x as *const slurmdb_qos_rec_t)
                });
                let mut names: Vec<&[u8]> = Vec::new();
                for id in 0..crate::bitstring::slurm_bit_size(valid_qos) {
                    if crate::bitstring::slurm_bit_test(valid_qos, id) == 0 {
                        continue;
                    }
                    if id == 0 {
                        if crate::log::spur_log_wants(6) != 0 {
                            crate::log::log_msg(6, false, false, "no level");
                        }
                        names.push(b"");
                        continue;
                    }
                    let found = records
                        .iter()
                        .find(|r| !r.is_null() && i64::from((***r).id) == id);
                    if let Some(&r) = found {
                        if !(*r).name.is_null() {
                            names.push(CStr::from_ptr((*r).name).to_bytes());
                        }
                    }
                }
                names.sort();
                crate::xmem::bytes_or_abort(&names.join(&b","[..]))
            }
        },
    )
}
