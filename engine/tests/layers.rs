//! The engine's layers stay one-way, no module graph in the workspace has
//! a cycle, and no module imports from its parent's mod.rs or the crate
//! root.
//!
//! Each folder of `engine/src` is a layer; a file may name only its own
//! layer and the layers below, and the modules of one layer may not import
//! each other in a circle. The CLI's and the trainer's modules may not
//! either. Files are parsed (syn), so grouped imports, `super::` chains,
//! child-relative paths, macro tokens and names re-exported at the crate
//! root are all seen; comments and test-only items are not imports.

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

/// The crate root's module name (lib.rs).
const ROOT: &str = "lib";

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

/// What a crate's root re-exports (`pub use rules::position::Position;`
/// in lib.rs), by the name it is known as at the root: a path through the
/// root (`crate::Position`) names the module the item lives in.
fn root_exports(lib_rs: &str) -> BTreeMap<String, Vec<String>> {
    let file = syn::parse_file(lib_rs).expect("lib.rs parses");
    let mut out = BTreeMap::new();
    for item in &file.items {
        if let syn::Item::Use(u) = item {
            if matches!(u.vis, syn::Visibility::Public(_)) {
                for (path, name) in use_paths(&u.tree, Vec::new()) {
                    let path = match path.first().map(String::as_str) {
                        Some("crate") => path[1..].to_vec(),
                        _ => path,
                    };
                    out.insert(name, path);
                }
            }
        }
    }
    out
}

/// The full paths a `use` tree names, each with the name it is known by
/// after the `use`: groups expanded (`a::{b, c::d}` is `a::b` and
/// `a::c::d`), a rename the path it renames, `*` its module.
fn use_paths(tree: &syn::UseTree, prefix: Vec<String>) -> Vec<(Vec<String>, String)> {
    let with = |name: &syn::Ident| {
        let mut p = prefix.clone();
        p.push(name.to_string());
        p
    };
    match tree {
        syn::UseTree::Path(p) => use_paths(&p.tree, with(&p.ident)),
        syn::UseTree::Name(n) => vec![(with(&n.ident), n.ident.to_string())],
        syn::UseTree::Rename(r) => vec![(with(&r.ident), r.rename.to_string())],
        syn::UseTree::Glob(_) => vec![(prefix, "*".to_string())],
        syn::UseTree::Group(g) => g
            .items
            .iter()
            .flat_map(|t| use_paths(t, prefix.clone()))
            .collect(),
    }
}

/// Whether an item is compiled for tests only (`#[cfg(test)]`, `#[test]`).
fn test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("test")
            || (a.path().is_ident("cfg") && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test"))
    })
}

/// Collects the paths a file names, relative paths made absolute.
struct Named<'a> {
    /// The module being read (the file's, then any inline module's).
    here: Vec<String>,
    modules: &'a BTreeSet<String>,
    exports: &'a BTreeMap<String, Vec<String>>,
    found: Vec<Vec<String>>,
}

impl Named<'_> {
    /// `segments` from `here`: `crate::` (a name the root re-exports
    /// standing for where it lives), `super::` chains, `self::` and paths
    /// that start at a child module (`use decision::X` in cube's mod.rs)
    /// made absolute; anything else (other crates, local names) as
    /// written.
    fn absolute(&self, segments: &[String]) -> Vec<String> {
        match segments.first().map(String::as_str) {
            Some("crate") => match segments.get(1) {
                Some(n) if self.exports.contains_key(n) => {
                    [self.exports[n].clone(), segments[2..].to_vec()].concat()
                }
                // An item the root itself defines (`crate::Output`).
                Some(n) if !self.modules.contains(n) => vec![ROOT.to_string()],
                _ => segments[1..].to_vec(),
            },
            Some("self") => [self.here.clone(), segments[1..].to_vec()].concat(),
            Some("super") => {
                let ups = segments.iter().take_while(|s| *s == "super").count();
                let keep = self.here.len().saturating_sub(ups);
                [self.here[..keep].to_vec(), segments[ups..].to_vec()].concat()
            }
            Some(first) => {
                let child = [self.here.clone(), vec![first.to_string()]].concat();
                if self.modules.contains(&child.join("::")) {
                    [self.here.clone(), segments.to_vec()].concat()
                } else {
                    segments.to_vec()
                }
            }
            None => Vec::new(),
        }
    }
}

impl<'ast> syn::visit::Visit<'ast> for Named<'_> {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if test_only(&m.attrs) {
            return;
        }
        self.here.push(m.ident.to_string());
        syn::visit::visit_item_mod(self, m);
        self.here.pop();
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if !test_only(&f.attrs) {
            syn::visit::visit_item_fn(self, f);
        }
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        if !test_only(&i.attrs) {
            syn::visit::visit_item_impl(self, i);
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        if test_only(&u.attrs) {
            return;
        }
        for (path, _) in use_paths(&u.tree, Vec::new()) {
            let path = self.absolute(&path);
            self.found.push(path);
        }
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segments: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        if p.leading_colon.is_none() && segments.len() > 1 {
            let path = self.absolute(&segments);
            self.found.push(path);
        }
        syn::visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        // Paths inside a macro's tokens (`json!`, `format!`) as text.
        let text = m.tokens.to_string().replace(' ', "");
        let mut rest = text.as_str();
        while let Some(i) = rest.find("crate::") {
            rest = &rest[i + "crate::".len()..];
            let path: Vec<String> = std::iter::once("crate".to_string())
                .chain(rest.split("::").map(|s| {
                    let end = s
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .unwrap_or(s.len());
                    s[..end].to_string()
                }))
                .take(4)
                .collect();
            let path = self.absolute(&path);
            self.found.push(path);
        }
        syn::visit::visit_macro(self, m);
    }
}

/// The modules a source file of module `module` names outside its tests:
/// through `use` trees (grouped or not), paths in code and types,
/// `super::` and `self::` chains, child-relative paths, macro tokens and
/// the crate root's re-exports. Each as `a::b` when that is a module of
/// the crate (`modules`), else `a`. Tests may reach across (a test double
/// of one module used by another's tests) without making the library's
/// modules depend on each other.
fn references(
    source: &str,
    module: &str,
    modules: &BTreeSet<String>,
    exports: &BTreeMap<String, Vec<String>>,
) -> BTreeSet<String> {
    let file = syn::parse_file(source).unwrap_or_else(|e| panic!("{module}: {e}"));
    // The crate root (lib.rs, main.rs) resolves paths from the root.
    let here = match module {
        ROOT | "main" => Vec::new(),
        m => m.split("::").map(String::from).collect(),
    };
    let mut named = Named {
        here,
        modules,
        exports,
        found: Vec::new(),
    };
    syn::visit::Visit::visit_file(&mut named, &file);
    let mut out = BTreeSet::new();
    for path in named.found {
        if path == [ROOT] {
            out.insert(ROOT.to_string());
            continue;
        }
        let two = path.iter().take(2).cloned().collect::<Vec<_>>().join("::");
        if modules.contains(&two) {
            out.insert(two);
        } else if path.first().is_some_and(|p| modules.contains(p)) {
            out.insert(path[0].clone());
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
    let lib = ["lib.rs", "main.rs"]
        .iter()
        .map(|f| src.join(f))
        .find(|p| p.exists())
        .expect("a crate root");
    let exports = root_exports(&std::fs::read_to_string(lib).unwrap());
    named
        .into_iter()
        .map(|(m, text)| {
            let mut refs = references(&text, &m, &modules, &exports);
            refs.remove(&m);
            // The crate root declares every top module; naming them is
            // not an import.
            if m == ROOT || m == "main" {
                refs.clear();
            }
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
    let modules: BTreeSet<String> = [
        "rules",
        "rules::dice",
        "rules::position",
        "play",
        "play::agent",
        "cube",
        "cube::met",
        "cube::money",
        "search",
        "search::ply",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let exports = root_exports("pub use rules::position::{Checkers, Position as Board};\n");
    let seen = |source: &str, module: &str| -> Vec<String> {
        references(source, module, &modules, &exports)
            .into_iter()
            .collect()
    };
    // Plain paths; comments and tests are not imports.
    assert_eq!(
        seen(
            "use crate::play::agent::Agent; // crate::cube::met\n// use crate::cube::met;\n\
             #[cfg(test)]\nmod tests {\n    use crate::cube::met;\n}\n",
            "rules::dice",
        ),
        ["play::agent"]
    );
    // Grouped imports, one group inside another.
    assert_eq!(
        seen(
            "use crate::{play::agent::Agent, cube::{met, money::X}};",
            "rules::dice"
        ),
        ["cube::met", "cube::money", "play::agent"]
    );
    // `super::` chains and `self::`, from a file and from its mod.rs.
    assert_eq!(
        seen("use super::super::play::agent;", "rules::dice"),
        ["play::agent"]
    );
    assert_eq!(seen("use super::met::Met;", "cube::money"), ["cube::met"]);
    assert_eq!(seen("use self::met::Met;", "cube"), ["cube::met"]);
    assert_eq!(seen("use met::Met;", "cube"), ["cube::met"]);
    // A name the root re-exports, in a `use` and in code or a macro.
    assert_eq!(
        seen("use crate::Checkers;", "search::ply"),
        ["rules::position"]
    );
    assert_eq!(
        seen("fn f() { let _ = crate::Board::start(); }", "search::ply"),
        ["rules::position"]
    );
    assert_eq!(
        seen(
            "fn f() { let _ = format!(\"{}\", crate::play::agent::X); }",
            "rules::dice"
        ),
        ["play::agent"]
    );
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

/// The imports that point back up the module tree: (module, an ancestor
/// it names: its parent's mod.rs or the crate root).
fn toward_the_root(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<(String, String)> {
    let mut bad = Vec::new();
    for (m, refs) in g {
        for r in refs {
            if r == ROOT || m.starts_with(&format!("{r}::")) {
                bad.push((m.clone(), r.clone()));
            }
        }
    }
    bad
}

#[test]
fn no_module_imports_from_its_parent_or_the_crate_root() {
    // What children share lives in a sibling module, not in the mod.rs or
    // lib.rs that declares them.
    for krate in ["engine", "trainer", "cli"] {
        let g = graph(&root().join(krate).join("src"));
        let bad = toward_the_root(&g);
        assert!(bad.is_empty(), "{krate}: imports back up the tree: {bad:?}");
    }
    let mut g = BTreeMap::new();
    g.insert(
        "rollout::shard".to_string(),
        BTreeSet::from(["rollout".to_string()]),
    );
    g.insert("table".to_string(), BTreeSet::from([ROOT.to_string()]));
    assert_eq!(toward_the_root(&g).len(), 2);
}
