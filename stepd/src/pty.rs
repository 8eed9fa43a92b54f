//! `srun --pty`: task 0 runs on a pseudo-terminal whose master side its launcher relays (srun itself, or the step
//! supervisor on another node), and srun's own terminal is put in raw mode meanwhile, so keys such as Ctrl-C reach
//! the task's terminal instead of srun.

use std::os::fd::{AsFd, OwnedFd};

use nix::pty::{openpty, Winsize};
use nix::sys::termios::{cfmakeraw, tcgetattr, tcsetattr, SetArg, Termios};

/// A new pseudo-terminal: `(master, slave)`, sized like `size` when given.
pub fn open(size: Option<Winsize>) -> nix::Result<(OwnedFd, OwnedFd)> {
    let pair = openpty(size.as_ref(), None)?;
    Ok((pair.master, pair.slave))
}

/// The window size of the terminal on `fd`, if it is one.
pub fn window_size(fd: impl AsFd) -> Option<Winsize> {
    let mut size: Winsize = Winsize {
        ws_row: 0,
        ws_col: 0,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCGWINSZ fills the Winsize we own; an error leaves it untouched and is reported.
    let rc = unsafe {
        libc::ioctl(
            std::os::fd::AsRawFd::as_raw_fd(&fd.as_fd()),
            libc::TIOCGWINSZ,
            &mut size,
        )
    };
    (rc == 0).then_some(size)
}

/// srun's terminal in raw mode until dropped; a no-op when stdin is no terminal.
pub struct RawMode {
    saved: Option<Termios>,
}

impl RawMode {
    pub fn enter() -> RawMode {
        let stdin = std::io::stdin();
        let Ok(saved) = tcgetattr(stdin.as_fd()) else {
            return RawMode { saved: None };
        };
        let mut raw = saved.clone();
        cfmakeraw(&mut raw);
        if tcsetattr(stdin.as_fd(), SetArg::TCSANOW, &raw).is_err() {
            return RawMode { saved: None };
        }
        RawMode { saved: Some(saved) }
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        if let Some(saved) = &self.saved {
            let _ = tcsetattr(std::io::stdin().as_fd(), SetArg::TCSADRAIN, saved);
        }
    }
}
