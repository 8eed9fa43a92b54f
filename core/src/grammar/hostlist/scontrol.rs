//! What `scontrol show hostnames|hostlist|hostlistsorted EXPR` prints, as pure text: the CLI writes it out, and the
//! vector tests compare it with what real scontrol printed.

use super::{Hostlist, HostlistError};

/// Inputs on which Spur deliberately differs from scontrol 22.05 (Slurm's arithmetic wraps or it reads freed
/// memory there); the vector tests in core/tests/hostlist list what each gives instead and why.
pub const DELIBERATE_DEVIATIONS: &[&str] = &[
    "z9y[07-12,8-12,8-12]",
    "n[8-12,8-12,07-12]",
    "z9y[00-00,6-10,5-10]",
    "n[0-99999999999999999999]",
    "n18446744073709551615,n0",
    "n3000000000,n0",
    "n0,n3000000000",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Show {
    Hostnames,
    Hostlist,
    HostlistSorted,
}

/// Exit status, stdout and stderr of one scontrol invocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub exit: i32,
    pub stdout: String,
    pub stderr: String,
}

fn error_lines(logged: impl IntoIterator<Item = String>) -> String {
    logged
        .into_iter()
        .map(|l| format!("scontrol: error: {l}\n"))
        .collect()
}

pub fn render(what: Show, input: &str) -> Rendered {
    match Hostlist::parse_with_warnings(input) {
        Ok((list, warnings)) => Rendered {
            exit: 0,
            stdout: match what {
                Show::Hostnames => list.iter().map(|h| h + "\n").collect(),
                Show::Hostlist => list.to_ranged_string() + "\n",
                Show::HostlistSorted => list.to_sorted_ranged_string() + "\n",
            },
            stderr: error_lines(warnings.iter().map(ToString::to_string)),
        },
        Err(e) => render_error(what, &e),
    }
}

fn render_error(what: Show, e: &HostlistError) -> Rendered {
    let mut stderr = error_lines(e.logged().iter().map(ToString::to_string));
    let exit = if e.is_fatal() {
        stderr += &format!("scontrol: fatal: {e}\n");
        1
    } else {
        stderr += &format!("{e}\n");
        // `show hostnames` reports a bad hostlist but still exits 0.
        i32::from(what != Show::Hostnames)
    };
    Rendered {
        exit,
        stdout: String::new(),
        stderr,
    }
}
