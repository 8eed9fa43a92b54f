//! libmunge against real munged daemons started for the test: round trip, request binding, replay, another key,
//! and garbage fed to the decoder.

use proptest::prelude::*;
use spur_auth::munge::{self, EMUNGE_CRED_INVALID, EMUNGE_CRED_REPLAYED};
use spur_auth::testing::PrivateMunged;
use spur_auth::{AuthError, ClientAuth, Verifier, VerifierSettings};
use spur_core::auth::AuthMethod;
use spur_core::wire::pb;

fn message(id: &str, json: &[u8]) -> pb::ApiRequest {
    pb::ApiRequest {
        request_id: id.into(),
        caller: Some(pb::Caller {
            uid: 0,
            gid: 0,
            host: "forged".into(),
        }),
        body: Some(pb::Doc {
            kind: "Query".into(),
            version: 1,
            json: json.to_vec(),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

fn verifier(munged: &PrivateMunged) -> Verifier {
    Verifier::new(VerifierSettings {
        munge_socket: Some(munged.socket_str()),
        jwt_key: None,
    })
}

#[test]
fn credentials_bind_to_one_request_once() {
    let dir = tempfile::tempdir().unwrap();
    let munged = PrivateMunged::start(&dir.path().join("a")).unwrap();
    let client = ClientAuth::Munge {
        socket: munged.socket_str(),
    };
    let verifier = verifier(&munged);
    let me = nix::unistd::getuid().as_raw();

    let sent = message("r1", br#"{"Jobs":null}"#);
    let request = client.request("Query", sent.clone()).unwrap();
    let identity = verifier.verify(&request, "Query", &sent, now()).unwrap();
    assert_eq!((identity.uid, identity.method), (me, AuthMethod::Munge));

    // The same credential again: munged's replay detection answers first.
    match verifier.verify(&request, "Query", &sent, now()) {
        Err(AuthError::Munge(e)) => assert_eq!(e.code, EMUNGE_CRED_REPLAYED),
        other => panic!("replay accepted: {other:?}"),
    }

    // A fresh credential presented with another body or for another call.
    let request = client.request("Query", sent.clone()).unwrap();
    let other = message("r1", br#"{"Nodes":null}"#);
    assert_eq!(
        verifier.verify(&request, "Query", &other, now()),
        Err(AuthError::Binding)
    );
    let request = client.request("Query", sent.clone()).unwrap();
    assert_eq!(
        verifier.verify(&request, "Control", &sent, now()),
        Err(AuthError::Binding)
    );
}

#[test]
fn another_key_is_refused_and_spur_cache_catches_replays_munged_cannot_see() {
    let dir = tempfile::tempdir().unwrap();
    let a = PrivateMunged::start(&dir.path().join("a")).unwrap();
    let b = PrivateMunged::start(&dir.path().join("b")).unwrap();
    let sent = message("r2", b"{}");
    let request = ClientAuth::Munge {
        socket: b.socket_str(),
    }
    .request("Query", sent.clone())
    .unwrap();
    match verifier(&a).verify(&request, "Query", &sent, now()) {
        Err(AuthError::Munge(e)) => assert_eq!(e.code, EMUNGE_CRED_INVALID, "{e}"),
        other => panic!("credential of another key accepted: {other:?}"),
    }

    // A restarted munged has forgotten the credentials it decoded; the verifier's own cache has not.
    let c_dir = dir.path().join("c");
    let c = PrivateMunged::start_with_key(&c_dir, Some(&a.key)).unwrap();
    let verifier = verifier(&c);
    let request = ClientAuth::Munge {
        socket: a.socket_str(),
    }
    .request("Query", sent.clone())
    .unwrap();
    verifier.verify(&request, "Query", &sent, now()).unwrap();
    drop(c);
    let _c = PrivateMunged::start_with_key(&c_dir, Some(&a.key)).unwrap();
    assert_eq!(
        verifier.verify(&request, "Query", &sent, now()),
        Err(AuthError::Replay(
            spur_core::auth::replay::ReplayError::Replayed
        ))
    );
}

#[test]
fn decoder_survives_garbage() {
    let dir = tempfile::tempdir().unwrap();
    let munged = PrivateMunged::start(&dir.path().join("g")).unwrap();
    let socket = munged.socket_str();
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(64));
    runner
        .run(&"[ -~]{0,200}", |text| {
            prop_assert!(munge::decode(&socket, &text).is_err());
            Ok(())
        })
        .unwrap();
    let good = munge::encode(&socket, b"x").unwrap();
    runner
        .run(&(0usize..good.len(), any::<u8>()), |(i, b)| {
            let mut bytes = good.clone().into_bytes();
            bytes[i] = b;
            if let Ok(text) = String::from_utf8(bytes) {
                if text != good {
                    let _ = munge::decode(&socket, &text);
                }
            }
            Ok(())
        })
        .unwrap();
}
