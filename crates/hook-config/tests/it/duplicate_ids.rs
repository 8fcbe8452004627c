//! Duplicate ids in one file at scale: clio-coder's rule (the last declaration of an id replaces the first, in the
//! first's place) and the native rule (later copies dropped), each in one pass however many duplicates there are.

use std::path::Path;

use hook_config::{Format, HookSpec, parse_str};
use hook_types::Origin;

fn cx() -> hook_config::FileContext<'static> {
    hook_config::FileContext {
        origin: Origin::Project,
        workspace: Path::new("/ws"),
        root: Path::new("/ws"),
        source_id: None,
    }
}

fn messages(load: &hook_config::FileLoad) -> Vec<(String, String)> {
    load.hooks
        .iter()
        .map(|h| match &h.spec {
            HookSpec::Prompt { message, .. } => (h.id.clone(), message.clone()),
            other => panic!("{other:?}"),
        })
        .collect()
}

#[test]
fn in_a_clio_coder_file_the_last_of_each_id_replaces_the_first_in_its_place() {
    let yaml = "\
- {id: a, on: turn_start, kind: prompt, message: a1}
- {id: b, on: turn_start, kind: prompt, message: b1}
- {id: a, on: turn_start, kind: prompt, message: a2}
- {id: c, on: turn_start, kind: prompt, message: c1}
- {id: a, on: turn_start, kind: prompt, message: a3}
- {id: b, on: turn_start, kind: prompt, message: b2}
";
    let load = parse_str(yaml, Path::new(".clio-coder/hooks.yaml"), Format::Clio, &cx());
    let pairs = |v: &[(&str, &str)]| v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect::<Vec<_>>();
    assert_eq!(messages(&load), pairs(&[("a", "a3"), ("b", "b2"), ("c", "c1")]));
    assert_eq!(load.issues.len(), 3, "{:?}", load.issues);
    assert!(load.issues.iter().all(|i| i.message.contains("as clio-coder does, this hook replaces that one")));
}

#[test]
fn nine_thousand_copies_of_one_id_load_as_one_hook_in_either_format() {
    let copies = 9_000;
    let yaml: String =
        (0..copies).map(|i| format!("- {{id: same, on: turn_start, kind: prompt, message: m{i}}}\n")).collect();
    let clio = parse_str(&yaml, Path::new(".clio-coder/hooks.yaml"), Format::Clio, &cx());
    assert_eq!(messages(&clio), [("same".to_owned(), format!("m{}", copies - 1))]);
    assert_eq!(clio.issues.len(), copies - 1);
    let native = parse_str(&yaml, Path::new(".hooks/hooks.yaml"), Format::Native, &cx());
    assert_eq!(messages(&native), [("same".to_owned(), "m0".to_owned())]);
    assert_eq!(native.issues.len(), copies - 1);
}
