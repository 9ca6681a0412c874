//! The engine's layers stay one-way, and no module graph in the workspace
//! has a cycle.
//!
//! Each folder of `engine/src` is a layer; a file may name (`crate::...`)
//! only its own layer and the layers below, and the modules of one layer
//! may not import each other in a circle. The CLI's and the trainer's
//! modules may not either. Comment lines are not imports and are skipped.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The engine's layers, lowest first.
const LAYERS: [&str; 8] = [
    "rules",
    "formats",
    "evaluation",
    "search",
    "cube",
    "rollout",
    "analysis",
    "play",
];

/// A module's name within its crate (`rules::position`, `rollout`,
/// `main`) from its file's path under `src`.
fn module_of(rel: &Path) -> String {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|l| l == "mod") {
        parts.pop();
    }
    parts.join("::")
}

/// Every `crate::a::b` a source names outside comments and before its
/// test module, as `a::b` (or `a` when `a` is a file module), given the
/// crate's set of module names. Tests may reach across (a test double of
/// one module used by another's tests) without making the library's
/// modules depend on each other.
fn references(source: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut lines = source.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]"
            && lines.peek().is_some_and(|next| {
                let next = next.trim_start();
                next.starts_with("mod ") || next.starts_with("pub(crate) mod ")
            })
        {
            break;
        }
        let mut rest = line.split("//").next().unwrap_or("");
        while let Some(i) = rest.find("crate::") {
            let after = &rest[i + "crate::".len()..];
            let path: Vec<&str> = after
                .split("::")
                .map(|s| {
                    let end = s
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .unwrap_or(s.len());
                    &s[..end]
                })
                .take(2)
                .collect();
            let two = path.join("::");
            if modules.contains(&two) {
                out.insert(two);
            } else if modules.contains(path[0]) {
                out.insert(path[0].to_string());
            }
            rest = after;
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// A crate's module import graph: module -> modules it names.
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let named: Vec<(String, String)> = files
        .iter()
        .map(|f| {
            let m = module_of(f.strip_prefix(src).unwrap());
            (m, std::fs::read_to_string(f).unwrap())
        })
        .collect();
    let modules: BTreeSet<String> = named.iter().map(|(m, _)| m.clone()).collect();
    named
        .into_iter()
        .map(|(m, text)| {
            let mut refs = references(&text, &modules);
            refs.remove(&m);
            // A layer's mod.rs naming its own children is not an import.
            refs.retain(|r| !r.starts_with(&format!("{m}::")));
            (m, refs)
        })
        .collect()
}

/// The imports that go up the layers: (file's module, named module).
fn upward(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<(String, String)> {
    let layer = |m: &str| {
        let top = m.split("::").next().unwrap();
        LAYERS.iter().position(|l| *l == top)
    };
    let mut bad = Vec::new();
    for (m, refs) in g {
        let Some(mine) = layer(m) else { continue };
        for r in refs {
            if layer(r).is_some_and(|theirs| theirs > mine) {
                bad.push((m.clone(), r.clone()));
            }
        }
    }
    bad
}

/// A cycle in the graph, as the modules along it, if there is one.
fn cycle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        m: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(m.to_string(), 1);
        stack.push(m.to_string());
        for r in g.get(m).into_iter().flatten() {
            match state.get(r.as_str()).copied().unwrap_or(0) {
                1 => {
                    let start = stack.iter().position(|s| s == r).unwrap();
                    let mut c = stack[start..].to_vec();
                    c.push(r.clone());
                    return Some(c);
                }
                0 => {
                    if let Some(c) = visit(r, g, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(m.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for m in g.keys() {
        if state.get(m.as_str()).copied().unwrap_or(0) == 0 {
            if let Some(c) = visit(m, g, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn every_engine_folder_is_a_known_layer() {
    let src = root().join("engine/src");
    for e in std::fs::read_dir(&src).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            assert!(
                LAYERS.contains(&name.as_str()),
                "engine/src/{name} is not in tests/layers.rs's LAYERS: place it in the order"
            );
        } else {
            assert_eq!(
                p.file_name().unwrap(),
                "lib.rs",
                "engine/src holds only lib.rs and layer folders"
            );
        }
    }
}

#[test]
fn engine_imports_only_go_down() {
    let g = graph(&root().join("engine/src"));
    assert!(g.contains_key("rules::position") && g.contains_key("play::agent"));
    let bad = upward(&g);
    assert!(bad.is_empty(), "upward imports (module -> named): {bad:?}");
}

#[test]
fn no_crate_has_an_import_cycle() {
    for krate in ["engine", "trainer", "cli"] {
        let g = graph(&root().join(krate).join("src"));
        assert!(g.len() > 3, "{krate}: {} modules", g.len());
        if let Some(c) = cycle(&g) {
            panic!("{krate} has an import cycle: {}", c.join(" -> "));
        }
    }
}

#[test]
fn crates_depend_one_way() {
    // engine <- trainer <- cli <- python: the engine names none of them,
    // the trainer neither the CLI nor the Python module, the CLI not the
    // Python module.
    let text = |p: &str| std::fs::read_to_string(root().join(p)).unwrap();
    let engine = text("engine/Cargo.toml");
    assert!(!engine.contains("sheshbesh-trainer") && !engine.contains("sheshbesh ="));
    assert!(!engine.contains("../python"));
    let trainer = text("trainer/Cargo.toml");
    assert!(!trainer.contains("path = \"../cli\"") && !trainer.contains("../python"));
    assert!(!text("cli/Cargo.toml").contains("../python"));
    assert!(text("python/Cargo.toml").contains("path = \"../cli\""));
}

#[test]
fn the_checker_catches_an_upward_import_and_a_cycle() {
    // The checks above are only worth something if they can fail.
    let modules: BTreeSet<String> = ["rules::dice", "play::agent", "cube::met"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let refs = references(
        "use crate::play::agent::Agent; // crate::cube::met\n// use crate::cube::met;\n\
         #[cfg(test)]\nmod tests {\n    use crate::cube::met;\n}\n",
        &modules,
    );
    assert_eq!(refs.into_iter().collect::<Vec<_>>(), ["play::agent"]);
    let mut g = BTreeMap::new();
    g.insert(
        "rules::dice".to_string(),
        BTreeSet::from(["play::agent".to_string()]),
    );
    g.insert(
        "play::agent".to_string(),
        BTreeSet::from(["rules::dice".to_string()]),
    );
    assert_eq!(
        upward(&g),
        [("rules::dice".to_string(), "play::agent".to_string())]
    );
    assert!(cycle(&g).is_some());
    g.remove("rules::dice");
    assert!(upward(&g).is_empty() && cycle(&g).is_none());
}
