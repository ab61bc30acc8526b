//! The loose-object store: `objects/<2 hex>/<62 hex>`, one plain zstd frame per blob.
//!
//! A blob is named by the SHA-256 of its uncompressed bytes, so writing the same content twice
//! is a no-op after one `stat`. Every read re-hashes what it decompressed; an object whose
//! bytes do not match its name is reported as damaged, never returned. Any object can be
//! recovered by hand with `zstd -dc objects/ab/cd…`.

use crate::durable::{create_dir_if_missing, random_hex16, sync_dir};
use crate::error::{Code, Error, Result};
use crate::fault::counted;
use crate::oid::{Hasher, ObjectId};
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// zstd level 3: zstd's own default, a good ratio at several hundred MB/s.
const LEVEL: i32 = 3;
/// The name prefix of the store's temp files: a write in progress, or one a crash interrupted
/// (harmless, and reported by `fsck` as such, not as damage).
pub(crate) const TEMP_PREFIX: &str = "tmp_obj_";

/// A loose-object store at one directory: blobs written durably (fsynced, renamed into place,
/// directory fsynced) and verified against their id on every read.
pub struct ObjectStore {
    dir: PathBuf,
}

/// One entry found while scanning the store.
pub enum Entry {
    /// A well-named object: its id and its host path (not yet verified).
    Object(ObjectId, PathBuf),
    /// A file that is not a well-named object: a leftover temp file or a stranger.
    Stray(String),
}

impl ObjectStore {
    /// The store rooted at `dir` (normally `.filekeeper/objects`). Nothing is created until the
    /// first write.
    pub fn at(dir: impl Into<PathBuf>) -> Self {
        ObjectStore { dir: dir.into() }
    }

    fn path_of(&self, id: &ObjectId) -> PathBuf {
        let hex = id.hex();
        self.dir.join(&hex[..2]).join(&hex[2..])
    }

    /// Whether an object file with this id exists. Its content is not verified.
    pub fn contains(&self, id: &ObjectId) -> bool {
        self.path_of(id).is_file()
    }

    /// The store's directory (normally `.filekeeper/objects`).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// An object's size on disk (compressed) and the time it was last stored; `None` when it
    /// is not in the store.
    pub fn stat(&self, id: &ObjectId) -> Option<(u64, std::time::SystemTime)> {
        let meta = fs::symlink_metadata(self.path_of(id)).ok()?;
        Some((meta.len(), meta.modified().ok()?))
    }

    /// Whether an object with this id exists; if so, its modification time is set to now, so
    /// that gc's grace period counts from this store and not from the first: a script that
    /// stores an old, unreferenced blob again before naming it in the journal is protected as
    /// one that stored a new blob is. The bytes are not touched, and a failure to set the
    /// time (a store another user owns) is ignored: the object is there either way.
    fn freshen(&self, id: &ObjectId) -> bool {
        let path = self.path_of(id);
        if !path.is_file() {
            return false;
        }
        let now = rustix::fs::Timestamps {
            last_access: rustix::fs::Timespec {
                tv_sec: 0,
                tv_nsec: rustix::fs::UTIME_OMIT,
            },
            last_modification: rustix::fs::Timespec {
                tv_sec: 0,
                tv_nsec: rustix::fs::UTIME_NOW,
            },
        };
        let _ = rustix::fs::utimensat(
            rustix::fs::CWD,
            &path,
            &now,
            rustix::fs::AtFlags::SYMLINK_NOFOLLOW,
        );
        true
    }

    /// Stores `bytes`, returning their id. Existing objects are not rewritten (only their
    /// modification time is renewed, for gc's grace period).
    pub fn write(&self, bytes: &[u8]) -> Result<ObjectId> {
        let id = ObjectId::of(bytes);
        if self.freshen(&id) {
            return Ok(id);
        }
        let fanout = self.ensure_fanout(&id)?;
        let tmp = fanout.join(format!("{TEMP_PREFIX}{}", random_hex16()));
        let compressed = zstd::bulk::compress(bytes, LEVEL)
            .map_err(|e| Error::storage("compressing object", &e))?;
        self.install(&tmp, &id, |file| file.write_all(&compressed))?;
        Ok(id)
    }

    /// Stores a stream without holding it in memory: compressed into a temp file while hashed,
    /// then renamed to its name. Returns the id and the uncompressed length.
    pub fn write_stream(&self, mut reader: impl Read) -> Result<(ObjectId, u64)> {
        create_dir_if_missing(&self.dir)
            .map_err(|e| Error::storage("creating object store", &e))?;
        let tmp = self.dir.join(format!("{TEMP_PREFIX}{}", random_hex16()));
        let result = (|| -> Result<(ObjectId, u64)> {
            let file = counted("create temporary file", || File::create_new(&tmp))
                .map_err(|e| Error::storage("writing object", &e))?;
            let mut encoder = zstd::stream::Encoder::new(file, LEVEL)
                .map_err(|e| Error::storage("writing object", &e))?;
            // Hashing and compressing are each about as costly as the other: this thread
            // reads and hashes while a second one compresses, a few chunks apart.
            let (chunks, received) = std::sync::mpsc::sync_channel::<Vec<u8>>(4);
            std::thread::scope(|scope| {
                let compressor = scope.spawn(move || -> io::Result<File> {
                    for chunk in received {
                        encoder.write_all(&chunk)?;
                    }
                    encoder.finish()
                });
                let mut hasher = Hasher::default();
                let read = (|| -> Result<()> {
                    loop {
                        let mut buf = vec![0u8; 1024 * 1024];
                        let n = match reader.read(&mut buf) {
                            Ok(0) => return Ok(()),
                            Ok(n) => n,
                            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                            Err(e) => return Err(Error::storage("reading input", &e)),
                        };
                        buf.truncate(n);
                        hasher.update(&buf);
                        if chunks.send(buf).is_err() {
                            return Ok(()); // the compressor failed; its error is reported below
                        }
                    }
                })();
                drop(chunks);
                let file = compressor
                    .join()
                    .map_err(|_| Error::internal("the compressing thread stopped unexpectedly"))?
                    .map_err(|e| Error::storage("writing object", &e))?;
                read?;
                counted("sync file", || file.sync_all())
                    .map_err(|e| Error::storage("syncing object", &e))?;
                Ok(hasher.finish())
            })
        })();
        let (id, len) = match result {
            Ok(found) => found,
            Err(e) => {
                let _ = fs::remove_file(&tmp);
                return Err(e);
            }
        };
        if self.freshen(&id) {
            let _ = fs::remove_file(&tmp);
            return Ok((id, len));
        }
        let fanout = self.ensure_fanout(&id)?;
        crate::fault::crash_point("object-before-rename");
        let rename = counted("rename into place", || fs::rename(&tmp, self.path_of(&id)))
            .and_then(|()| sync_dir(&fanout));
        if let Err(e) = rename {
            let _ = fs::remove_file(&tmp);
            return Err(Error::storage("storing object", &e));
        }
        Ok((id, len))
    }

    fn ensure_fanout(&self, id: &ObjectId) -> Result<PathBuf> {
        let fanout = self.dir.join(&id.hex()[..2]);
        let created = (|| -> io::Result<bool> {
            if create_dir_if_missing(&self.dir)?
                && let Some(parent) = self.dir.parent()
            {
                sync_dir(parent)?;
            }
            let created = create_dir_if_missing(&fanout)?;
            if created {
                sync_dir(&self.dir)?;
            }
            Ok(created)
        })();
        created.map_err(|e| Error::storage("creating object directory", &e))?;
        Ok(fanout)
    }

    /// Writes a temp file with `fill`, fsyncs it, renames it to the object's name and fsyncs
    /// the fan-out directory. The temp file is removed on any failure.
    fn install(
        &self,
        tmp: &Path,
        id: &ObjectId,
        fill: impl FnOnce(&mut File) -> io::Result<()>,
    ) -> Result<()> {
        let result = (|| {
            let mut file = counted("create temporary file", || File::create_new(tmp))?;
            counted("write file data", || fill(&mut file))?;
            counted("sync file", || file.sync_all())?;
            crate::fault::crash_point("object-before-rename");
            counted("rename into place", || fs::rename(tmp, self.path_of(id)))?;
            sync_dir(tmp.parent().unwrap_or(&self.dir))
        })();
        result.map_err(|e| {
            let _ = fs::remove_file(tmp);
            Error::storage("writing object", &e)
        })
    }

    /// Reads and verifies a whole blob.
    pub fn read(&self, id: &ObjectId) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.decode_into(id, &mut out)?;
        Ok(out)
    }

    /// Verifies a blob without keeping its bytes; returns its length.
    pub fn verify(&self, id: &ObjectId) -> Result<u64> {
        self.decode_into(id, &mut io::sink())
    }

    /// Writes a blob to `out` only after verifying it, so a damaged object never leaks out as
    /// wrong bytes, whatever its size: one verifying pass, then one copying pass.
    pub fn copy_to(&self, id: &ObjectId, out: &mut impl Write) -> Result<u64> {
        self.verify(id)?;
        let file = self.open(id)?;
        let mut decoder = zstd::stream::Decoder::new(file).map_err(|_| damaged(id))?;
        io::copy(&mut decoder, out).map_err(|e| Error::storage("writing blob", &e))
    }

    fn open(&self, id: &ObjectId) -> Result<File> {
        File::open(self.path_of(id)).map_err(|e| {
            if e.kind() == io::ErrorKind::NotFound {
                not_stored(id)
            } else {
                Error::storage(&format!("opening object {id}"), &e)
                    .with("object_id", id.to_string())
            }
        })
    }

    fn decode_into(&self, id: &ObjectId, out: &mut impl Write) -> Result<u64> {
        let file = self.open(id)?;
        let mut decoder = zstd::stream::Decoder::new(file).map_err(|_| damaged(id))?;
        let mut hasher = Hasher::default();
        let mut buf = vec![0u8; 256 * 1024];
        loop {
            let n = match decoder.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => return Err(damaged(id)),
            };
            hasher.update(&buf[..n]);
            out.write_all(&buf[..n])
                .map_err(|e| Error::storage("writing blob", &e))?;
        }
        let (actual, len) = hasher.finish();
        if actual != *id {
            return Err(damaged(id).with("actual_hash", actual.to_string()));
        }
        Ok(len)
    }

    /// Every file under the store, classified. Missing store: nothing.
    pub fn scan(&self) -> Result<Vec<Entry>> {
        let mut entries = Vec::new();
        let top = match fs::read_dir(&self.dir) {
            Ok(top) => top,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(entries),
            Err(e) => return Err(Error::storage("listing object store", &e)),
        };
        let listing = |e: io::Error| Error::storage("listing object store", &e);
        for fan in top {
            let fan = fan.map_err(listing)?;
            let fan_name = fan.file_name().to_string_lossy().into_owned();
            if !fan.file_type().map_err(listing)?.is_dir() {
                entries.push(Entry::Stray(fan_name));
                continue;
            }
            for obj in fs::read_dir(fan.path()).map_err(listing)? {
                let obj = obj.map_err(listing)?;
                let name = obj.file_name().to_string_lossy().into_owned();
                match ObjectId::parse(&format!("sha256:{fan_name}{name}")) {
                    Ok(id) if id.hex() == format!("{fan_name}{name}") => {
                        entries.push(Entry::Object(id, obj.path()))
                    }
                    _ => entries.push(Entry::Stray(format!("{fan_name}/{name}"))),
                }
            }
        }
        entries.sort_by_key(entry_key);
        Ok(entries)
    }
}

fn entry_key(entry: &Entry) -> String {
    match entry {
        Entry::Object(id, _) => id.hex(),
        Entry::Stray(name) => name.clone(),
    }
}

/// The one error for an object that is not in the store, whether it was never stored or lost.
pub fn not_stored(id: &ObjectId) -> Error {
    Error::new(
        Code::StorageError,
        format!("object {id} is not in the store"),
    )
    .with("object_id", id.to_string())
    .hint(crate::words![
        "if the journal names this object, ",
        crate::Operation::Fsck,
        " reports it as missing; undo of the operations naming it is unavailable"
    ])
}

fn damaged(id: &ObjectId) -> Error {
    Error::new(
        Code::StorageError,
        format!("object {id} is damaged: its content does not match its id"),
    )
    .with("object_id", id.to_string())
    .hint(crate::words![
        crate::Operation::Fsck,
        " lists damaged objects"
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (tempfile::TempDir, ObjectStore) {
        let dir = tempfile::tempdir().unwrap();
        let store = ObjectStore::at(dir.path().join("objects"));
        (dir, store)
    }

    #[test]
    fn written_blobs_read_back_and_live_at_their_fanout_path() {
        let (dir, store) = store();
        let id = store.write(b"hello\n").unwrap();
        assert_eq!(store.read(&id).unwrap(), b"hello\n");
        let hex = id.hex();
        let path = dir.path().join("objects").join(&hex[..2]).join(&hex[2..]);
        let raw = fs::read(path).unwrap();
        assert_eq!(zstd::decode_all(&raw[..]).unwrap(), b"hello\n");
    }

    #[test]
    fn writing_an_existing_blob_keeps_its_file_and_renews_its_time() {
        use std::os::unix::fs::MetadataExt;
        let (_dir, store) = store();
        let id = store.write(b"same").unwrap();
        let path = store.path_of(&id);
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
        File::open(&path).unwrap().set_modified(old).unwrap();
        fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o400)).unwrap();
        let (ino, bytes) = (fs::metadata(&path).unwrap().ino(), fs::read(&path).unwrap());
        assert_eq!(store.write(b"same").unwrap(), id);
        let meta = fs::metadata(&path).unwrap();
        assert_eq!(meta.ino(), ino, "the object was rewritten");
        assert_eq!(fs::read(&path).unwrap(), bytes);
        assert!(meta.modified().unwrap() > old, "the time was not renewed");
        File::open(&path).unwrap().set_modified(old).unwrap();
        assert_eq!(store.write_stream(&b"same"[..]).unwrap().0, id);
        assert!(fs::metadata(&path).unwrap().modified().unwrap() > old);
    }

    #[test]
    fn streamed_and_one_shot_writes_agree() {
        let (_dir, store) = store();
        let data: Vec<u8> = (0..3_000_000u32).map(|i| (i * 7 % 253) as u8).collect();
        let (id, len) = store.write_stream(&data[..]).unwrap();
        assert_eq!(len, data.len() as u64);
        assert_eq!(id, ObjectId::of(&data));
        assert_eq!(store.write(&data).unwrap(), id);
        assert_eq!(store.read(&id).unwrap(), data);
        assert!(
            store
                .scan()
                .unwrap()
                .iter()
                .all(|e| matches!(e, Entry::Object(..)))
        );
    }

    #[test]
    fn a_damaged_object_is_a_storage_error_naming_the_id() {
        let (_dir, store) = store();
        let id = store.write(b"precious").unwrap();
        let path = store.path_of(&id);
        fs::write(&path, zstd::bulk::compress(b"tampered", 3).unwrap()).unwrap();
        let err = store.read(&id).unwrap_err();
        assert_eq!(err.code, Code::StorageError);
        assert_eq!(err.details["object_id"], id.to_string());
        let mut out = Vec::new();
        assert!(store.copy_to(&id, &mut out).is_err());
        assert!(out.is_empty(), "damaged bytes leaked");
        fs::write(&path, b"not zstd at all").unwrap();
        assert_eq!(store.verify(&id).unwrap_err().code, Code::StorageError);
    }

    #[test]
    fn a_missing_object_is_a_storage_error() {
        let (_dir, store) = store();
        let err = store.read(&ObjectId::of(b"never stored")).unwrap_err();
        assert_eq!(err.code, Code::StorageError);
        assert!(err.message.contains("not in the store"));
    }

    #[test]
    fn scan_reports_strays() {
        let (dir, store) = store();
        store.write(b"a").unwrap();
        fs::write(dir.path().join("objects").join("tmp_obj_0123"), b"x").unwrap();
        let strays: Vec<_> = store
            .scan()
            .unwrap()
            .into_iter()
            .filter_map(|e| match e {
                Entry::Stray(name) => Some(name),
                Entry::Object(..) => None,
            })
            .collect();
        assert_eq!(strays, vec!["tmp_obj_0123".to_owned()]);
    }
}
