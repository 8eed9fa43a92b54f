//! `--mem-bind=[{quiet|verbose},]type`: comma-separated keywords, where `map_mem:`/`mask_mem:` take a list whose
//! own commas continue the list (`map_mem:0,1`).

/// What `--mem-bind` asks for.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MemBind {
    pub verbose: bool,
    pub sort: Option<bool>,
    pub prefer: bool,
    /// `none`, `rank`, `local`, `map_mem` or `mask_mem` (lower case), the last one given.
    pub kind: Option<String>,
    /// The list of `map_mem`/`mask_mem`.
    pub list: Option<String>,
}

/// Parses `--mem-bind`; the error is the message Slurm prints.
pub fn parse_mem_bind(arg: &str) -> Result<MemBind, String> {
    let mut out = MemBind::default();
    let mut items = arg.split(',').peekable();
    while let Some(item) = items.next() {
        let (word, list) = match item.split_once(':') {
            Some((w, l)) => (w, Some(l)),
            None => (item, None),
        };
        let w = word.to_ascii_lowercase();
        match w.as_str() {
            "help" => return Err("--mem-bind=help".to_string()),
            "q" | "quiet" => out.verbose = false,
            "v" | "verbose" => out.verbose = true,
            "no" | "none" | "rank" | "local" => {
                out.kind = Some(if w.starts_with('n') {
                    "none".into()
                } else {
                    w.clone()
                });
                out.list = None;
            }
            "sort" => out.sort = Some(true),
            "nosort" => out.sort = Some(false),
            "prefer" => out.prefer = true,
            "map_mem" | "mapmem" | "mask_mem" | "maskmem" => {
                let kind = if w.starts_with("map") {
                    "map_mem"
                } else {
                    "mask_mem"
                };
                let Some(first) = list.filter(|l| !l.is_empty()) else {
                    return Err(format!("missing list for \"--mem-bind={kind}:<list>\""));
                };
                let mut l = first.to_string();
                // Following items that look like list entries belong to this list, not to the keyword list.
                while let Some(next) = items.peek().filter(|n| is_list_entry(n)) {
                    l.push(',');
                    l.push_str(next);
                    items.next();
                }
                out.kind = Some(kind.into());
                out.list = Some(l);
            }
            _ => return Err(format!("unrecognized --mem-bind argument \"{item}\"")),
        }
    }
    Ok(out)
}

/// A CPU or mask value as map/mask lists hold them: decimal, or hex with an optional `0x`, and an optional
/// `*count` repetition.
fn is_list_entry(s: &str) -> bool {
    let base = s.split('*').next().unwrap_or("");
    let hex = base
        .strip_prefix("0x")
        .or_else(|| base.strip_prefix("0X"))
        .unwrap_or(base);
    !hex.is_empty() && hex.bytes().all(|c| c.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_and_lists() {
        let m = parse_mem_bind("sort,verbose").unwrap();
        assert_eq!((m.sort, m.verbose), (Some(true), true));
        assert_eq!(
            parse_mem_bind("rank").unwrap().kind.as_deref(),
            Some("rank")
        );
        let m = parse_mem_bind("MAP_MEM:0,1").unwrap();
        assert_eq!(
            (m.kind.as_deref(), m.list.as_deref()),
            (Some("map_mem"), Some("0,1"))
        );
        let m = parse_mem_bind("v,mask_mem:0x1,0x2,local").unwrap();
        assert_eq!(
            (m.kind.as_deref(), m.list.as_deref()),
            (Some("local"), None)
        );
    }

    #[test]
    fn errors() {
        assert_eq!(
            parse_mem_bind("-1").unwrap_err(),
            "unrecognized --mem-bind argument \"-1\""
        );
        assert_eq!(
            parse_mem_bind("bogus").unwrap_err(),
            "unrecognized --mem-bind argument \"bogus\""
        );
        assert_eq!(
            parse_mem_bind("map_mem").unwrap_err(),
            "missing list for \"--mem-bind=map_mem:<list>\""
        );
        assert!(parse_mem_bind("help").is_err());
    }
}
