//! Serde for a setting that a change may leave alone, set, or clear (`Option<Option<T>>`: `None`, `Some(Some(v))`,
//! `Some(None)`), as `sacctmgr ... set MaxJobs=-1` and `scontrol update ... TimeLimit=UNLIMITED` send it.
//!
//! JSON writes `None` and `Some(None)` alike as `null`, so a clear sent or logged through plain serde reads back
//! as "leave alone" and is lost. A clear is written as `{"clear":true}` instead; `null` and a bare value read as
//! they always did, so changes already in the log (where `null` meant "leave alone") replay unchanged.
//!
//! Use with `#[serde(default, with = "crate::model::clearable")]`.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[derive(Serialize, Deserialize)]
struct Clear {
    clear: bool,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Form<T> {
    Clear(Clear),
    Value(T),
}

pub fn serialize<S: Serializer, T: Serialize>(
    value: &Option<Option<T>>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match value {
        None => serializer.serialize_none(),
        Some(None) => serializer.serialize_some(&Clear { clear: true }),
        Some(Some(v)) => serializer.serialize_some(v),
    }
}

pub fn deserialize<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> Result<Option<Option<T>>, D::Error> {
    Ok(match Option::<Form<T>>::deserialize(deserializer)? {
        None => None,
        Some(Form::Clear(Clear { clear: true })) => Some(None),
        Some(Form::Clear(Clear { clear: false })) => None,
        Some(Form::Value(v)) => Some(Some(v)),
    })
}

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};

    #[derive(Debug, PartialEq, Default, Serialize, Deserialize)]
    #[serde(default)]
    struct Change {
        #[serde(with = "crate::model::clearable")]
        jobs: Option<Option<u32>>,
        #[serde(with = "crate::model::clearable")]
        tres: Option<Option<String>>,
    }

    #[test]
    fn leave_set_and_clear_survive_json() {
        for change in [
            Change::default(),
            Change {
                jobs: Some(Some(4)),
                tres: Some(Some("cpu=2".into())),
            },
            Change {
                jobs: Some(None),
                tres: Some(None),
            },
            Change {
                jobs: Some(None),
                tres: None,
            },
        ] {
            let json = serde_json::to_string(&change).expect("encode");
            let back: Change = serde_json::from_str(&json).expect("decode");
            assert_eq!(back, change, "{json}");
        }
    }

    #[test]
    fn changes_written_before_read_as_they_were_applied() {
        // Plain serde wrote both "leave alone" and "clear" as null, and the controller applied both as "leave
        // alone": an entry of that time must replay the same way.
        let old: Change = serde_json::from_str(r#"{"jobs":null,"tres":"cpu=1"}"#).expect("decode");
        assert_eq!(
            old,
            Change {
                jobs: None,
                tres: Some(Some("cpu=1".into()))
            }
        );
        let absent: Change = serde_json::from_str("{}").expect("decode");
        assert_eq!(absent, Change::default());
    }
}
