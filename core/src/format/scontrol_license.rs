//! `scontrol show licenses [NAME]`, as Slurm 22.05 prints it (one record, or one line each with `-o`).

use crate::model::records::LicenseRecord;

pub fn render(licenses: &[LicenseRecord], one_liner: bool) -> String {
    let mut out = String::new();
    for license in licenses {
        let free = license.total.saturating_sub(license.used);
        let counts = format!(
            "Total={} Used={} Free={free} Reserved=0 Remote=no",
            license.total, license.used
        );
        if one_liner {
            out.push_str(&format!("LicenseName={} {counts}\n", license.name));
        } else {
            out.push_str(&format!("LicenseName={}\n    {counts}\n", license.name));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_layouts_match_slurm() {
        let licenses = [
            LicenseRecord {
                name: "ansys".into(),
                total: 1,
                used: 0,
            },
            LicenseRecord {
                name: "fluent".into(),
                total: 3,
                used: 2,
            },
        ];
        assert_eq!(
            render(&licenses, false),
            "LicenseName=ansys\n    Total=1 Used=0 Free=1 Reserved=0 Remote=no\n\
             LicenseName=fluent\n    Total=3 Used=2 Free=1 Reserved=0 Remote=no\n"
        );
        assert_eq!(
            render(&licenses[1..], true),
            "LicenseName=fluent Total=3 Used=2 Free=1 Reserved=0 Remote=no\n"
        );
    }
}
