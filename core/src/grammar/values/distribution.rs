//! Task distribution: `-m/--distribution={*|block|cyclic|arbitrary|plane=<size>}[:{*|block|cyclic|fcyclic}
//! [:{*|block|cyclic|fcyclic}]][,{Pack|NoPack}]`.
//!
//! Slurm 22.05 `verify_dist_type` semantics: names in any case; empty `:` levels are skipped (`block::cyclic` is
//! `block:cyclic`); `*` is block at node level and cyclic below; `arbitrary` takes no lower levels; `plane=<size>`
//! takes neither levels nor flags; `pack`/`nopack` alone set only the flag.

use std::fmt;

/// How tasks are laid out at the socket or core level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Level {
    /// Round-robin.
    Cyclic,
    /// Fill one before the next.
    Block,
    /// Round-robin over all cores of a socket before the next ("full cyclic").
    Fcyclic,
}

impl Level {
    /// The 4-bit code Slurm uses at each level.
    fn code(self) -> u32 {
        match self {
            Level::Cyclic => 1,
            Level::Block => 2,
            Level::Fcyclic => 3,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Level::Cyclic => "cyclic",
            Level::Block => "block",
            Level::Fcyclic => "fcyclic",
        }
    }

    fn from_code(code: u32) -> Option<Level> {
        match code {
            1 => Some(Level::Cyclic),
            2 => Some(Level::Block),
            3 => Some(Level::Fcyclic),
            _ => None,
        }
    }
}

/// The node-level layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Layout {
    /// No layout given, only a pack flag (`--distribution=pack`).
    Unknown,
    /// Tasks placed in the order of the node list (needs `-w`).
    Arbitrary,
    /// Blocks of `size` tasks dealt out to nodes in turn.
    Plane(u32),
    /// Block or cyclic over nodes, with optional socket and core levels (`node` is never `Fcyclic`).
    Levels {
        /// Across nodes.
        node: Level,
        /// Across sockets within a node.
        socket: Option<Level>,
        /// Across cores within a socket.
        core: Option<Level>,
    },
}

/// Whether tasks are packed onto as few nodes as possible.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Pack {
    /// `,Pack`
    Pack,
    /// `,NoPack`
    NoPack,
}

/// A parsed `--distribution`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Distribution {
    /// The layout.
    pub layout: Layout,
    /// The pack flag, if given.
    pub pack: Option<Pack>,
}

/// Slurm's `SLURM_DIST_UNKNOWN`.
const DIST_UNKNOWN: u32 = 0x2000;
const DIST_PLANE: u32 = 0x4;
const DIST_ARBITRARY: u32 = 0x3;
const DIST_PACK: u32 = 0x80_0000;
const DIST_NO_PACK: u32 = 0x40_0000;
const DIST_STATE_BASE: u32 = 0xffff;

impl Distribution {
    /// Slurm's `task_dist_states` word (levels and flags); the plane size is kept apart, see [`Self::plane_size`].
    pub fn to_slurm_u32(&self) -> u32 {
        let base = match self.layout {
            Layout::Unknown => DIST_UNKNOWN,
            Layout::Arbitrary => DIST_ARBITRARY,
            Layout::Plane(_) => DIST_PLANE,
            Layout::Levels { node, socket, core } => {
                node.code() | socket.map_or(0, Level::code) << 4 | core.map_or(0, Level::code) << 8
            }
        };
        base | match self.pack {
            Some(Pack::Pack) => DIST_PACK,
            Some(Pack::NoPack) => DIST_NO_PACK,
            None => 0,
        }
    }

    /// The plane size, for `plane=<size>`.
    pub fn plane_size(&self) -> Option<u32> {
        match self.layout {
            Layout::Plane(size) => Some(size),
            _ => None,
        }
    }
}

impl fmt::Display for Distribution {
    /// The form `sbatch -v` shows: `block:cyclic,pack`, `plane=4`, `nopack`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let flag = match self.pack {
            Some(Pack::Pack) => "pack",
            Some(Pack::NoPack) => "nopack",
            None => "",
        };
        match self.layout {
            Layout::Unknown => return f.write_str(flag),
            Layout::Plane(size) => write!(f, "plane={size}")?,
            _ => f.write_str(&format_task_dist_states(self.to_slurm_u32()))?,
        }
        if !flag.is_empty() {
            write!(f, ",{flag}")?;
        }
        Ok(())
    }
}

/// Formats a `task_dist_states` word as Slurm's `format_task_dist_states` does (flags ignored): `block:cyclic`,
/// `plane`, `arbitrary`, or `unknown` for anything else.
pub fn format_task_dist_states(value: u32) -> String {
    let base = value & DIST_STATE_BASE;
    match base {
        DIST_ARBITRARY => return "arbitrary".to_string(),
        DIST_PLANE => return "plane".to_string(),
        _ => {}
    }
    let node = Level::from_code(base & 0xf).filter(|l| *l != Level::Fcyclic);
    let socket = base >> 4 & 0xf;
    let core = base >> 8 & 0xf;
    let valid = base >> 12 == 0 && (socket != 0 || core == 0);
    match node {
        Some(node) if valid => {
            let mut parts = vec![node.name()];
            parts.extend(
                [socket, core]
                    .into_iter()
                    .filter_map(Level::from_code)
                    .map(Level::name),
            );
            // A socket or core code outside 1..=3 leaves the word outside Slurm's table.
            if parts.len() == 1 + usize::from(socket != 0) + usize::from(core != 0) {
                parts.join(":")
            } else {
                "unknown".to_string()
            }
        }
        _ => "unknown".to_string(),
    }
}

/// A rejected `--distribution`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DistributionError {
    /// `plane` without a valid `=<size>` (sbatch prints this, then "Invalid --distribution specification").
    #[error("Invalid plane size or size not specified")]
    InvalidPlaneSize,
    /// Anything else that is not a distribution.
    #[error("Invalid --distribution specification")]
    Invalid,
}

fn is_c_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r')
}

/// The plane size after the first `=`: `strtol` digits with nothing after them, 1 to `i32::MAX`.
fn plane_size(input: &str) -> Result<u32, DistributionError> {
    let (_, size) = input
        .split_once('=')
        .ok_or(DistributionError::InvalidPlaneSize)?;
    let size = size.trim_start_matches(is_c_space);
    let digits = size.strip_prefix('+').unwrap_or(size);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(DistributionError::InvalidPlaneSize);
    }
    digits
        .parse::<u32>()
        .ok()
        .filter(|n| *n >= 1 && *n <= i32::MAX as u32)
        .ok_or(DistributionError::InvalidPlaneSize)
}

fn pack_word(word: &str) -> Option<Pack> {
    if word.eq_ignore_ascii_case("pack") {
        Some(Pack::Pack)
    } else if word.eq_ignore_ascii_case("nopack") {
        Some(Pack::NoPack)
    } else {
        None
    }
}

fn lower_level(word: &str) -> Option<Level> {
    match word.to_ascii_lowercase().as_str() {
        "*" | "cyclic" => Some(Level::Cyclic),
        "block" => Some(Level::Block),
        "fcyclic" => Some(Level::Fcyclic),
        _ => None,
    }
}

fn levels(text: &str) -> Result<Layout, DistributionError> {
    let words: Vec<&str> = text.split(':').filter(|w| !w.is_empty()).collect();
    let invalid = DistributionError::Invalid;
    let (first, lower) = words.split_first().ok_or(DistributionError::Invalid)?;
    if lower.len() > 2 {
        return Err(invalid);
    }
    let node = match first.to_ascii_lowercase().as_str() {
        "*" | "block" => Level::Block,
        "cyclic" => Level::Cyclic,
        "arbitrary" if lower.is_empty() => return Ok(Layout::Arbitrary),
        _ => return Err(invalid),
    };
    let mut lower = lower
        .iter()
        .map(|w| lower_level(w).ok_or(DistributionError::Invalid));
    let socket = lower.next().transpose()?;
    let core = lower.next().transpose()?;
    Ok(Layout::Levels { node, socket, core })
}

/// Parses `-m/--distribution`.
pub fn parse_distribution(input: &str) -> Result<Distribution, DistributionError> {
    if input
        .get(..5)
        .is_some_and(|p| p.eq_ignore_ascii_case("plane"))
    {
        return Ok(Distribution {
            layout: Layout::Plane(plane_size(input)?),
            pack: None,
        });
    }
    let (dist, flag) = match input.split_once(',') {
        Some((dist, flag)) => (dist, Some(flag)),
        None => (input, None),
    };
    let flag = match flag {
        None | Some("") => None,
        Some(word) => Some(pack_word(word).ok_or(DistributionError::Invalid)?),
    };
    if let Some(only) = pack_word(dist) {
        return match flag {
            // Slurm accepts both flags at once here but then cannot print the result; refuse it.
            Some(other) if other != only => Err(DistributionError::Invalid),
            _ => Ok(Distribution {
                layout: Layout::Unknown,
                pack: Some(only),
            }),
        };
    }
    Ok(Distribution {
        layout: levels(dist)?,
        pack: flag,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_and_defaults() {
        let d = parse_distribution("cyclic:block:fcyclic").unwrap();
        assert_eq!(d.to_slurm_u32(), 0x321);
        assert_eq!(d.to_string(), "cyclic:block:fcyclic");
        assert_eq!(parse_distribution("*:*").unwrap().to_slurm_u32(), 0x12);
        assert_eq!(
            parse_distribution("block::cyclic").unwrap().to_string(),
            "block:cyclic"
        );
        assert_eq!(parse_distribution(":block").unwrap().to_slurm_u32(), 0x2);
    }

    #[test]
    fn plane_and_flags() {
        let d = parse_distribution("plane=4").unwrap();
        assert_eq!((d.to_slurm_u32(), d.plane_size()), (0x4, Some(4)));
        assert_eq!(d.to_string(), "plane=4");
        assert_eq!(
            parse_distribution("block,Pack").unwrap().to_slurm_u32(),
            0x80_0002
        );
        assert_eq!(
            parse_distribution("nopack").unwrap().to_slurm_u32(),
            0x40_2000
        );
        assert_eq!(parse_distribution("nopack").unwrap().to_string(), "nopack");
        assert_eq!(
            parse_distribution("block:block,nopack")
                .unwrap()
                .to_string(),
            "block:block,nopack"
        );
    }

    #[test]
    fn errors() {
        assert_eq!(
            parse_distribution("plane"),
            Err(DistributionError::InvalidPlaneSize)
        );
        assert_eq!(
            parse_distribution("plane=4,pack"),
            Err(DistributionError::InvalidPlaneSize)
        );
        assert_eq!(
            parse_distribution("plane=0"),
            Err(DistributionError::InvalidPlaneSize)
        );
        for bad in [
            "",
            "bogus",
            "fcyclic",
            "arbitrary:block",
            "block,,pack",
            "pack,block",
            "a:b:c:d",
            "pack,nopack",
        ] {
            assert_eq!(
                parse_distribution(bad),
                Err(DistributionError::Invalid),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn formats_slurm_words() {
        assert_eq!(format_task_dist_states(0x2000), "unknown");
        assert_eq!(format_task_dist_states(0x80_0004), "plane");
        assert_eq!(format_task_dist_states(0x33), "unknown");
        assert_eq!(format_task_dist_states(0x5), "unknown");
        assert_eq!(format_task_dist_states(0x222), "block:block:block");
    }
}
