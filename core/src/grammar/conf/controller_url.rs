//! Where clients find spurctld: `SPUR_CONTROLLER` (`host:port` or a URL, or several separated by commas), else
//! every slurm.conf `SlurmctldHost` address with `SlurmctldPort`, else Slurm's default port on this host. The CLI,
//! spurd and libspur_compat all ask here; with several controllers they try each in turn.

use super::SlurmConf;

/// The controllers' URLs, in the order to try them, from the `SPUR_CONTROLLER` value (if set) and the parsed
/// slurm.conf (if readable). Never empty.
pub fn controller_urls(spur_controller: Option<&str>, conf: Option<&SlurmConf>) -> Vec<String> {
    if let Some(list) = spur_controller {
        let urls: Vec<String> = list
            .split(',')
            .map(str::trim)
            .filter(|u| !u.is_empty())
            .map(|url| {
                if url.contains("://") {
                    url.to_string()
                } else {
                    format!("http://{url}")
                }
            })
            .collect();
        if !urls.is_empty() {
            return urls;
        }
    }
    match conf {
        Some(conf) if !conf.controllers.is_empty() => {
            let port = conf.slurmctld_port().first;
            conf.controllers
                .iter()
                .map(|c| format!("http://{}:{}", c.addr, port))
                .collect()
        }
        Some(conf) => vec![format!("http://127.0.0.1:{}", conf.slurmctld_port().first)],
        None => vec!["http://127.0.0.1:6817".to_string()],
    }
}

/// The first controller to try (see [`controller_urls`]).
pub fn controller_url(spur_controller: Option<&str>, conf: Option<&SlurmConf>) -> String {
    controller_urls(spur_controller, conf)
        .into_iter()
        .next()
        .unwrap_or_else(|| "http://127.0.0.1:6817".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environment_then_slurm_conf_then_the_default() {
        assert_eq!(controller_url(Some("h:7"), None), "http://h:7");
        assert_eq!(controller_url(Some("http://h:7"), None), "http://h:7");
        assert_eq!(controller_url(None, None), "http://127.0.0.1:6817");
        let text = "ClusterName=c\nSlurmctldHost=ctl(10.0.0.5)\nSlurmctldPort=7000-7002\n";
        let conf = SlurmConf::parse_str(text, "slurm.conf").expect("slurm.conf");
        assert_eq!(controller_url(None, Some(&conf)), "http://10.0.0.5:7000");
    }

    #[test]
    fn every_controller_in_order() {
        assert_eq!(
            controller_urls(Some("a:1, http://b:2,"), None),
            vec!["http://a:1", "http://b:2"]
        );
        let text = "ClusterName=c\nSlurmctldHost=c1(10.0.0.5)\nSlurmctldHost=c2(10.0.0.6)\nSlurmctldPort=7000\n";
        let conf = SlurmConf::parse_str(text, "slurm.conf").expect("slurm.conf");
        assert_eq!(
            controller_urls(None, Some(&conf)),
            vec!["http://10.0.0.5:7000", "http://10.0.0.6:7000"]
        );
    }
}
