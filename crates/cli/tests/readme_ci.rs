//! The README's two commands are what CI runs: every command line of its "Two commands" block must be a line of
//! `.ci/run`, so the two cannot drift apart.

use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The command lines (not comments, not blank) of the first `sh` block after the heading `## Two commands`.
fn readme_commands(readme: &str) -> Vec<String> {
    let section = readme
        .split("\n## Two commands")
        .nth(1)
        .expect("README has a `## Two commands` section");
    let block = section
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("\n```").next())
        .expect("the section has a ```sh block");
    block
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect()
}

#[test]
fn ci_runs_the_readme_commands_as_written() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let ci = std::fs::read_to_string(root().join(".ci/run")).unwrap();
    let commands = readme_commands(&readme);
    assert_eq!(commands.len(), 2, "two commands: {commands:?}");
    assert!(commands[0].contains(" reproduce"), "{commands:?}");
    let ci_lines: Vec<&str> = ci.lines().map(str::trim).collect();
    for c in &commands {
        assert!(ci_lines.contains(&c.as_str()), ".ci/run does not run `{c}`");
    }
    // The main job first, then the tests.
    let at = |c: &str| ci_lines.iter().position(|l| *l == c).unwrap();
    assert!(at(&commands[0]) < at(&commands[1]));
}

#[test]
fn readme_commands_are_read_from_the_block() {
    let md = "x\n## Two commands\n\ntext\n```sh\n# a\ncargo run x\n\n# b\n./t.sh\n```\nmore ```sh\nno\n```\n";
    assert_eq!(readme_commands(md), vec!["cargo run x", "./t.sh"]);
}
