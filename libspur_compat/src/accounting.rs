//! What libslurm answers from slurmctld's accounting cache on a cluster without slurmdbd, which is what a Spur
//! cluster is: `slurm_load_assoc_mgr_info` gives no associations, QOS or users but the TRES names, and
//! `slurm_load_federation` finds no federation (success, NULL). The request and message frees release what the
//! caller or these loads allocated.

use std::ffi::{c_char, c_int, c_void};

use slurm_headers::{
    assoc_mgr_info_msg_t, assoc_mgr_info_request_msg_t, slurmdb_cluster_rec_t,
    slurmdb_federation_rec_t, List,
};

use crate::client::{self, CallError};
use crate::ffi::{self, c_calloc, c_free, c_string, guard, opt_str};

/// The TRES slurmctld always tracks, in its order; `AccountingStorageTRES` adds to them.
const DEFAULT_TRES: [&str; 8] = [
    "cpu", "mem", "energy", "node", "billing", "fs/disk", "vmem", "pages",
];

/// The cluster's TRES names: the defaults, then the configured extra ones in their configured order.
pub fn tres_names(accounting_storage_tres: Option<&str>) -> Vec<String> {
    let mut names: Vec<String> = DEFAULT_TRES.iter().map(|s| s.to_string()).collect();
    for t in accounting_storage_tres
        .unwrap_or("")
        .split(',')
        .map(|t| t.trim().to_ascii_lowercase())
        .filter(|t| !t.is_empty())
    {
        if !names.contains(&t) {
            names.push(t);
        }
    }
    names
}

/// # Safety
/// `*l` is NULL or a live list.
unsafe fn destroy_list(l: &mut List) {
    if !l.is_null() {
        // SAFETY: the caller's contract.
        unsafe { crate::list::slurm_list_destroy(*l) };
        *l = std::ptr::null_mut();
    }
}

fn assoc_mgr_msg(names: &[String]) -> *mut assoc_mgr_info_msg_t {
    let msg = c_calloc::<assoc_mgr_info_msg_t>(1);
    let array = c_calloc::<*mut c_char>(names.len());
    if msg.is_null() || array.is_null() {
        // SAFETY: fresh allocations or NULL.
        unsafe {
            c_free(msg);
            c_free(array);
        }
        return std::ptr::null_mut();
    }
    for (i, name) in names.iter().enumerate() {
        // SAFETY: `array` holds names.len() slots.
        unsafe { *array.add(i) = c_string(name) };
    }
    // SAFETY: fresh, zeroed message.
    unsafe {
        (*msg).tres_cnt = names.len() as u32;
        (*msg).tres_names = array;
    }
    msg
}

/// The request's filters cannot select anything (there are no associations), so only the controller's answer
/// matters: an unreachable controller fails as every load does.
///
/// # Safety
/// `arg1` is NULL or a valid request; `arg2` a valid slot for the result.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_assoc_mgr_info(
    _arg1: *mut assoc_mgr_info_request_msg_t,
    arg2: *mut *mut assoc_mgr_info_msg_t,
) -> c_int {
    guard("slurm_load_assoc_mgr_info", ffi::SLURM_ERROR, || {
        let answer = client::ping().map(|()| {
            let conf = client::load_conf();
            tres_names(
                conf.as_ref()
                    .and_then(|c| c.get_str("AccountingStorageTRES")),
            )
        });
        ffi::deliver_message(arg2, answer, |names| assoc_mgr_msg(&names))
    })
}

/// # Safety
/// `arg1` is NULL or a message from `slurm_load_assoc_mgr_info`, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_assoc_mgr_info_msg(arg1: *mut assoc_mgr_info_msg_t) {
    guard("slurm_free_assoc_mgr_info_msg", (), || {
        if arg1.is_null() {
            return;
        }
        // SAFETY: the caller's contract: every member is ours or NULL.
        unsafe {
            let msg = &mut *arg1;
            if !msg.tres_names.is_null() {
                for i in 0..msg.tres_cnt as usize {
                    c_free(*msg.tres_names.add(i));
                }
                c_free(msg.tres_names);
            }
            destroy_list(&mut msg.assoc_list);
            destroy_list(&mut msg.qos_list);
            destroy_list(&mut msg.user_list);
            c_free(arg1);
        }
    })
}

/// Destroys the request's filter lists and leaves them NULL; the request itself stays the caller's.
///
/// # Safety
/// `arg1` is NULL or a request whose lists are live or NULL.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_assoc_mgr_info_request_members(
    arg1: *mut assoc_mgr_info_request_msg_t,
) {
    guard("slurm_free_assoc_mgr_info_request_members", (), || {
        // SAFETY: the caller's contract.
        if let Some(req) = unsafe { arg1.as_mut() } {
            // SAFETY: as above.
            unsafe {
                destroy_list(&mut req.acct_list);
                destroy_list(&mut req.qos_list);
                destroy_list(&mut req.user_list);
            }
        }
    })
}

/// # Safety
/// `arg1` is NULL or a malloc'd request whose lists are live or NULL, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_assoc_mgr_info_request_msg(
    arg1: *mut assoc_mgr_info_request_msg_t,
) {
    guard("slurm_free_assoc_mgr_info_request_msg", (), || {
        if arg1.is_null() {
            return;
        }
        // SAFETY: the caller's contract.
        unsafe {
            slurm_free_assoc_mgr_info_request_members(arg1);
            c_free(arg1);
        }
    })
}

/// Spur clusters are never federated: success with no record, as slurmctld answers outside a federation.
///
/// # Safety
/// `fed_pptr` is a valid slot for the result.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_federation(fed_pptr: *mut *mut c_void) -> c_int {
    guard("slurm_load_federation", ffi::SLURM_ERROR, || {
        if fed_pptr.is_null() {
            return CallError::new(libc::EINVAL).fail();
        }
        match client::ping() {
            Ok(()) => {
                // SAFETY: the caller's slot.
                unsafe { *fed_pptr = std::ptr::null_mut() };
                ffi::SLURM_SUCCESS
            }
            Err(e) => e.fail(),
        }
    })
}

/// # Safety
/// `fed` is NULL or a malloc'd `slurmdb_federation_rec_t` whose members are live malloc'd memory or NULL.
#[no_mangle]
pub unsafe extern "C" fn slurm_destroy_federation_rec(fed: *mut c_void) {
    guard("slurm_destroy_federation_rec", (), || {
        // SAFETY: the caller's contract.
        unsafe { crate::slurmdb_init::destroy_federation(fed as *mut slurmdb_federation_rec_t) }
    })
}

/// `CLUSTER_FED_STATE_*`: the base state in the low bits, drain and remove as flags.
const CLUSTER_FED_STATE_BASE: u32 = 0x000f;
const CLUSTER_FED_STATE_DRAIN: u32 = 0x0010;
const CLUSTER_FED_STATE_REMOVE: u32 = 0x0020;

/// A cluster's state in a federation as `scontrol show federation` words it: a draining cluster is `DRAIN`
/// (`DRAIN+REMOVE` when it is also being removed), else its base state.
pub fn fed_state_text(state: u32) -> &'static str {
    if state & CLUSTER_FED_STATE_DRAIN != 0 {
        return if state & CLUSTER_FED_STATE_REMOVE != 0 {
            "DRAIN+REMOVE"
        } else {
            "DRAIN"
        };
    }
    match state & CLUSTER_FED_STATE_BASE {
        0 => "NA",
        1 => "ACTIVE",
        2 => "INACTIVE",
        _ => "?",
    }
}

/// What the federation printer needs of one cluster record.
#[derive(Debug, Clone, PartialEq)]
pub struct FedCluster {
    pub name: String,
    pub host: String,
    pub port: u32,
    pub id: u32,
    pub state: u32,
    pub features: Vec<String>,
    pub send: bool,
    pub recv: bool,
    pub synced: bool,
}

/// `scontrol show federation`: this cluster first as `Self`, then the others by name as `Sibling`s.
pub fn federation_text(name: &str, clusters: &[FedCluster], own: Option<&str>) -> String {
    let mut out = format!("Federation: {name}\n");
    let mut sorted: Vec<&FedCluster> = clusters.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    let line = |c: &FedCluster| {
        let mut features = c.features.clone();
        features.sort();
        format!(
            "{}:{}:{} ID:{} FedState:{} Features:{}",
            c.name,
            c.host,
            c.port,
            c.id,
            fed_state_text(c.state),
            features.join(",")
        )
    };
    let yes_no = |b: bool| if b { "Yes" } else { "No" };
    if let Some(me) = sorted.iter().find(|c| Some(c.name.as_str()) == own) {
        out.push_str(&format!("Self:       {}\n", line(me)));
    }
    for c in sorted.iter().filter(|c| Some(c.name.as_str()) != own) {
        out.push_str(&format!(
            "Sibling:    {} PersistConnSend/Recv:{}/{} Synced:{}\n",
            line(c),
            yes_no(c.send),
            yes_no(c.recv),
            yes_no(c.synced)
        ));
    }
    out
}

/// # Safety
/// `c` is a valid cluster record whose strings and feature list are NULL or valid.
unsafe fn fed_cluster(c: &slurmdb_cluster_rec_t) -> FedCluster {
    let text = |p: *mut c_char| {
        // SAFETY: the caller's contract.
        unsafe { opt_str(p) }
            .map(|s| s.into_owned())
            .unwrap_or_default()
    };
    let mut features = Vec::new();
    // SAFETY: the caller's contract; the list's items are strings.
    unsafe {
        crate::list::for_each(c.fed.feature_list, |f| {
            features.push(text(f as *mut c_char));
        })
    };
    FedCluster {
        name: text(c.name),
        host: text(c.control_host),
        port: c.control_port,
        id: c.fed.id,
        state: c.fed.state,
        features,
        send: !c.fed.send.is_null(),
        recv: !c.fed.recv.is_null(),
        synced: c.fed.sync_recvd,
    }
}

extern "C" {
    /// The C library's standard output stream, so the text interleaves with the caller's own printf output.
    static mut stdout: *mut libc::FILE;
}

/// Prints a federation record (as `slurm_load_federation` would return it) on standard output; a record without
/// a name prints nothing.
///
/// # Safety
/// `fed` is NULL or a valid `slurmdb_federation_rec_t` whose cluster list holds `slurmdb_cluster_rec_t` records.
#[no_mangle]
pub unsafe extern "C" fn slurm_print_federation(fed: *mut c_void) {
    guard("slurm_print_federation", (), || {
        // SAFETY: the caller's contract.
        let Some(rec) = (unsafe { (fed as *const slurmdb_federation_rec_t).as_ref() }) else {
            return;
        };
        // SAFETY: as above.
        let Some(name) = (unsafe { opt_str(rec.name) }) else {
            return;
        };
        let mut clusters = Vec::new();
        // SAFETY: the list holds cluster records.
        unsafe {
            crate::list::for_each(rec.cluster_list, |c| {
                if let Some(c) = (c as *const slurmdb_cluster_rec_t).as_ref() {
                    clusters.push(fed_cluster(c));
                }
            })
        };
        let conf = client::load_conf();
        let own = conf.as_ref().and_then(|c| c.get_str("ClusterName"));
        let text = federation_text(&name, &clusters, own);
        // SAFETY: reading the C library's stream pointer; writing to it as printf would.
        unsafe {
            let out = std::ptr::addr_of!(stdout).read();
            crate::print::write(out as *mut slurm_headers::FILE, &text);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cluster(name: &str, state: u32) -> FedCluster {
        FedCluster {
            name: name.to_string(),
            host: "10.0.0.1".to_string(),
            port: 6817,
            id: 1,
            state,
            features: vec!["zz".to_string(), "aa".to_string()],
            send: true,
            recv: false,
            synced: false,
        }
    }

    #[test]
    fn federation_self_first_then_siblings_by_name() {
        let text = federation_text(
            "fed",
            &[
                cluster("zeta", 2),
                cluster("me", 1 | 0x10),
                cluster("alpha", 0),
            ],
            Some("me"),
        );
        assert_eq!(
            text,
            "Federation: fed\n\
             Self:       me:10.0.0.1:6817 ID:1 FedState:DRAIN Features:aa,zz\n\
             Sibling:    alpha:10.0.0.1:6817 ID:1 FedState:NA Features:aa,zz PersistConnSend/Recv:Yes/No Synced:No\n\
             Sibling:    zeta:10.0.0.1:6817 ID:1 FedState:INACTIVE Features:aa,zz PersistConnSend/Recv:Yes/No Synced:No\n"
        );
        assert_eq!(fed_state_text(1 | 0x30), "DRAIN+REMOVE");
        assert_eq!(fed_state_text(2 | 0x20), "INACTIVE");
        assert_eq!(fed_state_text(7), "?");
    }

    #[test]
    fn tres_names_are_the_defaults_then_the_configured() {
        assert_eq!(tres_names(None), DEFAULT_TRES.map(String::from).to_vec());
        let names = tres_names(Some("gres/gpu, cpu,license/iop1"));
        assert_eq!(&names[8..], ["gres/gpu", "license/iop1"]);
        assert_eq!(names.len(), 10);
    }

    #[test]
    fn message_and_request_are_released() {
        let msg = assoc_mgr_msg(&tres_names(None));
        assert!(!msg.is_null());
        // SAFETY: `msg` was just checked non-null; it is the message assoc_mgr_msg allocated, freed once here.
        unsafe {
            assert_eq!((*msg).tres_cnt, 8);
            slurm_free_assoc_mgr_info_msg(msg);
        }
        let req = c_calloc::<assoc_mgr_info_request_msg_t>(1);
        // SAFETY: `req` is a zeroed request fresh from c_calloc (valid when zeroed); its list is created before the append, and the members are freed from a copy before the record itself.
        unsafe {
            (*req).user_list = crate::list::create(Some(libc::free));
            crate::list::append((*req).user_list, c_string("root") as *mut c_void);
            let mut on_stack = *req;
            slurm_free_assoc_mgr_info_request_members(&mut on_stack);
            assert!(on_stack.user_list.is_null());
            c_free(req);
        }
    }
}
