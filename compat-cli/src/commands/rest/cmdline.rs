//! slurmrestd's command line: `[-a rest_auth/local,rest_auth/jwt] [-s openapi/v0.0.38] [-f slurm.conf] [-v...]
//! [host:port | unix:/path ...]`. Pure: arguments in, settings or the message to print out.

use std::net::SocketAddr;
use std::path::PathBuf;

/// Where to accept connections.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listen {
    Tcp(String),
    Unix(PathBuf),
}

/// Which rest_auth plugins are loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuthModes {
    pub local: bool,
    pub jwt: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    pub auth: AuthModes,
    pub listen: Vec<Listen>,
    pub conf: Option<PathBuf>,
    pub verbose: u32,
}

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum Parsed {
    Serve(Settings),
    /// Print this and exit 0 (`-h`, `-V`, `-a list`, `-s list`).
    Print(String),
}

pub const OPENAPI_PLUGIN: &str = "openapi/v0.0.38";
const AUTH_PLUGINS: [&str; 2] = ["rest_auth/local", "rest_auth/jwt"];

pub fn usage() -> String {
    "Usage: slurmrestd [OPTIONS] [host:port | unix:/path/to/socket]...\n\
     \x20 -a rest_auth/local,rest_auth/jwt  authentication plugins to load (default: both)\n\
     \x20 -f slurm.conf                    read this slurm.conf\n\
     \x20 -s openapi/v0.0.38               OpenAPI plugins to load\n\
     \x20 -v                               more logging (repeatable)\n\
     \x20 -V                               print the version\n\
     \x20 -h                               this help\n"
        .to_string()
}

pub fn parse(args: &[String]) -> Result<Parsed, String> {
    let mut auth = AuthModes {
        local: true,
        jwt: true,
    };
    let mut listen = Vec::new();
    let mut conf = None;
    let mut verbose = 0;
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        let mut value = |name: &str| -> Result<String, String> {
            i += 1;
            args.get(i)
                .cloned()
                .ok_or_else(|| format!("option requires an argument -- '{name}'"))
        };
        match arg {
            "-h" | "--help" => return Ok(Parsed::Print(usage())),
            "-V" | "--version" => return Ok(Parsed::Print(format!("{}\n", crate::version_line()))),
            "-a" => {
                let list = value("a")?;
                if list == "list" {
                    return Ok(Parsed::Print(plugin_list("rest_auth", &AUTH_PLUGINS)));
                }
                auth = auth_modes(&list)?;
            }
            "-s" => {
                let list = value("s")?;
                if list == "list" {
                    return Ok(Parsed::Print(plugin_list("openapi", &[OPENAPI_PLUGIN])));
                }
                openapi_plugins(&list)?;
            }
            "-f" => conf = Some(PathBuf::from(value("f")?)),
            // Thread count and the user/group to become: Spur's server sizes itself and never changes identity.
            "-t" | "-u" | "-g" => {
                value(&arg[1..])?;
            }
            _ if arg.starts_with("-v") && arg[1..].chars().all(|c| c == 'v') => {
                verbose += arg.len() as u32 - 1;
            }
            _ if arg.starts_with('-') => return Err(format!("invalid option -- '{arg}'")),
            _ => listen.push(listen_address(arg)?),
        }
        i += 1;
    }
    if listen.is_empty() {
        return Err("no listen address given (inetd mode is not supported): \
                    give host:port or unix:/path"
            .to_string());
    }
    Ok(Parsed::Serve(Settings {
        auth,
        listen,
        conf,
        verbose,
    }))
}

fn plugin_list(kind: &str, names: &[&str]) -> String {
    let mut out = format!("Possible {kind} plugins:\n");
    for name in names {
        out.push_str(name);
        out.push('\n');
    }
    out
}

fn auth_modes(list: &str) -> Result<AuthModes, String> {
    let mut modes = AuthModes {
        local: false,
        jwt: false,
    };
    for name in list.split(',').map(str::trim) {
        match name.trim_start_matches("rest_auth/") {
            "local" => modes.local = true,
            "jwt" => modes.jwt = true,
            _ => return Err(format!("Unable to find rest_auth plugin: {name}")),
        }
    }
    Ok(modes)
}

fn openapi_plugins(list: &str) -> Result<(), String> {
    for name in list.split(',').map(str::trim) {
        match name.trim_start_matches("openapi/") {
            "v0.0.38" => {}
            "dbv0.0.38" => {
                return Err(format!(
                    "{name}: the slurmdbd endpoints are not served (Spur has no slurmdbd)"
                ))
            }
            _ => return Err(format!("Unable to find plugin: {name}")),
        }
    }
    Ok(())
}

fn listen_address(text: &str) -> Result<Listen, String> {
    if let Some(path) = text.strip_prefix("unix:") {
        if path.is_empty() {
            return Err(format!("invalid socket path: {text}"));
        }
        return Ok(Listen::Unix(PathBuf::from(path)));
    }
    // `host:port` with a name or an address; the name is resolved when binding.
    let valid = text.parse::<SocketAddr>().is_ok()
        || text
            .rsplit_once(':')
            .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok());
    if valid {
        Ok(Listen::Tcp(text.to_string()))
    } else {
        Err(format!("Unable to parse listen address: {text}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn several_addresses_and_plugins() {
        let parsed = parse(&args(&[
            "-a",
            "rest_auth/jwt",
            "-s",
            "openapi/v0.0.38",
            "-f",
            "/etc/s.conf",
            "-vv",
            "127.0.0.1:6820",
            "unix:/run/r.sock",
            "localhost:7000",
        ]))
        .unwrap();
        assert_eq!(
            parsed,
            Parsed::Serve(Settings {
                auth: AuthModes {
                    local: false,
                    jwt: true
                },
                listen: vec![
                    Listen::Tcp("127.0.0.1:6820".into()),
                    Listen::Unix("/run/r.sock".into()),
                    Listen::Tcp("localhost:7000".into()),
                ],
                conf: Some("/etc/s.conf".into()),
                verbose: 2,
            })
        );
    }

    #[test]
    fn refusals() {
        assert!(parse(&args(&[])).is_err());
        assert!(parse(&args(&["-a", "rest_auth/none", "unix:/s"])).is_err());
        assert!(parse(&args(&["-s", "openapi/dbv0.0.38", "unix:/s"])).is_err());
        assert!(parse(&args(&["nonsense"])).is_err());
        assert!(parse(&args(&["-a"])).is_err());
        assert!(matches!(
            parse(&args(&["-a", "list"])),
            Ok(Parsed::Print(_))
        ));
    }
}
