//! A seeded generator of normalised replacements, the way agents get indentation wrong.
//!
//! It takes real source files (this repository's own Rust, and Python's standard library when
//! `python3` can say where it is), picks windows of lines, and builds an old text from each by
//! stripping, shifting or re-scaling its indentation, adding trailing spaces or filling blank
//! lines with spaces. The new text changes one line's content, inserts a line at the level of
//! the line before it, or leaves the text as it was. Every case must end in a refusal that
//! writes nothing, or in exactly the file the caller meant: unchanged lines byte for byte as
//! the file has them, the changed or inserted line at its neighbour's indentation in the file,
//! and every line outside the window untouched.

use super::doc::{Editable, caller_lines, split_lines};
use super::replace::{Policy, replace};
use crate::Code;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// xorshift64: small, seeded, the same cases on every run (the merge generator's too).
pub(super) struct Rng(pub(super) u64);

impl Rng {
    pub(super) fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    pub(super) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Shape {
    /// Every line's indentation removed.
    Strip,
    /// N spaces added to every non-blank line.
    ShiftRight(usize),
    /// Up to N leading spaces removed from every line.
    ShiftLeft(usize),
    /// Leading spaces halved: 4-space levels written as 2-space ones.
    Halve,
    /// Trailing spaces on every non-blank line.
    Trailing,
    /// Blank lines holding spaces, and trailing spaces on the last line.
    BlankSpaces,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Edit {
    Leave,
    /// Line k's content changed.
    Change(usize),
    /// A line inserted after line k, at line k's level.
    Insert(usize),
}

fn leading(s: &str) -> &str {
    &s[..s.len() - s.trim_start().len()]
}

fn shaped(line: &str, shape: Shape) -> String {
    if line.trim().is_empty() {
        return match shape {
            Shape::BlankSpaces => "    ".to_owned(),
            _ => String::new(),
        };
    }
    let (ws, rest) = (leading(line), line.trim_start());
    match shape {
        Shape::Strip => rest.to_owned(),
        Shape::ShiftRight(n) => format!("{}{line}", " ".repeat(n)),
        Shape::ShiftLeft(n) => {
            let spaces = ws.len() - ws.trim_start_matches(' ').len();
            line[spaces.min(n)..].to_owned()
        }
        Shape::Halve => {
            let spaces = ws.len() - ws.trim_start_matches(' ').len();
            format!("{}{}", " ".repeat(spaces / 2), &line[spaces..])
        }
        Shape::Trailing => format!("{line}  "),
        Shape::BlankSpaces => line.to_owned(),
    }
}

fn sources() -> Vec<PathBuf> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in [here.join("src"), here.join("../plumbing/src")] {
        collect(&dir, "rs", &mut files);
    }
    let stdlib = std::process::Command::new("python3")
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['stdlib'])",
        ])
        .output();
    match stdlib {
        Ok(out) if out.status.success() => {
            let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
            let mut py = Vec::new();
            if let Ok(entries) = std::fs::read_dir(&dir) {
                py.extend(
                    entries
                        .flatten()
                        .map(|e| e.path())
                        .filter(|p| p.extension().is_some_and(|e| e == "py")),
                );
            }
            py.sort();
            files.extend(py);
        }
        _ => eprintln!("python3 not found: the generator uses only Rust sources"),
    }
    files
}

fn collect(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(&path, ext, out);
        } else if path.extension().is_some_and(|e| e == ext) {
            out.push(path);
        }
    }
}

const CASES: usize = 4000;

#[test]
fn generated_normalised_replacements_are_exact_or_refused() {
    let files: Vec<(PathBuf, String)> = sources()
        .into_iter()
        .filter_map(|p| {
            let text = std::fs::read_to_string(&p).ok()?;
            (!text.contains('\r') && !text.starts_with('\u{feff}') && text.lines().count() > 10)
                .then_some((p, text))
        })
        .collect();
    assert!(files.len() > 20, "too few source files: {}", files.len());
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    // (shape, edit kind) -> (applied, refused, ambiguous)
    let mut tally: BTreeMap<(String, &str), [usize; 3]> = BTreeMap::new();
    let mut case = 0;
    let mut tries = 0;
    while case < CASES {
        tries += 1;
        assert!(tries < CASES * 50, "cannot find windows");
        let (path, text) = &files[rng.below(files.len())];
        let split = split_lines(text);
        let lines: Vec<&str> = split.iter().map(|l| l.text.as_ref()).collect();
        let len = 2 + rng.below(7);
        if lines.len() <= len {
            continue;
        }
        let start = rng.below(lines.len() - len);
        let window = &lines[start..start + len];
        if window[0].trim().is_empty() || window[len - 1].trim().is_empty() {
            continue;
        }
        // Overlapping matches (a run of closing braces) are matches like any other: the old
        // text then occurs more than once, and `first` refuses to pick one.
        let shape = match rng.below(6) {
            0 => Shape::Strip,
            1 => Shape::ShiftRight(1 + rng.below(8)),
            2 => Shape::ShiftLeft(1 + rng.below(8)),
            3 => Shape::Halve,
            4 => Shape::Trailing,
            _ => Shape::BlankSpaces,
        };
        let old: Vec<String> = window.iter().map(|l| shaped(l, shape)).collect();
        let non_blank: Vec<usize> = (0..len).filter(|&k| !window[k].trim().is_empty()).collect();
        let k = non_blank[rng.below(non_blank.len())];
        let edit = match rng.below(3) {
            0 => Edit::Leave,
            1 => Edit::Change(k),
            _ => Edit::Insert(k),
        };
        let marker = format!("generated_{case}()");
        let mut new = old.clone();
        // What the caller means: the file with the same edit at the file's own indentation.
        let mut meant: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
        match edit {
            Edit::Leave => {}
            Edit::Change(k) => {
                new[k] = format!("{}{} {marker}", leading(&old[k]), old[k].trim());
                meant[start + k] = format!("{}{} {marker}", leading(window[k]), window[k].trim());
            }
            Edit::Insert(k) => {
                new.insert(k + 1, format!("{}{marker}", leading(&old[k])));
                meant.insert(start + k + 1, format!("{}{marker}", leading(window[k])));
            }
        }
        let (old, new) = (old.join("\n"), new.join("\n"));
        case += 1;
        let mut ed = Editable::new("f", text.as_bytes()).unwrap();
        let result = replace(&mut ed, "f", &old, &new, Policy::First, None, None);
        let kind = match edit {
            Edit::Leave => "leave",
            Edit::Change(_) => "change",
            Edit::Insert(_) => "insert",
        };
        let shape_name = format!("{:?}", shape).split('(').next().unwrap().to_owned();
        let row = tally.entry((shape_name, kind)).or_default();
        let out = match result {
            Ok(r) => {
                let out = String::from_utf8(ed.into_bytes()).unwrap();
                if r.stage == "exact" {
                    // The shape left the text as the file has it somewhere: a plain
                    // replacement of that occurrence.
                    assert_eq!(out, text.replacen(&old, &new, 1));
                    continue;
                }
                row[0] += 1;
                assert_eq!(r.count, 1);
                let span = format!("(lines {}-{})", start + 1, start + len);
                assert!(
                    r.warnings[0].contains(&span),
                    "{}: {:?} vs {span}",
                    path.display(),
                    r.warnings
                );
                out
            }
            Err(e) => {
                assert_eq!(
                    ed.into_bytes(),
                    text.as_bytes(),
                    "a refusal changed the text"
                );
                match e.code {
                    Code::MatchCountMismatch => row[2] += 1,
                    Code::NoMatch => {
                        // Only an inserted line can need a level the old text cannot give.
                        assert_eq!(
                            kind,
                            "insert",
                            "{} lines {}-{}, {shape:?} {edit:?}: {}",
                            path.display(),
                            start + 1,
                            start + len,
                            e.message
                        );
                        assert!(
                            !matches!(shape, Shape::ShiftRight(_) | Shape::Trailing),
                            "{shape:?} keeps the frame consistent: {}",
                            e.message
                        );
                        row[1] += 1;
                    }
                    other => panic!("unexpected {other:?}: {}", e.message),
                }
                continue;
            }
        };
        let got = caller_lines(&out);
        if got != meant {
            let first = got
                .iter()
                .zip(&meant)
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            panic!(
                "{} lines {}-{}, {shape:?} {edit:?}\nold:\n{old}\nnew:\n{new}\nfirst difference at line {}:\n got {:?}\nmeant {:?}",
                path.display(),
                start + 1,
                start + len,
                first + 1,
                got.get(first),
                meant.get(first)
            );
        }
        assert_eq!(out.ends_with('\n'), text.ends_with('\n'));
    }
    for ((shape, kind), [applied, refused, ambiguous]) in &tally {
        eprintln!(
            "{shape:>12} {kind:<7} applied {applied:>4}  refused {refused:>4}  several matches {ambiguous:>4}"
        );
    }
    // The generator must reach the normalised stage, and inserted lines must be placed when
    // the frame allows it, not only refused.
    let applied = |kind: &str| {
        tally
            .iter()
            .filter(|((_, k), _)| *k == kind)
            .map(|(_, v)| v[0])
            .sum::<usize>()
    };
    for kind in ["leave", "change", "insert"] {
        assert!(applied(kind) > CASES / 10, "too few {kind} cases applied");
    }
}
