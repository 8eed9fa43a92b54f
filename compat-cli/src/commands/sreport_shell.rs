//! sreport's interactive mode: with no command on the command line it reads commands from stdin after the
//! `sreport: ` prompt until `exit`/`quit`/`\q` or end of input, as Slurm 22.05 does. `#` starts a comment line,
//! `!!` repeats the last line, words are split at blanks outside quotes (the quotes stay in the word). The exit
//! code is 1 once any command failed (an empty line counts as one).

use std::io::{BufRead, Write};

use super::sreport::{command, Flow, Settings};

const PROMPT: &str = "sreport: ";

/// A line's words as Slurm splits them: runs of non-blanks, a quoted part keeping its blanks and its quotes (a
/// quote as a word's first letter opens nothing).
pub(super) fn split_words(line: &str) -> Vec<String> {
    split_at_most(line, usize::MAX).unwrap_or_default()
}

/// The most words a line may have (Slurm's table of 128 words; its message says 127).
const MAX_WORDS: usize = 128;

/// [`split_words`], or `None` when the line has more than `max` words.
fn split_at_most(line: &str, max: usize) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let (mut double, mut single) = (false, false);
    for c in line.chars() {
        if !in_word {
            if c.is_ascii_whitespace() {
                continue;
            }
            if words.len() >= max {
                return None;
            }
            in_word = true;
            current.push(c);
            continue;
        }
        match c {
            '"' => double = !double,
            '\'' => single = !single,
            c if c.is_ascii_whitespace() && !double && !single => {
                words.push(std::mem::take(&mut current));
                in_word = false;
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if in_word {
        words.push(current);
    }
    Some(words)
}

/// Reads and runs commands until one ends the session or stdin does; returns the exit code.
pub(super) fn interactive(settings: &mut Settings) -> u8 {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut code = 0u8;
    let mut last: Option<String> = None;
    loop {
        print!("{PROMPT}");
        let _ = std::io::stdout().flush();
        let mut line = String::new();
        match input.read_line(&mut line) {
            Ok(0) | Err(_) => {
                // End of input: Slurm ends the prompt's line before it exits.
                println!();
                break;
            }
            Ok(_) => {}
        }
        let line = line.strip_suffix('\n').unwrap_or(&line).to_string();
        // Readline echoes what it read when stdin is no terminal.
        println!("{line}");
        let words = if line.starts_with('#') {
            Vec::new()
        } else if line == "!!" {
            last.as_deref().map(split_words).unwrap_or_default()
        } else {
            let Some(words) = split_at_most(&line, MAX_WORDS) else {
                // Slurm gives up on the session here, with exit code 1.
                eprintln!("sreport: can not process over {} words", MAX_WORDS - 1);
                return 1;
            };
            last = Some(line);
            words
        };
        let (failed, flow) = command(&words, settings);
        code |= failed;
        let _ = std::io::stdout().flush();
        if flow == Flow::Exit {
            break;
        }
    }
    code
}

#[cfg(test)]
mod tests {
    use super::{split_at_most, split_words, MAX_WORDS};

    #[test]
    fn words_split_at_blanks_outside_quotes() {
        assert_eq!(
            split_words("  cluster  ua start=x"),
            ["cluster", "ua", "start=x"]
        );
        assert_eq!(
            split_words("user top users=\"a b\" x"),
            ["user", "top", "users=\"a b\"", "x"]
        );
        // A quote that starts a word does not open a quoted part (Slurm looks at quotes from the second
        // letter on), so its blank still splits; the later quote then opens one that runs to the end.
        assert_eq!(split_words("'c d'e f"), ["'c", "d'e f"]);
        assert!(split_words(" \t ").is_empty());
        let many = "w ".repeat(MAX_WORDS);
        assert_eq!(split_at_most(&many, MAX_WORDS).map(|w| w.len()), Some(128));
        assert_eq!(split_at_most(&format!("{many}w"), MAX_WORDS), None);
    }
}
