//! A racing attacker against the public library API.
//!
//! While reads, writes, moves and deletes run through [`filekeeper::Workspace`], a thread keeps
//! exchanging a directory inside the workspace with a symbolic link to a directory outside it
//! (`renameat2` with `RENAME_EXCHANGE`, so both names always exist and every instant is one of
//! the two states). The outside directory holds files with the same names as the inside one, so
//! a call that followed the link would read, overwrite, delete or move a real outside file.
//!
//! Each call either succeeds inside the workspace (checked through a handle on the real inside
//! directory, which the attacker cannot redirect) or is refused with a code that names the
//! race. Afterwards the outside tree is byte-identical. The race must actually be run: some
//! calls of each kind succeed and some are refused, or it proves nothing.

use filekeeper::{Code, Error, Filekeeper, MutationOptions, ReadOptions, Workspace};
use rustix::fs::{AtFlags, Mode, OFlags};
use std::collections::BTreeMap;
use std::fs;
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::os::unix::fs::{MetadataExt, symlink};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Attempts of each kind; 10,000 in all. A read costs a tenth of a millisecond and a mutation
/// several (it takes the lock, opens the journal and stores blobs), so reads are the bulk and
/// each kind of mutation still gets a thousand tries.
const READS: u32 = 7000;
const WRITES: u32 = 1000;
const MOVES: u32 = 1000;
const DELETES: u32 = 1000;
/// Further attempts allowed for a kind that has not yet both succeeded and been refused.
const EXTRA: u32 = 5000;

const INSIDE: &[u8] = b"inside\n";
const SECRET: &[u8] = b"secret: outside the workspace\n";

/// An entry of the outside tree: kind, mode, and bytes (a file's content or a link's target).
type Snapshot = BTreeMap<PathBuf, (&'static str, u32, Vec<u8>)>;

fn snapshot(dir: &Path) -> Snapshot {
    fn walk(base: &Path, dir: &Path, out: &mut Snapshot) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let meta = fs::symlink_metadata(&path).unwrap();
            let rel = path.strip_prefix(base).unwrap().to_path_buf();
            let ft = meta.file_type();
            let value = if ft.is_symlink() {
                let target = fs::read_link(&path).unwrap();
                (
                    "link",
                    meta.mode(),
                    target.into_os_string().into_encoded_bytes(),
                )
            } else if ft.is_dir() {
                walk(base, &path, out);
                ("dir", meta.mode(), Vec::new())
            } else {
                ("file", meta.mode(), fs::read(&path).unwrap())
            };
            out.insert(rel, value);
        }
    }
    let mut out = Snapshot::new();
    walk(dir, dir, &mut out);
    out
}

/// Outcomes of one kind of call: successes, and refusals by code.
#[derive(Default)]
struct Tally {
    ok: u32,
    refused: BTreeMap<&'static str, u32>,
    /// Refusals that came after the operation was recorded (a step met the link and the
    /// operation was rolled back or recorded partial), rather than while planning.
    after_recording: u32,
}

impl Tally {
    fn attempts(&self) -> u32 {
        self.ok + self.refused.values().sum::<u32>()
    }

    /// Counts a refusal, failing the test when its code is not one the race can explain.
    fn refuse(&mut self, what: &str, i: u32, err: &Error, allowed: &[Code]) {
        assert!(
            allowed.contains(&err.code),
            "{what} attempt {i}: unexpected {} ({}): {err}",
            err.code.as_str(),
            serde_json::Value::Object(err.details.clone())
        );
        if err.details.contains_key("operation_id") {
            self.after_recording += 1;
        }
        *self.refused.entry(err.code.as_str()).or_default() += 1;
    }

    fn report(&self, what: &str) -> String {
        let codes: Vec<String> = self
            .refused
            .iter()
            .map(|(code, n)| format!("{code} {n}"))
            .collect();
        format!(
            "{what:<7} attempts {:>5}  ok {:>5}  refused {:>5} ({}; {} after recording)",
            self.attempts(),
            self.ok,
            self.refused.values().sum::<u32>(),
            codes.join(", "),
            self.after_recording
        )
    }
}

/// The real inside directory, held open so the test can look at it whatever its name is now.
struct RealDir(OwnedFd);

impl RealDir {
    fn exists(&self, name: &str) -> bool {
        rustix::fs::statat(&self.0, name, AtFlags::SYMLINK_NOFOLLOW).is_ok()
    }

    fn read(&self, name: &str) -> Vec<u8> {
        let fd = rustix::fs::openat(
            &self.0,
            name,
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .unwrap();
        let mut bytes = Vec::new();
        fs::File::from(fd).read_to_end(&mut bytes).unwrap();
        bytes
    }

    fn put(&self, name: &str, bytes: &[u8]) {
        let fd = rustix::fs::openat(
            &self.0,
            name,
            OFlags::WRONLY | OFlags::CREATE | OFlags::TRUNC | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o644),
        )
        .unwrap();
        fs::File::from(fd).write_all(bytes).unwrap();
    }

    fn remove(&self, name: &str) {
        rustix::fs::unlinkat(&self.0, name, AtFlags::empty()).unwrap();
    }
}

#[derive(Clone, Copy)]
enum Kind {
    Read,
    Write,
    Move,
    Delete,
}

impl Kind {
    const ALL: [Kind; 4] = [Kind::Read, Kind::Write, Kind::Move, Kind::Delete];

    fn name(self) -> &'static str {
        match self {
            Kind::Read => "read",
            Kind::Write => "write",
            Kind::Move => "move",
            Kind::Delete => "delete",
        }
    }
}

/// Codes a call may be refused with while the attacker runs: the walk met the link
/// (SYMLINK_ESCAPE_REFUSED); a step met it after the operation was recorded and the rollback met
/// it too, so the operation is recorded partial (PARTIAL_RECOVERY); or the verification after the
/// steps could not see the after state through the link (CONTENT_CONFLICT, recorded partial).
/// Anything else -- STORAGE_ERROR, INTERNAL_ERROR, NOT_A_FILE, a success that landed outside --
/// fails the test.
const READ_CODES: &[Code] = &[Code::SymlinkEscapeRefused];
const MUTATION_CODES: &[Code] = &[
    Code::SymlinkEscapeRefused,
    Code::PartialRecovery,
    Code::ContentConflict,
];

/// The calls under attack, each checked through the real inside directory.
struct Race<'a> {
    ws: &'a Workspace,
    real: &'a RealDir,
    options: &'a MutationOptions,
}

impl Race<'_> {
    /// Makes attempt number `i` of one kind and counts its outcome.
    fn attempt(&self, kind: Kind, i: u32, tally: &mut Tally) {
        let (ws, real, options) = (self.ws, self.real, self.options);
        match kind {
            Kind::Read => match ws.read_file("dir/file.txt", &ReadOptions::default()) {
                Ok(read) => {
                    assert_eq!(
                        read.raw, INSIDE,
                        "read {i} returned bytes that are not the inside file's"
                    );
                    tally.ok += 1;
                }
                Err(e) => tally.refuse("read", i, &e, READ_CODES),
            },
            Kind::Write => {
                let content = format!("written by attempt {i}\n");
                match ws.write_file("dir/w.txt", content.as_bytes(), None, false, options) {
                    Ok(_) => {
                        assert_eq!(
                            real.read("w.txt"),
                            content.as_bytes(),
                            "write {i} succeeded but the inside file does not hold it"
                        );
                        tally.ok += 1;
                    }
                    Err(e) => tally.refuse("write", i, &e, MUTATION_CODES),
                }
            }
            Kind::Move => {
                // Ping-pong between two names; a partial move can leave both or neither.
                match (real.exists("ping.txt"), real.exists("pong.txt")) {
                    (false, false) => real.put("ping.txt", INSIDE),
                    (true, true) => real.remove("pong.txt"),
                    _ => {}
                }
                let (from, to) = if real.exists("ping.txt") {
                    ("ping.txt", "pong.txt")
                } else {
                    ("pong.txt", "ping.txt")
                };
                match ws.move_file(&format!("dir/{from}"), &format!("dir/{to}"), false, options) {
                    Ok(_) => {
                        assert!(
                            !real.exists(from) && real.read(to) == INSIDE,
                            "move {i} succeeded but did not move the inside file"
                        );
                        tally.ok += 1;
                    }
                    Err(e) => tally.refuse("move", i, &e, MUTATION_CODES),
                }
            }
            Kind::Delete => {
                if !real.exists("d.txt") {
                    real.put("d.txt", b"doomed\n");
                }
                match ws.delete_file("dir/d.txt", None, options) {
                    Ok(_) => {
                        assert!(
                            !real.exists("d.txt"),
                            "delete {i} succeeded but the inside file is still there"
                        );
                        tally.ok += 1;
                    }
                    Err(e) => tally.refuse("delete", i, &e, MUTATION_CODES),
                }
            }
        }
    }
}

fn open_workspace(base: &Path, root: &Path) -> Workspace {
    let keeper = Filekeeper::new(Some(&base.join("home"))).unwrap();
    keeper.workspace(None, Some(root)).unwrap()
}

#[test]
fn a_racing_swap_of_a_directory_for_a_symlink_never_lets_a_call_reach_outside() {
    let started = Instant::now();
    // The race is about names, not durability: on tmpfs (when there is one) fsync is free and
    // the 3,000 mutations fit the time budget of a debug build.
    let shm = Path::new("/dev/shm");
    let tmp = if shm.is_dir() {
        tempfile::tempdir_in(shm).unwrap()
    } else {
        tempfile::tempdir().unwrap()
    };
    let root = tmp.path().join("ws");
    let outside = tmp.path().join("outside");
    fs::create_dir_all(root.join("dir")).unwrap();
    fs::create_dir_all(&outside).unwrap();
    // Same names on both sides: following the link would hit a real outside file. pong.txt
    // exists only inside, so a move that escaped in either direction changes the outside set.
    for name in ["file.txt", "w.txt", "d.txt", "ping.txt"] {
        fs::write(outside.join(name), SECRET).unwrap();
    }
    fs::write(root.join("dir/file.txt"), INSIDE).unwrap();
    fs::write(root.join("dir/ping.txt"), INSIDE).unwrap();
    // Absolute, like an attacker would plant it; `swap` and `dir` trade places all the time.
    symlink(&outside, root.join("swap")).unwrap();
    let before = snapshot(&outside);

    let ws = open_workspace(tmp.path(), &root);
    let options = MutationOptions::default();
    // The first mutation creates .filekeeper/ before the race starts.
    ws.write_file("dir/w.txt", b"first\n", None, false, &options)
        .unwrap();
    let real = RealDir(
        rustix::fs::open(
            root.join("dir"),
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .unwrap(),
    );

    let stop = Arc::new(AtomicBool::new(false));
    let attacker = {
        let stop = Arc::clone(&stop);
        let (dir, swap) = (root.join("dir"), root.join("swap"));
        std::thread::spawn(move || {
            let mut swaps = 0u64;
            while !stop.load(Ordering::Relaxed) {
                rustix::fs::renameat_with(
                    rustix::fs::CWD,
                    &dir,
                    rustix::fs::CWD,
                    &swap,
                    rustix::fs::RenameFlags::EXCHANGE,
                )
                .unwrap();
                swaps += 1;
            }
            swaps
        })
    };

    let mut tallies: [Tally; 4] = Default::default();
    let race = Race {
        ws: &ws,
        real: &real,
        options: &options,
    };
    let total = READS + WRITES + MOVES + DELETES;
    for i in 0..total {
        // Ten slots: seven reads, then a write, a move and a delete.
        let kind = match i % 10 {
            0..=6 => Kind::Read,
            7 => Kind::Write,
            8 => Kind::Move,
            _ => Kind::Delete,
        };
        race.attempt(kind, i, &mut tallies[kind as usize]);
        if i % 1000 == 999 {
            assert_eq!(
                snapshot(&outside),
                before,
                "the outside tree changed by attempt {i}"
            );
        }
    }
    // A kind that has not yet both succeeded and been refused gets more attempts of its own, up
    // to a budget: on a loaded machine a move may win its race in fewer than one try in a
    // thousand, and the guards below must not depend on the machine's speed.
    let mut extra = 0;
    while extra < EXTRA {
        let Some(kind) = Kind::ALL.into_iter().find(|&kind| {
            let tally = &tallies[kind as usize];
            tally.ok == 0 || tally.ok == tally.attempts()
        }) else {
            break;
        };
        race.attempt(kind, total + extra, &mut tallies[kind as usize]);
        extra += 1;
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = attacker.join().unwrap();

    eprintln!(
        "escape race: {} attempts ({extra} extra), {swaps} swaps by the attacker, 0 escapes",
        total + extra
    );
    for kind in Kind::ALL {
        eprintln!("  {}", tallies[kind as usize].report(kind.name()));
    }
    eprintln!("  took {:.1?}", started.elapsed());

    assert_eq!(
        snapshot(&outside),
        before,
        "something outside the workspace changed"
    );
    assert_eq!(
        tallies.iter().map(Tally::attempts).sum::<u32>(),
        total + extra
    );
    assert!(total >= 10_000);
    assert!(swaps > 1000, "the attacker barely ran ({swaps} swaps)");
    for kind in Kind::ALL {
        let (what, tally) = (kind.name(), &tallies[kind as usize]);
        assert!(
            tally.ok > 0,
            "no {what} ever succeeded: the race proves nothing"
        );
        assert!(
            tally.attempts() > tally.ok,
            "no {what} was ever refused: the race never hit"
        );
    }
}
