//! Node states as Slurm 22.05 prints them: `sinfo %T` (long), `sinfo %t` (compact, with the `*`, `~`, `#`, `%`,
//! `$`, `@`, `^`, `!`, `-`, `+` suffixes), `scontrol show node`'s `State=BASE+FLAG` form, and the `State=` values
//! `slurm.conf` accepts.

use std::fmt;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::flags::{Flag, FlagSet};

/// Mask of the base-state bits in Slurm's packed node state.
pub const NODE_STATE_BASE_MASK: u32 = 0xf;

/// The base state of a node (Slurm's `enum node_states`); the discriminant is Slurm's wire value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum NodeBaseState {
    #[serde(rename = "UNKNOWN")]
    Unknown = 0,
    #[serde(rename = "DOWN")]
    Down = 1,
    #[serde(rename = "IDLE")]
    Idle = 2,
    #[serde(rename = "ALLOCATED")]
    Allocated = 3,
    /// Unused by Slurm; kept so every wire value decodes.
    #[serde(rename = "ERROR")]
    Error = 4,
    #[serde(rename = "MIXED")]
    Mixed = 5,
    #[serde(rename = "FUTURE")]
    Future = 6,
}

impl NodeBaseState {
    pub const ALL: [Self; 7] = [
        Self::Unknown,
        Self::Down,
        Self::Idle,
        Self::Allocated,
        Self::Error,
        Self::Mixed,
        Self::Future,
    ];

    pub fn from_raw(raw: u32) -> Option<Self> {
        Self::ALL.iter().copied().find(|s| s.as_raw() == raw)
    }

    pub fn as_raw(self) -> u32 {
        self as u32
    }

    /// The base name in `scontrol`'s complete form (`ERROR` for the unused state).
    pub fn name(self) -> &'static str {
        match self {
            Self::Unknown => "UNKNOWN",
            Self::Down => "DOWN",
            Self::Idle => "IDLE",
            Self::Allocated => "ALLOCATED",
            Self::Error => "ERROR",
            Self::Mixed => "MIXED",
            Self::Future => "FUTURE",
        }
    }

    /// The base name `node_state_string()` starts from (`?` for the unused state).
    fn long_word(self) -> &'static str {
        match self {
            Self::Error => "?",
            other => other.name(),
        }
    }
}

/// A node state flag (Slurm's `NODE_STATE_*` bits above the base state).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum NodeStateFlag {
    #[serde(rename = "PERFCTRS")]
    Net,
    #[serde(rename = "RESERVED")]
    Reserved,
    #[serde(rename = "UNDRAIN")]
    Undrain,
    #[serde(rename = "CLOUD")]
    Cloud,
    #[serde(rename = "RESUME")]
    Resume,
    #[serde(rename = "DRAIN")]
    Drain,
    #[serde(rename = "COMPLETING")]
    Completing,
    #[serde(rename = "NOT_RESPONDING")]
    NotResponding,
    #[serde(rename = "POWERED_DOWN")]
    PoweredDown,
    #[serde(rename = "FAIL")]
    Fail,
    #[serde(rename = "POWERING_UP")]
    PoweringUp,
    #[serde(rename = "MAINTENANCE")]
    Maintenance,
    #[serde(rename = "REBOOT_REQUESTED")]
    RebootRequested,
    #[serde(rename = "REBOOT_CANCEL")]
    RebootCancel,
    #[serde(rename = "POWERING_DOWN")]
    PoweringDown,
    #[serde(rename = "DYNAMIC_FUTURE")]
    DynamicFuture,
    #[serde(rename = "REBOOT_ISSUED")]
    RebootIssued,
    #[serde(rename = "PLANNED")]
    Planned,
    #[serde(rename = "INVALID_REG")]
    InvalidReg,
    #[serde(rename = "POWER_DOWN")]
    PowerDown,
    #[serde(rename = "POWER_UP")]
    PowerUp,
    #[serde(rename = "POWER_DRAIN")]
    PowerDrain,
    #[serde(rename = "DYNAMIC_NORM")]
    DynamicNorm,
}

impl NodeStateFlag {
    /// The name in `scontrol`'s `BASE+FLAG` form; Slurm prints `?` for the request-only flags.
    pub fn name(self) -> &'static str {
        match self {
            Self::Net => "PERFCTRS",
            Self::Reserved => "RESERVED",
            Self::Cloud => "CLOUD",
            Self::Resume => "RESUME",
            Self::Drain => "DRAIN",
            Self::Completing => "COMPLETING",
            Self::NotResponding => "NOT_RESPONDING",
            Self::PoweredDown => "POWERED_DOWN",
            Self::Fail => "FAIL",
            Self::PoweringUp => "POWERING_UP",
            Self::Maintenance => "MAINTENANCE",
            Self::RebootRequested => "REBOOT_REQUESTED",
            Self::PoweringDown => "POWERING_DOWN",
            Self::DynamicFuture => "DYNAMIC_FUTURE",
            Self::RebootIssued => "REBOOT_ISSUED",
            Self::Planned => "PLANNED",
            Self::InvalidReg => "INVALID_REG",
            Self::PowerDown => "POWER_DOWN",
            Self::PowerUp => "POWER_UP",
            Self::DynamicNorm => "DYNAMIC_NORM",
            Self::Undrain | Self::RebootCancel | Self::PowerDrain => "?",
        }
    }

    fn shift(self) -> u32 {
        match self {
            Self::Net => 4,
            Self::Reserved => 5,
            Self::Undrain => 6,
            Self::Cloud => 7,
            Self::Resume => 8,
            Self::Drain => 9,
            Self::Completing => 10,
            Self::NotResponding => 11,
            Self::PoweredDown => 12,
            Self::Fail => 13,
            Self::PoweringUp => 14,
            Self::Maintenance => 15,
            Self::RebootRequested => 16,
            Self::RebootCancel => 17,
            Self::PoweringDown => 18,
            Self::DynamicFuture => 19,
            Self::RebootIssued => 20,
            Self::Planned => 21,
            Self::InvalidReg => 22,
            Self::PowerDown => 23,
            Self::PowerUp => 24,
            Self::PowerDrain => 25,
            Self::DynamicNorm => 26,
        }
    }
}

impl Flag for NodeStateFlag {
    // Slurm lists named flags in this order, then the unnamed ones (`?`) from the lowest bit up.
    const LISTING_ORDER: &'static [Self] = &[
        Self::Cloud,
        Self::Completing,
        Self::Drain,
        Self::DynamicFuture,
        Self::DynamicNorm,
        Self::InvalidReg,
        Self::Fail,
        Self::Maintenance,
        Self::PowerDown,
        Self::PowerUp,
        Self::Net,
        Self::PoweredDown,
        Self::RebootRequested,
        Self::RebootIssued,
        Self::Reserved,
        Self::Resume,
        Self::NotResponding,
        Self::Planned,
        Self::PoweringUp,
        Self::PoweringDown,
        Self::Undrain,
        Self::RebootCancel,
        Self::PowerDrain,
    ];

    fn bit(self) -> u32 {
        1 << self.shift()
    }
}

/// The flags set on a node.
pub type NodeStateFlags = FlagSet<NodeStateFlag>;

/// A `State=` value that `slurm.conf` does not accept.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("node {node} has invalid state {state}")]
pub struct InvalidNodeState {
    pub node: String,
    pub state: String,
}

/// A node's full state: base plus flags, as Slurm packs it into one `u32`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NodeState {
    pub base: NodeBaseState,
    #[serde(default, skip_serializing_if = "FlagSet::is_empty")]
    pub flags: NodeStateFlags,
}

/// The words a state string is built from: long and compact forms.
#[derive(Clone, Copy)]
struct Words {
    long: &'static str,
    compact: &'static str,
}

const fn words(long: &'static str, compact: &'static str) -> Words {
    Words { long, compact }
}

impl NodeState {
    pub fn new(base: NodeBaseState) -> Self {
        Self {
            base,
            flags: NodeStateFlags::empty(),
        }
    }

    /// Decodes Slurm's packed value; `None` when the base is not a known state. Unknown flag bits are dropped.
    pub fn from_raw(raw: u32) -> Option<Self> {
        let base = NodeBaseState::from_raw(raw & NODE_STATE_BASE_MASK)?;
        Some(Self {
            base,
            flags: NodeStateFlags::from_bits_truncate(raw & !NODE_STATE_BASE_MASK),
        })
    }

    /// Slurm's packed value.
    pub fn to_raw(self) -> u32 {
        self.base.as_raw() | self.flags.bits()
    }

    #[must_use]
    pub fn with(self, flag: NodeStateFlag) -> Self {
        Self {
            base: self.base,
            flags: self.flags.with(flag),
        }
    }

    pub fn has(self, flag: NodeStateFlag) -> bool {
        self.flags.contains(flag)
    }

    /// `state_str2int()`: the state a `slurm.conf` `State=` value means. `node` is only used in the error text.
    pub fn from_config_str(state: &str, node: &str) -> Result<Self, InvalidNodeState> {
        // Slurm compares against the long name of every base value up to NODE_STATE_END, whose name is `?` too.
        if let Some(base) = NodeBaseState::ALL
            .iter()
            .find(|b| b.long_word().eq_ignore_ascii_case(state))
        {
            return Ok(Self::new(*base));
        }
        let has_prefix = |p: &str| {
            state
                .get(..p.len())
                .is_some_and(|s| s.eq_ignore_ascii_case(p))
        };
        if has_prefix("CLOUD") {
            let idle = Self::new(NodeBaseState::Idle);
            return Ok(idle
                .with(NodeStateFlag::Cloud)
                .with(NodeStateFlag::PoweredDown));
        }
        if has_prefix("DRAIN") {
            return Ok(Self::new(NodeBaseState::Unknown).with(NodeStateFlag::Drain));
        }
        if has_prefix("FAIL") {
            return Ok(Self::new(NodeBaseState::Idle).with(NodeStateFlag::Fail));
        }
        Err(InvalidNodeState {
            node: node.to_string(),
            state: state.to_string(),
        })
    }

    /// `node_state_string()`: what `sinfo %T` prints (upper case; sinfo lower-cases it, see [`Self::sinfo_long`]).
    pub fn long_name(self) -> String {
        self.render(|w| w.long, true)
    }

    /// `node_state_string_compact()`: what `sinfo %t` prints (upper case).
    pub fn compact_name(self) -> String {
        self.render(|w| w.compact, false)
    }

    /// The long form as `sinfo` shows it (`idle`, `drained*`, `allocated+`).
    pub fn sinfo_long(self) -> String {
        self.long_name().to_ascii_lowercase()
    }

    /// The compact form as `sinfo` shows it (`idle~`, `mix*`, `drng`, `alloc#`).
    pub fn sinfo_compact(self) -> String {
        self.compact_name().to_ascii_lowercase()
    }

    /// `node_state_string_complete()`: `scontrol show node`'s `State=` (`IDLE+DRAIN+NOT_RESPONDING`).
    pub fn complete_name(self) -> String {
        let mut out = self.base.name().to_string();
        for flag in self.flags.iter() {
            out.push('+');
            out.push_str(flag.name());
        }
        out
    }

    /// The one-character marker Slurm appends for power, reboot, maintenance and response flags.
    fn suffix(self) -> &'static str {
        use NodeStateFlag as F;
        [
            (F::Maintenance, "$"),
            (F::RebootIssued, "^"),
            (F::RebootRequested, "@"),
            (F::PoweringUp, "#"),
            (F::PoweringDown, "%"),
            (F::PoweredDown, "~"),
            (F::PowerDown, "!"),
            (F::NotResponding, "*"),
        ]
        .iter()
        .find(|(f, _)| self.has(*f))
        .map_or("", |(_, s)| s)
    }

    fn no_resp(self) -> &'static str {
        if self.has(NodeStateFlag::NotResponding) {
            "*"
        } else {
            ""
        }
    }

    /// Shared decision tree of the long and compact forms; `pick` chooses the word, `long` enables the checks only
    /// the long form makes (Slurm's compact variant compares flags against the masked base, so they never match).
    fn render(self, pick: impl Fn(Words) -> &'static str, long: bool) -> String {
        use NodeBaseState as B;
        use NodeStateFlag as F;
        let cat = |w: Words, suffix: &str| format!("{}{}", pick(w), suffix);
        let base = self.base;
        let busy = matches!(base, B::Allocated | B::Mixed);
        if self.has(F::InvalidReg) {
            return "INVAL".to_string();
        }
        if self.has(F::Maintenance) && !(self.has(F::Drain) || busy || base == B::Down) {
            return cat(words("MAINT", "MAINT"), self.no_resp());
        }
        if (self.has(F::RebootRequested) || self.has(F::RebootIssued)) && !busy {
            let tail = if self.has(F::RebootIssued) {
                "^"
            } else {
                self.no_resp()
            };
            return cat(words("REBOOT", "BOOT"), tail);
        }
        if self.has(F::Drain) {
            let w = if self.has(F::Completing) || busy {
                words("DRAINING", "DRNG")
            } else {
                words("DRAINED", "DRAIN")
            };
            return cat(w, self.suffix());
        }
        if self.has(F::Fail) {
            let w = if self.has(F::Completing) || base == B::Allocated {
                words("FAILING", "FAILG")
            } else {
                words("FAIL", "FAIL")
            };
            return cat(w, self.no_resp());
        }
        if long {
            if let Some(name) = self.lone_flag_name() {
                return name.to_string();
            }
        }
        self.render_base(pick)
    }

    /// The long form names a node with base UNKNOWN and exactly one of these flags after the flag.
    fn lone_flag_name(self) -> Option<&'static str> {
        use NodeStateFlag as F;
        if self.base != NodeBaseState::Unknown {
            return None;
        }
        let lone = [
            (F::RebootCancel, "CANCEL_REBOOT"),
            (F::Cloud, "CLOUD"),
            (F::PowerDown, "POWER_DOWN"),
            (F::PowerUp, "POWER_UP"),
            (F::PoweringDown, "POWERING_DOWN"),
            (F::PoweredDown, "POWERED_DOWN"),
            (F::PoweringUp, "POWERING_UP"),
        ];
        lone.iter()
            .find(|(f, _)| self.flags == NodeStateFlags::empty().with(*f))
            .map(|(_, n)| *n)
    }

    fn render_base(self, pick: impl Fn(Words) -> &'static str) -> String {
        use NodeBaseState as B;
        use NodeStateFlag as F;
        let cat = |w: Words, suffix: &str| format!("{}{}", pick(w), suffix);
        let suffix = self.suffix();
        match self.base {
            B::Down => return cat(words("DOWN", "DOWN"), suffix),
            B::Allocated => {
                let tail = if suffix.is_empty() && self.has(F::Completing) {
                    "+"
                } else {
                    suffix
                };
                return cat(words("ALLOCATED", "ALLOC"), tail);
            }
            _ => {}
        }
        if self.has(F::Completing) {
            return cat(words("COMPLETING", "COMP"), suffix);
        }
        match self.base {
            B::Idle if suffix.is_empty() => {
                let w = [
                    (F::Net, words("PERFCTRS", "NPC")),
                    (F::Reserved, words("RESERVED", "RESV")),
                    (F::Planned, words("PLANNED", "PLND")),
                ]
                .iter()
                .find(|(f, _)| self.has(*f))
                .map_or(words("IDLE", "IDLE"), |(_, w)| *w);
                cat(w, "")
            }
            B::Idle => cat(words("IDLE", "IDLE"), suffix),
            B::Mixed => {
                let tail = if suffix.is_empty() && self.has(F::Planned) {
                    "-"
                } else {
                    suffix
                };
                cat(words("MIXED", "MIX"), tail)
            }
            B::Future => cat(words("FUTURE", "FUTR"), suffix),
            _ if self.has(F::Resume) => cat(words("RESUME", "RESM"), ""),
            B::Unknown => cat(words("UNKNOWN", "UNK"), self.no_resp()),
            _ => cat(words(self.base.long_word(), self.base.long_word()), ""),
        }
    }
}

impl From<NodeBaseState> for NodeState {
    fn from(base: NodeBaseState) -> Self {
        Self::new(base)
    }
}

impl fmt::Display for NodeState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.long_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sinfo_forms() {
        let idle = NodeState::new(NodeBaseState::Idle);
        assert_eq!(
            idle.with(NodeStateFlag::PoweredDown).sinfo_compact(),
            "idle~"
        );
        let mix = NodeState::new(NodeBaseState::Mixed).with(NodeStateFlag::NotResponding);
        assert_eq!(
            (mix.sinfo_long(), mix.sinfo_compact()),
            ("mixed*".to_string(), "mix*".to_string())
        );
        let drng = NodeState::new(NodeBaseState::Allocated).with(NodeStateFlag::Drain);
        assert_eq!(
            (drng.sinfo_long(), drng.sinfo_compact()),
            ("draining".to_string(), "drng".to_string())
        );
        let down = NodeState::new(NodeBaseState::Down).with(NodeStateFlag::NotResponding);
        assert_eq!(down.sinfo_compact(), "down*");
    }

    #[test]
    fn complete_form_orders_flags_like_slurm() {
        let s = NodeState::new(NodeBaseState::Idle)
            .with(NodeStateFlag::NotResponding)
            .with(NodeStateFlag::Drain);
        assert_eq!(s.complete_name(), "IDLE+DRAIN+NOT_RESPONDING");
    }

    #[test]
    fn config_states() {
        assert_eq!(
            NodeState::from_config_str("idle", "n1"),
            Ok(NodeState::new(NodeBaseState::Idle))
        );
        assert_eq!(
            NodeState::from_config_str("FAILING", "n1").map(|s| s.to_raw()),
            Ok(0x2002)
        );
        let err = NodeState::from_config_str("ALLOC", "n1").unwrap_err();
        assert_eq!(err.to_string(), "node n1 has invalid state ALLOC");
    }

    #[test]
    fn serde_uses_slurm_names() {
        let s = NodeState::new(NodeBaseState::Idle).with(NodeStateFlag::Drain);
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(json, r#"{"base":"IDLE","flags":["DRAIN"]}"#);
        assert_eq!(serde_json::from_str::<NodeState>(&json).unwrap(), s);
    }
}
