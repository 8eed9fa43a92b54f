//! `srun --multi-prog FILE`: each task runs the command FILE gives its rank. A line is `RANKS PROGRAM ARGS...`
//! where RANKS is `*`, a rank, a range `1-3` or a comma list of those; in the arguments `%t` becomes the task's
//! rank and `%o` its position in the line's rank list. `#` starts a comment line, a trailing `\` continues a line,
//! single quotes group words (and are removed), a backslash keeps the next character. As in Slurm 22.05, every rank
//! must be covered exactly once (a `*` line covers those no other line names).

/// One task's command per rank, in rank order; the error lines srun prints (without `srun: error: `).
pub fn resolve(text: &str, file_name: &str, ntasks: u32) -> Result<Vec<Vec<String>>, Vec<String>> {
    let mut argv: Vec<Option<Vec<String>>> = vec![None; ntasks as usize];
    let mut star: Option<Vec<String>> = None;
    for (number, line) in logical_lines(text) {
        let invalid = |why: String| {
            vec![
                why,
                format!("Line {number} of configuration file {file_name} invalid"),
            ]
        };
        let words = split_words(&line);
        let Some((ranks, template)) = words.split_first() else {
            continue;
        };
        if template.is_empty() {
            return Err(invalid(format!("No command given for line {number}")));
        }
        if ranks == "*" {
            star = Some(template.to_vec());
            continue;
        }
        let list =
            parse_ranks(ranks).ok_or_else(|| invalid(format!("Invalid task range: {ranks}")))?;
        for (offset, rank) in list.iter().enumerate() {
            let Some(slot) = argv.get_mut(*rank as usize) else {
                return Err(invalid(format!("Invalid task id, {rank} >= ntasks")));
            };
            if slot.is_some() {
                return Err(invalid(format!("Duplicate record for task {rank}")));
            }
            *slot = Some(expand(template, *rank, offset as u32));
        }
    }
    argv.into_iter()
        .enumerate()
        .map(|(rank, command)| {
            let rank = rank as u32;
            command
                .or_else(|| star.as_ref().map(|t| expand(t, rank, rank)))
                .ok_or_else(|| {
                    vec![format!(
                        "Configuration file {file_name} invalid, no record for task id {rank}"
                    )]
                })
        })
        .collect()
}

/// The file's lines with continuations joined and comments and blank lines dropped, each with the number of its
/// first physical line.
fn logical_lines(text: &str) -> Vec<(usize, String)> {
    let mut lines = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for (index, raw) in text.lines().enumerate() {
        let (start, mut joined) = pending.take().unwrap_or((index + 1, String::new()));
        match raw.strip_suffix('\\') {
            Some(head) => {
                joined.push_str(head);
                pending = Some((start, joined));
            }
            None => {
                joined.push_str(raw);
                let trimmed = joined.trim_start();
                if !trimmed.is_empty() && !trimmed.starts_with('#') {
                    lines.push((start, joined));
                }
            }
        }
    }
    if let Some((start, joined)) = pending {
        if !joined.trim().is_empty() {
            lines.push((start, joined));
        }
    }
    lines
}

/// Whitespace-separated words; single quotes group (and are dropped), a backslash keeps the next character.
fn split_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quoted = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                quoted = !quoted;
                in_word = true;
            }
            '\\' if !quoted => {
                if let Some(next) = chars.next() {
                    word.push(next);
                }
                in_word = true;
            }
            c if c.is_whitespace() && !quoted => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// `3`, `1-3`, `0,2-3` in the order written.
fn parse_ranks(text: &str) -> Option<Vec<u32>> {
    let mut ranks = Vec::new();
    for part in text.split(',') {
        match part.split_once('-') {
            Some((low, high)) => {
                let (low, high) = (low.parse::<u32>().ok()?, high.parse::<u32>().ok()?);
                if low > high {
                    return None;
                }
                ranks.extend(low..=high);
            }
            None => ranks.push(part.parse().ok()?),
        }
    }
    Some(ranks)
}

/// `%t` and `%o` replaced; any other `%X` (`%%` included) is dropped, as Slurm does.
fn expand(template: &[String], rank: u32, offset: u32) -> Vec<String> {
    template
        .iter()
        .map(|word| {
            let mut out = String::new();
            let mut chars = word.chars();
            while let Some(c) = chars.next() {
                if c != '%' {
                    out.push(c);
                    continue;
                }
                match chars.next() {
                    Some('t') => out.push_str(&rank.to_string()),
                    Some('o') => out.push_str(&offset.to_string()),
                    _ => {}
                }
            }
            out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn ranks_ranges_star_and_substitutions() {
        let text = "# comment\n0      echo zero task=%t offset=%o\n1,3 echo \"range  task\" %t off %o\n* echo rest %t %o\n";
        let argv = resolve(text, "mp.conf", 4).unwrap();
        assert_eq!(argv[0], words(&["echo", "zero", "task=0", "offset=0"]));
        assert_eq!(
            argv[1],
            words(&["echo", "\"range", "task\"", "1", "off", "0"])
        );
        assert_eq!(argv[2], words(&["echo", "rest", "2", "2"]));
        assert_eq!(
            argv[3],
            words(&["echo", "\"range", "task\"", "3", "off", "1"])
        );
    }

    #[test]
    fn quoting_continuations_and_percent_signs() {
        // What Slurm 22.05 ran for these lines (checked with real srun).
        let argv = resolve(
            "0 echo single\\\n continued\n1 echo 'q x' x\\\"y 100%% %x\n",
            "c.conf",
            2,
        )
        .unwrap();
        assert_eq!(argv[0], words(&["echo", "single", "continued"]));
        assert_eq!(argv[1], words(&["echo", "q x", "x\"y", "100", ""]));
        let listed = resolve("1,0 echo c %o\n", "o.conf", 2).unwrap();
        assert_eq!(listed[0], words(&["echo", "c", "1"]));
        assert_eq!(listed[1], words(&["echo", "c", "0"]));
    }

    #[test]
    fn slurms_errors() {
        assert_eq!(
            resolve("0 echo a\n", "short.conf", 2).unwrap_err(),
            ["Configuration file short.conf invalid, no record for task id 1"]
        );
        assert_eq!(
            resolve("0,1 echo x\n2 bad\n", "bad.conf", 2).unwrap_err(),
            [
                "Invalid task id, 2 >= ntasks",
                "Line 2 of configuration file bad.conf invalid"
            ]
        );
        assert_eq!(
            resolve("0 echo a\n0-1 echo b\n", "dup.conf", 2).unwrap_err(),
            [
                "Duplicate record for task 0",
                "Line 2 of configuration file dup.conf invalid"
            ]
        );
    }
}
