//! What a `TaskProlog` prints changes the task it runs before, as slurmstepd reads it: `export NAME=VALUE` sets a
//! variable, `unset NAME` removes one, `print TEXT` goes to the task's standard output; other lines are ignored.

/// One instruction of a task prolog's output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Instruction {
    Export(String, String),
    Unset(String),
    Print(String),
}

/// Reads a prolog's output line by line as slurmstepd does (`task.c`): only `\n` ends a line (a `\r` stays in a
/// value), blanks after the keyword are skipped, a name ends at `=` less its trailing blanks while the value is the
/// rest of the line as written, and `print` keeps the text after its leading blanks.
pub fn parse(output: &str) -> Vec<Instruction> {
    let mut instructions = output
        .split('\n')
        .filter_map(|line| {
            if let Some(rest) = line.strip_prefix("export ") {
                let (name, value) = rest.trim_start().split_once('=')?;
                let name = name.trim_end();
                (!name.is_empty()).then(|| Instruction::Export(name.to_string(), value.to_string()))
            } else if let Some(rest) = line.strip_prefix("unset ") {
                let name = rest.trim();
                (!name.is_empty()).then(|| Instruction::Unset(name.to_string()))
            } else {
                line.strip_prefix("print ")
                    .map(|text| Instruction::Print(text.trim_start().to_string()))
            }
        })
        .collect::<Vec<_>>();
    // slurmstepd writes a `print` line with the byte that ends it: the newline, or for an unterminated last line
    // the string's terminating NUL.
    let last_line = output.rsplit('\n').next().unwrap_or_default();
    if last_line.starts_with("print ") {
        if let Some(Instruction::Print(text)) = instructions.last_mut() {
            text.push('\0');
        }
    }
    instructions
}

/// Applies the exports and unsets to an environment, in order; returns the text to print.
pub fn apply(instructions: &[Instruction], env: &mut Vec<(String, String)>) -> String {
    let mut printed = String::new();
    for instruction in instructions {
        match instruction {
            Instruction::Export(name, value) => {
                env.retain(|(k, _)| k != name);
                env.push((name.clone(), value.clone()));
            }
            Instruction::Unset(name) => env.retain(|(k, _)| k != name),
            Instruction::Print(text) => {
                printed.push_str(text);
                if !text.ends_with('\0') {
                    printed.push('\n');
                }
            }
        }
    }
    printed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exports_unsets_and_prints() {
        let out = "export A=1\nexport B=x=y\nunset GONE\nprint hello world\nnoise\nexport =bad\n";
        let instructions = parse(out);
        assert_eq!(instructions.len(), 4);
        let mut env = vec![
            ("GONE".to_string(), "1".to_string()),
            ("A".to_string(), "0".to_string()),
        ];
        let printed = apply(&instructions, &mut env);
        assert_eq!(printed, "hello world\n");
        assert_eq!(
            env,
            vec![
                ("A".to_string(), "1".to_string()),
                ("B".to_string(), "x=y".to_string())
            ]
        );
    }

    #[test]
    fn blanks_and_line_ends_as_slurmstepd_reads_them() {
        let out = "export  SP  =x y \nprint    spaced out\nexport CR=v\r\nunset   U  \nexport NOEQUALS\nunset \n";
        assert_eq!(
            parse(out),
            vec![
                Instruction::Export("SP".into(), "x y ".into()),
                Instruction::Print("spaced out".into()),
                Instruction::Export("CR".into(), "v\r".into()),
                Instruction::Unset("U".into()),
            ]
        );
        let mut env = Vec::new();
        assert_eq!(apply(&parse("print a\nprint last"), &mut env), "a\nlast\0");
        assert_eq!(apply(&parse("print a\nnoise"), &mut env), "a\n");
    }
}
