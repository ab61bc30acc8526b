#!/bin/sh
# Hashing throughput: keeper hash-object (and hash-object -w, which also compresses the blob
# into the store) against `openssl dgst -sha256` on the same file, in the same run. Target:
# hash-object -w at least 0.9x openssl's throughput, i.e. a time ratio of at most 1/0.9 = 1.11.
# PERF_HASH_MB sets the file size (default 1024, as the target says); memory stays bounded.
. "$(dirname "$0")/perf-lib.sh"
perf_need openssl

mb=${PERF_HASH_MB:-1024}
ws=$PERF_TRASH/ws
mkdir -p "$ws"
# Text-like, compressible content, as workspace files are (random bytes would flatter neither).
yes "the quick brown fox jumps over the lazy dog 0123456789 abcdefghijklmnopqrstuvwxyz" |
	head -c $((mb * 1048576)) >"$ws/big.txt"
echo "file: $(($(stat -c %s "$ws/big.txt") / 1048576)) MiB"

status=0
perf_compare "hash-object (hash only)" 1.11 \
	"$KEEPER --root '$ws' hash-object big.txt" \
	"openssl dgst -sha256 '$ws/big.txt'" || status=1
perf_compare "hash-object -w (hash and store)" 1.11 \
	"rm -rf '$ws/.filekeeper/objects'; $KEEPER --root '$ws' hash-object -w big.txt" \
	"openssl dgst -sha256 '$ws/big.txt'" || status=1
perf_memory "hash-object -w" \
	"$KEEPER --root '$ws' hash-object -w big.txt" \
	"openssl dgst -sha256 '$ws/big.txt'"
exit $status
