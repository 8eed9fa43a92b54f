//! What a `TaskProlog` prints changes the task it runs before, as slurmstepd reads it: `export NAME=VALUE` sets a
//! variable, `unset NAME` removes one, `print TEXT` goes to the task's standard output; other lines are ignored.

/// One instruction of a task prolog's output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Instruction {
    Export(String, String),
    Unset(String),
    Print(String),
}

pub fn parse(output: &str) -> Vec<Instruction> {
    output
        .lines()
        .filter_map(|line| {
            if let Some(rest) = line.strip_prefix("export ") {
                let (name, value) = rest.trim_start().split_once('=')?;
                (!name.is_empty()).then(|| Instruction::Export(name.to_string(), value.to_string()))
            } else if let Some(rest) = line.strip_prefix("unset ") {
                let name = rest.trim();
                (!name.is_empty()).then(|| Instruction::Unset(name.to_string()))
            } else {
                line.strip_prefix("print ")
                    .map(|text| Instruction::Print(text.to_string()))
            }
        })
        .collect()
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
                printed.push('\n');
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
}
